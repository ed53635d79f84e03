"""Atomic array operations, bit tricks and a shared-queue append for numba kernels.

numba offers no atomics on CPU arrays; the parallel BFS and SSSP steps need
three: compare-and-swap (claim a vertex once, lower a distance), fetch-add
(reserve room in a shared queue) and fetch-or (set a bit in a shared bitmap).
Each is one LLVM instruction on an array element, so they cost what the C++
``std::atomic`` equivalents cost. Float arrays are compared and swapped on
their bit patterns, which is what a float CAS does in CUDA and C++ too.
"""
from __future__ import annotations

from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic


def _element_pointer(context, builder, array_type, array_value, index):
    array = context.make_array(array_type)(context, builder, array_value)
    return cgutils.get_item_pointer(context, builder, array_type, array, [index])


def _as_integer(builder, value, width):
    """Bit-cast a float value to the integer of the same width (ints pass through)."""
    if isinstance(value.type, ir.IntType):
        return value
    return builder.bitcast(value, ir.IntType(width))


@intrinsic
def compare_and_swap(typingctx, array, index, expected, desired):
    """``array[index] = desired`` if it equals ``expected``; True when it did."""
    dtype = array.dtype
    sig = types.boolean(array, types.intp, dtype, dtype)

    def codegen(context, builder, signature, args):
        array_value, index_value, expected_value, desired_value = args
        pointer = _element_pointer(context, builder, signature.args[0], array_value, index_value)
        width = context.get_abi_sizeof(context.get_data_type(dtype)) * 8
        if isinstance(dtype, types.Float):
            pointer = builder.bitcast(pointer, ir.IntType(width).as_pointer())
        result = builder.cmpxchg(
            pointer,
            _as_integer(builder, expected_value, width),
            _as_integer(builder, desired_value, width),
            "monotonic",
            "monotonic",
        )
        swapped = builder.extract_value(result, 1)
        return builder.zext(swapped, context.get_value_type(types.boolean))

    return sig, codegen


def _read_modify_write(operation):
    @intrinsic
    def fetch(typingctx, array, index, value):
        if not isinstance(array.dtype, types.Integer):
            return None
        sig = array.dtype(array, types.intp, array.dtype)

        def codegen(context, builder, signature, args):
            array_value, index_value, operand = args
            pointer = _element_pointer(context, builder, signature.args[0], array_value, index_value)
            return builder.atomic_rmw(operation, pointer, operand, "monotonic")

        return sig, codegen

    return fetch


fetch_add = _read_modify_write("add")
fetch_add.__doc__ = "Atomically add ``value`` to ``array[index]``; returns the old value."
fetch_or = _read_modify_write("or")
fetch_or.__doc__ = "Atomically OR ``value`` into ``array[index]``; returns the old value."


@intrinsic
def popcount(typingctx, word):
    """Set bits of an integer word."""
    if not isinstance(word, types.Integer):
        return None
    sig = word(word)

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return sig, codegen


@intrinsic
def trailing_zeros(typingctx, word):
    """Index of the lowest set bit of a non-zero integer word."""
    if not isinstance(word, types.Integer):
        return None
    sig = word(word)

    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))

    return sig, codegen


@njit(cache=True)
def push_block(local, count, queue, tails, slot):
    """Append ``local[:count]`` to ``queue`` at a position reserved with one
    fetch-add on ``tails[slot]`` (how per-thread buffers flush into a shared queue)."""
    start = fetch_add(tails, slot, count)
    for i in range(count):
        queue[start + i] = local[i]

"""Atomic array operations, bit tricks and a shared-queue append for numba kernels.

numba offers no atomics on CPU arrays; the parallel BFS and SSSP steps need
three: compare-and-swap (claim a vertex once, lower a distance), fetch-add
(reserve room in a shared queue) and fetch-or (set a bit in a shared bitmap).
Each is one LLVM instruction on an array element, so they cost what the C++
``std::atomic`` equivalents cost. Float arrays are compared and swapped on
their bit patterns, which is what a float CAS does in CUDA and C++ too.

A kernel that keeps its threads for a whole search also needs ordered
loads, stores and read-modify-writes, an atomic minimum, a team that
forms from the threads that actually run, and a barrier (the end of this
module).
"""
from __future__ import annotations

import platform

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


@intrinsic
def float32_bits(typingctx, value):
    """The bit pattern of a float32 as uint32 (ordered like the value for non-negative floats)."""
    if value != types.float32:
        return None
    sig = types.uint32(types.float32)

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(32))

    return sig, codegen


@intrinsic
def float32_from_bits(typingctx, bits):
    """The float32 whose bit pattern is the uint32 ``bits``."""
    if bits != types.uint32:
        return None
    sig = types.float32(types.uint32)

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.FloatType())

    return sig, codegen


@njit(cache=True)
def push_block(local, count, queue, tails, slot):
    """Append ``local[:count]`` to ``queue`` at a position reserved with one
    fetch-add on ``tails[slot]`` (how per-thread buffers flush into a shared queue)."""
    start = fetch_add(tails, slot, count)
    for i in range(count):
        queue[start + i] = local[i]


# -- ordered atomics and a spin barrier --------------------------------------------------------
# The steps above only need relaxed ("monotonic") atomics: each numba
# parallel region ends with a join. A kernel that keeps its threads for a
# whole search (see _sssp_fused.fused_delta_stepping) synchronises them
# itself, and its barrier must order the plain loads and stores around it,
# hence acquire loads, release stores and acquire-release read-modify-writes.

_IS_X86 = platform.machine().lower() in ("x86_64", "amd64", "i386", "i686")


@intrinsic
def atomic_load(typingctx, array, index):
    """``array[index]`` read atomically with acquire ordering (never hoisted out of a loop)."""
    if not isinstance(array.dtype, types.Integer):
        return None
    sig = array.dtype(array, types.intp)

    def codegen(context, builder, signature, args):
        pointer = _element_pointer(context, builder, signature.args[0], args[0], args[1])
        width = context.get_abi_sizeof(context.get_data_type(array.dtype))
        return builder.load_atomic(pointer, "acquire", width)

    return sig, codegen


@intrinsic
def atomic_store(typingctx, array, index, value):
    """``array[index] = value`` atomically with release ordering."""
    if not isinstance(array.dtype, types.Integer):
        return None
    sig = types.void(array, types.intp, array.dtype)

    def codegen(context, builder, signature, args):
        pointer = _element_pointer(context, builder, signature.args[0], args[0], args[1])
        width = context.get_abi_sizeof(context.get_data_type(array.dtype))
        builder.store_atomic(args[2], pointer, "release", width)
        return context.get_dummy_value()

    return sig, codegen


@intrinsic
def fetch_add_ordered(typingctx, array, index, value):
    """:func:`fetch_add` with acquire-release ordering (a barrier's arrival)."""
    if not isinstance(array.dtype, types.Integer):
        return None
    sig = array.dtype(array, types.intp, array.dtype)

    def codegen(context, builder, signature, args):
        pointer = _element_pointer(context, builder, signature.args[0], args[0], args[1])
        return builder.atomic_rmw("add", pointer, args[2], "acq_rel")

    return sig, codegen


@intrinsic
def fetch_min(typingctx, array, index, value):
    """Atomically lower ``array[index]`` to ``value`` if smaller (signed); returns the old value."""
    if not isinstance(array.dtype, types.Integer):
        return None
    sig = array.dtype(array, types.intp, array.dtype)
    operation = "min" if array.dtype.signed else "umin"

    def codegen(context, builder, signature, args):
        pointer = _element_pointer(context, builder, signature.args[0], args[0], args[1])
        return builder.atomic_rmw(operation, pointer, args[2], "monotonic")

    return sig, codegen


@intrinsic
def spin_pause(typingctx):
    """The CPU's spin-wait hint (x86 ``pause``; nothing elsewhere)."""
    sig = types.void()

    def codegen(context, builder, signature, args):
        if _IS_X86:
            fnty = ir.FunctionType(ir.VoidType(), [])
            builder.call(cgutils.get_or_insert_function(builder.module, fnty, "llvm.x86.sse2.pause"), [])
        return context.get_dummy_value()

    return sig, codegen


@intrinsic
def yield_cpu(typingctx):
    """``sched_yield()``: let another thread run on this core (resolved from libc when loaded)."""
    sig = types.void()

    def codegen(context, builder, signature, args):
        fnty = ir.FunctionType(ir.IntType(32), [])
        builder.call(cgutils.get_or_insert_function(builder.module, fnty, "sched_yield"), [])
        return context.get_dummy_value()

    return sig, codegen


# Slots of a team's int64 state array, a cache line apart so that the
# waiters' polling of GENERATION does not fight the arrivals on COUNT.
BARRIER_COUNT, BARRIER_GENERATION, TEAM_JOINED, TEAM_SIZE, BARRIER_SLOTS = 0, 8, 16, 24, 32
# Yielding polls a thread makes, after its spins, before it closes a team
# without the threads still missing: about a millisecond where they will
# never come (iterations run in turn on one thread), once per search.
JOIN_YIELDS = 1000


@njit(cache=True)
def join_team(state, workers, spins):
    """Enter a kernel that keeps its threads: returns (this thread's id, team size).

    A numba ``prange`` of ``workers`` iterations normally runs each on its
    own thread, all at once, but nothing promises it: TBB may run two on one
    thread, ``OMP_DYNAMIC`` may shrink the team, a busy machine may start a
    thread late. So iterations number themselves as they arrive, and the
    team closes when all ``workers`` have arrived or, failing that, after
    ``spins`` polls with the pause hint and ``JOIN_YIELDS`` more that yield
    the core (a thread still asleep, or waiting for this core, gets to run):
    the team is whoever came. An iteration that arrives
    later gets an id at or above the team size and must return at once (the
    work is done or being done without it). The barrier below then only
    waits for threads known to be running. ``state`` must be zeroed before
    the region starts.
    """
    me = fetch_add_ordered(state, TEAM_JOINED, 1)
    polls = 0
    while True:
        team = atomic_load(state, TEAM_SIZE)
        if team > 0:
            return me, team
        joined = atomic_load(state, TEAM_JOINED)
        if joined >= workers or polls >= spins + JOIN_YIELDS:
            compare_and_swap(state, TEAM_SIZE, 0, min(joined, workers))
            continue
        polls += 1
        if polls < spins:
            spin_pause()
        else:
            yield_cpu()


@njit(cache=True)
def barrier(state, workers, spins):
    """Wait until all ``workers`` threads of a team (see :func:`join_team`) arrive.

    Sense by generation. A waiter polls ``spins`` times with the pause hint,
    then yields its core on every poll: on a machine with more runnable
    threads than cores, spinning would only delay the thread it waits for.
    """
    if workers == 1:
        return
    generation = atomic_load(state, BARRIER_GENERATION)
    if fetch_add_ordered(state, BARRIER_COUNT, 1) == workers - 1:
        atomic_store(state, BARRIER_COUNT, 0)
        fetch_add_ordered(state, BARRIER_GENERATION, 1)
        return
    polls = 0
    while atomic_load(state, BARRIER_GENERATION) == generation:
        polls += 1
        if polls < spins:
            spin_pause()
        else:
            yield_cpu()

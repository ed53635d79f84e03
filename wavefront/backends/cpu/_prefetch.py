"""A software prefetch readable inside numba kernels.

A road search's relax loop is a chain of dependent cache misses per vertex
(the vertex's distance word and CSR row offsets, then its arcs, then the
heads' words), each a trip to L2 or L3: the queue being relaxed is known
ahead, and asking for the next vertices' lines early overlaps those trips
(docs/decisions/cpu-roads.md has the measurement). numba has no prefetch;
this is LLVM's ``llvm.prefetch`` (``prefetcht0`` on x86, ``prfm`` on
AArch64, nothing where the target has none). A prefetch never faults, so
the index needs no bounds check, but the kernels only pass valid ones.
"""
from __future__ import annotations

from llvmlite import binding, ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

_READ, _KEEP_IN_ALL_LEVELS, _DATA_CACHE = 0, 3, 1
# The intrinsic's name carries its pointer type: opaque ``ptr`` from LLVM 15
# on (recent llvmlite), ``i8*`` before.
_NAME = "llvm.prefetch.p0" if binding.llvm_version_info >= (15,) else "llvm.prefetch.p0i8"


@intrinsic
def prefetch(typingctx, array, index):
    """Ask the cache for the line holding ``array[index]`` (a read, kept in every level)."""
    if not isinstance(array, types.Array) or not isinstance(index, types.Integer):
        return None
    sig = types.void(array, types.intp)

    def codegen(context, builder, signature, args):
        array_type = signature.args[0]
        view = context.make_array(array_type)(context, builder, args[0])
        pointer = cgutils.get_item_pointer(context, builder, array_type, view, [args[1]])
        byte_pointer = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [byte_pointer, i32, i32, i32])
        function = cgutils.get_or_insert_function(builder.module, fnty, _NAME)
        builder.call(function, [builder.bitcast(pointer, byte_pointer), ir.Constant(i32, _READ),
                                ir.Constant(i32, _KEEP_IN_ALL_LEVELS), ir.Constant(i32, _DATA_CACHE)])
        return context.get_dummy_value()

    return sig, codegen

"""Borrowed arrays: views of an array without its reference count, for the compiled loops.

numba counts the references to every array it passes to a function that is not inlined: an
atomic increment before the call and a decrement after, for each array argument (and for each
row view ``X[i]``).  A round of the primal engine calls a handful of such functions (the
vectorized sums, which must stay separate functions to keep their fast-math flags; the rule
dispatch) with a dozen arrays in all, and those atomic operations were two thirds of the cost
of a round beyond its arithmetic (290 → 110 ns a round on 8 features; 1.31 → 1.21 of the bare
loop on the MNIST-sized benchmark, pa, float32 weights).

:func:`borrowed` returns the same array (data, shape, strides) with no meminfo: numba skips the
counting of an array that has none (as for :func:`numba.carray` views).  A borrowed view is
valid only while its owner lives, so it is made at the top of a compiled entry point from the
entry point's own arguments (which its caller holds) and never returned or stored.

:func:`read_only` is the other view the loops need: the same array typed read-only (an ordinary,
counted view), so that the rows reach every loop with one type whatever their ``writeable``
flag, and each loop is compiled once for them.
"""
from numba import types
from numba.core import cgutils
from numba.core.imputils import impl_ret_borrowed
from numba.extending import intrinsic
from numba.np.arrayobj import populate_array


@intrinsic
def borrowed(typingctx, array):
    """``array`` as a view without a meminfo (no reference counting; see the module)."""
    if not isinstance(array, types.Array):
        return None

    def codegen(context, builder, signature, args):
        source = context.make_array(array)(context, builder, value=args[0])
        view = context.make_array(array)(context, builder)
        populate_array(view, data=source.data, shape=source.shape, strides=source.strides,
                       itemsize=source.itemsize, meminfo=None)
        return view._getvalue()

    return array(array), codegen


@intrinsic
def read_only(typingctx, array):
    """``array`` typed read-only: a view of it (counted as any view: it keeps its owner alive).

    numba compiles a function apart for a read-only array argument (a read-only memmap, a
    view whose ``writeable`` flag is off) and a writable one, though the code is the same.  The
    rows a loop reads are therefore always passed read-only — from Python, as read-only views
    (:func:`.rows.read_only_rows`, :func:`.rows.csr_arrays`), and from compiled code through
    this view — so that each loop is compiled once for them whatever their flags."""
    if not isinstance(array, types.Array):
        return None
    result = array.copy(readonly=True)

    def codegen(context, builder, signature, args):
        source = context.make_array(array)(context, builder, value=args[0])
        view = context.make_array(result)(context, builder)
        populate_array(view, data=source.data, shape=source.shape, strides=source.strides,
                       itemsize=source.itemsize, meminfo=source.meminfo)
        return impl_ret_borrowed(context, builder, result, view._getvalue())

    return result(array), codegen


@intrinsic
def pointer_at(typingctx, address):
    """The integer ``address`` (``ndarray.ctypes.data``) as a ``void*``, for
    :func:`numba.carray`: an array handed to a compiled function by its address and shape (a
    few integers in one table, see :func:`.primal.model_table`) rather than as an argument of
    its own, which numba unboxes at each call (about 80 ns an array).  The caller keeps the
    array alive while the address is in use."""
    if not isinstance(address, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], cgutils.voidptr_t)

    return types.voidptr(address), codegen

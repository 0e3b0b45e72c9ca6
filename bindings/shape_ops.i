/* bindings/shape_ops.i — Factories and shape ops: linspace, eye, tril/triu, flip, roll, repeat, tile.
 * Over include/tessera/shape_ops.h. Included at the end of tessera.i, so
 * tessera.i's conventions hold (error bracket, TSR_RETURN_TENSOR, array
 * typemaps). */

/* bindings/linalg.i — Batched and general products: bmm, baddbmm, outer, einsum (torch's equation grammar).
 * Over include/tessera/linalg.h. Included at the end of tessera.i, so
 * tessera.i's conventions hold (error bracket, TSR_RETURN_TENSOR, array
 * typemaps). */

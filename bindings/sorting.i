/* bindings/sorting.i — Sorting and selection: sort, argsort, topk, kthvalue.
 * Over include/tessera/sorting.h. Included at the end of tessera.i, so
 * tessera.i's conventions hold (error bracket, TSR_RETURN_TENSOR, array
 * typemaps). */

/* bindings/indexing.i — Indexing by tensors and masks: masked_fill, masked_select, nonzero, scatter family, index_put_, index_add_, index_copy_, take_along_dim.
 * Over include/tessera/indexing.h. Included at the end of tessera.i, so
 * tessera.i's conventions hold (error bracket, TSR_RETURN_TENSOR, array
 * typemaps). */

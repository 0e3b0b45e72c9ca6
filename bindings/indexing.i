/* bindings/indexing.i — Indexing by tensors and masks: masked_fill, masked_select, nonzero, scatter family, index_put_, index_add_, index_copy_, take_along_dim.
 * Over include/tessera/indexing.h. Included at the end of tessera.i, so
 * tessera.i's conventions hold (error bracket, TSR_RETURN_TENSOR, array
 * typemaps). */

%{
/* Index lists travel as a TensorList whose empty slots (append_none) are
 * full slices; scatter_reduce's reduce is a tsr_scatter_reduction value
 * (the Python layer maps torch's strings onto it), checked by the C API. */
#define BIND_INDICES(l) ((l) ? (l)->size : 0), ((l) ? (const tsr_tensor* const*)(l)->items : NULL)
static TsrTensor* bind_index(TsrTensor* self, TsrTensorList* indices) {
  TSR_RETURN_TENSOR(tsr_index(self, BIND_INDICES(indices), &out));
}
static TsrTensor* bind_index_put(TsrTensor* self, TsrTensorList* indices, TsrTensor* values, bool accumulate) {
  TSR_RETURN_TENSOR(tsr_index_put(self, BIND_INDICES(indices), values, accumulate, &out));
}
static void bind_index_put_(TsrTensor* self, TsrTensorList* indices, TsrTensor* values, bool accumulate) {
  tsr_index_put_(self, BIND_INDICES(indices), values, accumulate);
}
static TsrTensor* bind_nonzero(TsrTensor* x) { TSR_RETURN_TENSOR(tsr_nonzero(x, &out)); }
static TsrTensor* bind_masked_fill(TsrTensor* self, TsrTensor* mask, double value) {
  TSR_RETURN_TENSOR(tsr_masked_fill(self, mask, value, &out));
}
static void bind_masked_fill_(TsrTensor* self, TsrTensor* mask, double value) {
  tsr_masked_fill_(self, mask, value);
}
static TsrTensor* bind_masked_fill_tensor(TsrTensor* self, TsrTensor* mask, TsrTensor* value) {
  TSR_RETURN_TENSOR(tsr_masked_fill_tensor(self, mask, value, &out));
}
static void bind_masked_fill_tensor_(TsrTensor* self, TsrTensor* mask, TsrTensor* value) {
  tsr_masked_fill_tensor_(self, mask, value);
}
static TsrTensor* bind_masked_select(TsrTensor* x, TsrTensor* mask) {
  TSR_RETURN_TENSOR(tsr_masked_select(x, mask, &out));
}
static TsrTensor* bind_scatter(TsrTensor* self, int64_t dim, TsrTensor* index, TsrTensor* src) {
  TSR_RETURN_TENSOR(tsr_scatter(self, dim, index, src, &out));
}
static void bind_scatter_(TsrTensor* self, int64_t dim, TsrTensor* index, TsrTensor* src) {
  tsr_scatter_(self, dim, index, src);
}
static TsrTensor* bind_scatter_value(TsrTensor* self, int64_t dim, TsrTensor* index, double value) {
  TSR_RETURN_TENSOR(tsr_scatter_value(self, dim, index, value, &out));
}
static void bind_scatter_value_(TsrTensor* self, int64_t dim, TsrTensor* index, double value) {
  tsr_scatter_value_(self, dim, index, value);
}
static TsrTensor* bind_scatter_add(TsrTensor* self, int64_t dim, TsrTensor* index, TsrTensor* src) {
  TSR_RETURN_TENSOR(tsr_scatter_add(self, dim, index, src, &out));
}
static void bind_scatter_add_(TsrTensor* self, int64_t dim, TsrTensor* index, TsrTensor* src) {
  tsr_scatter_add_(self, dim, index, src);
}
static TsrTensor* bind_scatter_reduce(TsrTensor* self, int64_t dim, TsrTensor* index, TsrTensor* src, int reduce,
                                      bool include_self) {
  TSR_RETURN_TENSOR(tsr_scatter_reduce(self, dim, index, src, (tsr_scatter_reduction)reduce, include_self, &out));
}
static void bind_scatter_reduce_(TsrTensor* self, int64_t dim, TsrTensor* index, TsrTensor* src, int reduce,
                                 bool include_self) {
  tsr_scatter_reduce_(self, dim, index, src, (tsr_scatter_reduction)reduce, include_self);
}
static TsrTensor* bind_index_add(TsrTensor* self, int64_t dim, TsrTensor* index, TsrTensor* source, double alpha) {
  TSR_RETURN_TENSOR(tsr_index_add(self, dim, index, source, alpha, &out));
}
static void bind_index_add_(TsrTensor* self, int64_t dim, TsrTensor* index, TsrTensor* source, double alpha) {
  tsr_index_add_(self, dim, index, source, alpha);
}
static TsrTensor* bind_index_copy(TsrTensor* self, int64_t dim, TsrTensor* index, TsrTensor* source) {
  TSR_RETURN_TENSOR(tsr_index_copy(self, dim, index, source, &out));
}
static void bind_index_copy_(TsrTensor* self, int64_t dim, TsrTensor* index, TsrTensor* source) {
  tsr_index_copy_(self, dim, index, source);
}
static TsrTensor* bind_index_fill(TsrTensor* self, int64_t dim, TsrTensor* index, double value) {
  TSR_RETURN_TENSOR(tsr_index_fill(self, dim, index, value, &out));
}
static void bind_index_fill_(TsrTensor* self, int64_t dim, TsrTensor* index, double value) {
  tsr_index_fill_(self, dim, index, value);
}
/* dim_given false: both flattened (torch's dim=None). */
static TsrTensor* bind_take_along_dim(TsrTensor* x, TsrTensor* indices, int64_t dim, bool dim_given) {
  TSR_RETURN_TENSOR(tsr_take_along_dim(x, indices, dim_given ? &dim : NULL, &out));
}
%}

%define BIND_INDEXING_TENSOR(name, args)
%newobject bind_##name;
%rename(name) bind_##name;
TsrTensor* bind_##name args;
%enddef
%define BIND_INDEXING_VOID(name, args)
%rename(name) bind_##name;
void bind_##name args;
%enddef

BIND_INDEXING_TENSOR(index, (TsrTensor* self, TsrTensorList* indices))
BIND_INDEXING_TENSOR(index_put, (TsrTensor* self, TsrTensorList* indices, TsrTensor* values, bool accumulate))
BIND_INDEXING_VOID(index_put_, (TsrTensor* self, TsrTensorList* indices, TsrTensor* values, bool accumulate))
BIND_INDEXING_TENSOR(nonzero, (TsrTensor* x))
BIND_INDEXING_TENSOR(masked_fill, (TsrTensor* self, TsrTensor* mask, double value))
BIND_INDEXING_VOID(masked_fill_, (TsrTensor* self, TsrTensor* mask, double value))
BIND_INDEXING_TENSOR(masked_fill_tensor, (TsrTensor* self, TsrTensor* mask, TsrTensor* value))
BIND_INDEXING_VOID(masked_fill_tensor_, (TsrTensor* self, TsrTensor* mask, TsrTensor* value))
BIND_INDEXING_TENSOR(masked_select, (TsrTensor* x, TsrTensor* mask))
BIND_INDEXING_TENSOR(scatter, (TsrTensor* self, int64_t dim, TsrTensor* index, TsrTensor* src))
BIND_INDEXING_VOID(scatter_, (TsrTensor* self, int64_t dim, TsrTensor* index, TsrTensor* src))
BIND_INDEXING_TENSOR(scatter_value, (TsrTensor* self, int64_t dim, TsrTensor* index, double value))
BIND_INDEXING_VOID(scatter_value_, (TsrTensor* self, int64_t dim, TsrTensor* index, double value))
BIND_INDEXING_TENSOR(scatter_add, (TsrTensor* self, int64_t dim, TsrTensor* index, TsrTensor* src))
BIND_INDEXING_VOID(scatter_add_, (TsrTensor* self, int64_t dim, TsrTensor* index, TsrTensor* src))
BIND_INDEXING_TENSOR(scatter_reduce, (TsrTensor* self, int64_t dim, TsrTensor* index, TsrTensor* src, int reduce, bool include_self))
BIND_INDEXING_VOID(scatter_reduce_, (TsrTensor* self, int64_t dim, TsrTensor* index, TsrTensor* src, int reduce, bool include_self))
BIND_INDEXING_TENSOR(index_add, (TsrTensor* self, int64_t dim, TsrTensor* index, TsrTensor* source, double alpha))
BIND_INDEXING_VOID(index_add_, (TsrTensor* self, int64_t dim, TsrTensor* index, TsrTensor* source, double alpha))
BIND_INDEXING_TENSOR(index_copy, (TsrTensor* self, int64_t dim, TsrTensor* index, TsrTensor* source))
BIND_INDEXING_VOID(index_copy_, (TsrTensor* self, int64_t dim, TsrTensor* index, TsrTensor* source))
BIND_INDEXING_TENSOR(index_fill, (TsrTensor* self, int64_t dim, TsrTensor* index, double value))
BIND_INDEXING_VOID(index_fill_, (TsrTensor* self, int64_t dim, TsrTensor* index, double value))
BIND_INDEXING_TENSOR(take_along_dim, (TsrTensor* x, TsrTensor* indices, int64_t dim, bool dim_given))

/* The reductions of tsr_scatter_reduce, as each language's enum (SWIG sees
 * the declaration here; the values are the header's, an ABI promise). */
%rename(ScatterReduction) tsr_scatter_reduction;
typedef enum tsr_scatter_reduction {
  TSR_SCATTER_SUM = 0,
  TSR_SCATTER_PROD = 1,
  TSR_SCATTER_MEAN = 2,
  TSR_SCATTER_AMAX = 3,
  TSR_SCATTER_AMIN = 4
} tsr_scatter_reduction;

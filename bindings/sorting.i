/* bindings/sorting.i — Sorting and selection: sort, argsort, topk, kthvalue.
 * Over include/tessera/sorting.h. Included at the end of tessera.i, so
 * tessera.i's conventions hold (error bracket, TSR_RETURN_TENSOR, array
 * typemaps). */

%{
/* Two-result ops return a TensorList (values, indices); the languages
 * unpack it (Python: a torch.return_types-like named tuple). */
static TsrTensorList* bind_sorting_pair(tsr_status status, TsrTensor* values, TsrTensor* indices) {
  if (status != TSR_OK) return NULL;
  TsrTensorList* l = tsr_bind_list_new();
  if (!l) {
    tsr_bind_fail(TSR_ERR_OUT_OF_MEMORY, "out of memory listing (values, indices)");
    tsr_tensor_release(values);
    tsr_tensor_release(indices);
    return NULL;
  }
  /* push takes the reference, also when it fails (as bind_min_dim) */
  if (tsr_bind_list_push(l, values, "values") != 0) {
    tsr_tensor_release(indices);
    tsr_bind_list_free(l);
    return NULL;
  }
  if (tsr_bind_list_push(l, indices, "indices") != 0) {
    tsr_bind_list_free(l);
    return NULL;
  }
  return l;
}
static TsrTensorList* bind_sort(TsrTensor* x, int64_t dim, bool descending, bool stable) {
  TsrTensor *values = NULL, *indices = NULL;
  const tsr_status status = tsr_sort(x, dim, descending, stable, &values, &indices); /* before values and indices are read */
  return bind_sorting_pair(status, values, indices);
}
static TsrTensor* bind_argsort(TsrTensor* x, int64_t dim, bool descending) {
  TSR_RETURN_TENSOR(tsr_argsort(x, dim, descending, &out));
}
static TsrTensorList* bind_topk(TsrTensor* x, int64_t k, int64_t dim, bool largest) {
  TsrTensor *values = NULL, *indices = NULL;
  const tsr_status status = tsr_topk(x, k, dim, largest, &values, &indices); /* before values and indices are read */
  return bind_sorting_pair(status, values, indices);
}
static TsrTensorList* bind_kthvalue(TsrTensor* x, int64_t k, int64_t dim, bool keepdim) {
  TsrTensor *values = NULL, *indices = NULL;
  const tsr_status status = tsr_kthvalue(x, k, dim, keepdim, &values, &indices); /* before values and indices are read */
  return bind_sorting_pair(status, values, indices);
}
%}

%newobject bind_sort;
%rename(sort) bind_sort;
TsrTensorList* bind_sort(TsrTensor* x, int64_t dim, bool descending, bool stable);
%newobject bind_argsort;
%rename(argsort) bind_argsort;
TsrTensor* bind_argsort(TsrTensor* x, int64_t dim, bool descending);
%newobject bind_topk;
%rename(topk) bind_topk;
TsrTensorList* bind_topk(TsrTensor* x, int64_t k, int64_t dim, bool largest);
%newobject bind_kthvalue;
%rename(kthvalue) bind_kthvalue;
TsrTensorList* bind_kthvalue(TsrTensor* x, int64_t k, int64_t dim, bool keepdim);

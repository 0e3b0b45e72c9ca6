/* bindings/reductions.i — Scans and statistics: cumsum, cumprod, prod, var/std/var_mean, logsumexp, norm, any/all, min/argmin, minimum/maximum.
 * Over include/tessera/reductions.h. Included at the end of tessera.i, so
 * tessera.i's conventions hold (error bracket, TSR_RETURN_TENSOR, array
 * typemaps). */

%{
/* Scans and products; dtype is a tsr_dtype value, or -1 for torch's
 * default (the Python layer maps dtype=None onto it). */
static const tsr_dtype* bind_dtype_opt(int dtype, tsr_dtype* slot) {
  if (dtype < 0) return NULL;
  *slot = (tsr_dtype)dtype;
  return slot;
}
static TsrTensor* bind_cumsum(TsrTensor* a, int64_t dim, int dtype) {
  tsr_dtype d;
  TSR_RETURN_TENSOR(tsr_cumsum(a, dim, bind_dtype_opt(dtype, &d), &out));
}
static TsrTensor* bind_cumprod(TsrTensor* a, int64_t dim, int dtype) {
  tsr_dtype d;
  TSR_RETURN_TENSOR(tsr_cumprod(a, dim, bind_dtype_opt(dtype, &d), &out));
}
static TsrTensor* bind_prod(TsrTensor* a, int dtype) {
  tsr_dtype d;
  TSR_RETURN_TENSOR(tsr_prod(a, bind_dtype_opt(dtype, &d), &out));
}
static TsrTensor* bind_prod_dim(TsrTensor* a, int64_t dim, bool keepdim, int dtype) {
  tsr_dtype d;
  TSR_RETURN_TENSOR(tsr_prod_dim(a, dim, keepdim, bind_dtype_opt(dtype, &d), &out));
}
%}

%newobject bind_cumsum;
%rename(cumsum) bind_cumsum;
TsrTensor* bind_cumsum(TsrTensor* a, int64_t dim, int dtype);
%newobject bind_cumprod;
%rename(cumprod) bind_cumprod;
TsrTensor* bind_cumprod(TsrTensor* a, int64_t dim, int dtype);
%newobject bind_prod;
%rename(prod) bind_prod;
TsrTensor* bind_prod(TsrTensor* a, int dtype);
%newobject bind_prod_dim;
%rename(prod_dim) bind_prod_dim;
TsrTensor* bind_prod_dim(TsrTensor* a, int64_t dim, bool keepdim, int dtype);

%{
/* var / std over dims (none: all) with an integer correction. */
static TsrTensor* bind_var(TsrTensor* a, const tsr_i64* dims, int64_t ndims, int64_t correction, bool keepdim) {
  TSR_RETURN_TENSOR(tsr_var(a, ndims, dims, correction, keepdim, &out));
}
static TsrTensor* bind_std(TsrTensor* a, const tsr_i64* dims, int64_t ndims, int64_t correction, bool keepdim) {
  TSR_RETURN_TENSOR(tsr_std(a, ndims, dims, correction, keepdim, &out));
}
/* var_mean / std_mean: a two-tensor list [var or std, mean]. */
static TsrTensorList* bind_var_mean_pair(TsrTensor* a, const tsr_i64* dims, int64_t ndims, int64_t correction,
                                         bool keepdim, bool take_sqrt) {
  tsr_tensor *first = NULL, *mean = NULL;
  tsr_status st = take_sqrt ? tsr_std_mean(a, ndims, dims, correction, keepdim, &first, &mean)
                            : tsr_var_mean(a, ndims, dims, correction, keepdim, &first, &mean);
  if (st != TSR_OK) return NULL;
  TsrTensorList* l = tsr_bind_list_new();
  if (!l) {
    tsr_bind_fail(TSR_ERR_OUT_OF_MEMORY, "out of memory listing var_mean results");
    tsr_tensor_release(first);
    tsr_tensor_release(mean);
    return NULL;
  }
  if (tsr_bind_list_push(l, first, take_sqrt ? "std" : "var") != 0) {
    tsr_tensor_release(mean);
    tsr_bind_list_free(l);
    return NULL;
  }
  if (tsr_bind_list_push(l, mean, "mean") != 0) {
    tsr_bind_list_free(l);
    return NULL;
  }
  return l;
}
%}

/* var is a Go keyword and std a C++ namespace (Java and C# are generated as
 * C++, where SWIG drops a function named std): those languages get var_dims /
 * std_dims, which their hand-written layers wrap. */
#if defined(SWIGPYTHON)
%rename(var) bind_var;
%rename(std) bind_std;
#else
%rename(var_dims) bind_var;
%rename(std_dims) bind_std;
#endif
%newobject bind_var;
TsrTensor* bind_var(TsrTensor* a, const tsr_i64* dims, int64_t ndims, int64_t correction, bool keepdim);
%newobject bind_std;
TsrTensor* bind_std(TsrTensor* a, const tsr_i64* dims, int64_t ndims, int64_t correction, bool keepdim);
%newobject bind_var_mean_pair;
%rename(var_mean_pair) bind_var_mean_pair;
TsrTensorList* bind_var_mean_pair(TsrTensor* a, const tsr_i64* dims, int64_t ndims, int64_t correction, bool keepdim,
                                  bool take_sqrt);

%{
static TsrTensor* bind_logsumexp(TsrTensor* a, const tsr_i64* dims, int64_t ndims, bool keepdim) {
  TSR_RETURN_TENSOR(tsr_logsumexp(a, ndims, dims, keepdim, &out));
}
%}
%newobject bind_logsumexp;
%rename(logsumexp) bind_logsumexp;
TsrTensor* bind_logsumexp(TsrTensor* a, const tsr_i64* dims, int64_t ndims, bool keepdim);

%{
/* any / all: over everything when all_dims, else along dim. */
static TsrTensor* bind_any_all(TsrTensor* a, bool all_dims, int64_t dim, bool keepdim, bool is_all) {
  if (all_dims) {
    if (is_all) { TSR_RETURN_TENSOR(tsr_all(a, &out)); }
    TSR_RETURN_TENSOR(tsr_any(a, &out));
  }
  if (is_all) { TSR_RETURN_TENSOR(tsr_all_dim(a, dim, keepdim, &out)); }
  TSR_RETURN_TENSOR(tsr_any_dim(a, dim, keepdim, &out));
}
%}
%newobject bind_any_all;
%rename(any_all) bind_any_all;
TsrTensor* bind_any_all(TsrTensor* a, bool all_dims, int64_t dim, bool keepdim, bool is_all);

%{
static TsrTensor* bind_min(TsrTensor* a) { TSR_RETURN_TENSOR(tsr_min(a, &out)); }
static TsrTensor* bind_argmin(TsrTensor* a, int64_t dim, bool keepdim) {
  TSR_RETURN_TENSOR(tsr_argmin(a, dim, keepdim, &out));
}
/* min(dim): a two-tensor list [values, indices]. */
static TsrTensorList* bind_min_dim(TsrTensor* a, int64_t dim, bool keepdim) {
  tsr_tensor *values = NULL, *indices = NULL;
  if (tsr_min_dim(a, dim, keepdim, &values, &indices) != TSR_OK) return NULL;
  TsrTensorList* l = tsr_bind_list_new();
  if (!l) {
    tsr_bind_fail(TSR_ERR_OUT_OF_MEMORY, "out of memory listing min results");
    tsr_tensor_release(values);
    tsr_tensor_release(indices);
    return NULL;
  }
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
%}
%newobject bind_min;
%rename(min) bind_min;
TsrTensor* bind_min(TsrTensor* a);
%newobject bind_argmin;
%rename(argmin) bind_argmin;
TsrTensor* bind_argmin(TsrTensor* a, int64_t dim, bool keepdim);
%newobject bind_min_dim;
%rename(min_dim) bind_min_dim;
TsrTensorList* bind_min_dim(TsrTensor* a, int64_t dim, bool keepdim);

%{
/* Extrema and norms; dims travel as an int64 array (empty: all dims). */
static TsrTensor* bind_maximum(TsrTensor* a, TsrTensor* b) { TSR_RETURN_TENSOR(tsr_maximum(a, b, &out)); }
static TsrTensor* bind_minimum(TsrTensor* a, TsrTensor* b) { TSR_RETURN_TENSOR(tsr_minimum(a, b, &out)); }
static TsrTensor* bind_amax(TsrTensor* a, const tsr_i64* array, int64_t length, bool keepdim) {
  TSR_RETURN_TENSOR(tsr_amax(a, length, (const int64_t*)array, keepdim, &out));
}
static TsrTensor* bind_amin(TsrTensor* a, const tsr_i64* array, int64_t length, bool keepdim) {
  TSR_RETURN_TENSOR(tsr_amin(a, length, (const int64_t*)array, keepdim, &out));
}
static TsrTensor* bind_norm(TsrTensor* a, double p, const tsr_i64* array, int64_t length, bool keepdim) {
  TSR_RETURN_TENSOR(tsr_norm(a, p, length, (const int64_t*)array, keepdim, &out));
}
static TsrTensor* bind_linalg_vector_norm(TsrTensor* a, double ord, const tsr_i64* array, int64_t length,
                                          bool keepdim) {
  TSR_RETURN_TENSOR(tsr_linalg_vector_norm(a, ord, length, (const int64_t*)array, keepdim, &out));
}
%}

%newobject bind_maximum;
%rename(maximum) bind_maximum;
TsrTensor* bind_maximum(TsrTensor* a, TsrTensor* b);
%newobject bind_minimum;
%rename(minimum) bind_minimum;
TsrTensor* bind_minimum(TsrTensor* a, TsrTensor* b);
%newobject bind_amax;
%rename(amax) bind_amax;
TsrTensor* bind_amax(TsrTensor* a, const tsr_i64* array, int64_t length, bool keepdim);
%newobject bind_amin;
%rename(amin) bind_amin;
TsrTensor* bind_amin(TsrTensor* a, const tsr_i64* array, int64_t length, bool keepdim);
%newobject bind_norm;
%rename(norm) bind_norm;
TsrTensor* bind_norm(TsrTensor* a, double p, const tsr_i64* array, int64_t length, bool keepdim);
%newobject bind_linalg_vector_norm;
%rename(linalg_vector_norm) bind_linalg_vector_norm;
TsrTensor* bind_linalg_vector_norm(TsrTensor* a, double ord, const tsr_i64* array, int64_t length, bool keepdim);

/* bindings/shape_ops.i — Factories and shape ops: linspace, eye, tril/triu, flip, roll, repeat, tile.
 * Over include/tessera/shape_ops.h. Included at the end of tessera.i, so
 * tessera.i's conventions hold (error bracket, TSR_RETURN_TENSOR, array
 * typemaps). */

%{
/* Int lists travel as (const tsr_i64* array, int64_t length) pairs (the
 * tessera.i typemaps); roll's dims may be empty (length 0). */
static TsrTensor* bind_linspace(double start, double end, int64_t steps, int dtype) {
  TSR_RETURN_TENSOR(tsr_linspace(start, end, steps, (tsr_dtype)dtype, &out));
}
static TsrTensor* bind_eye(int64_t n, int64_t m, int dtype) { TSR_RETURN_TENSOR(tsr_eye(n, m, (tsr_dtype)dtype, &out)); }
static TsrTensor* bind_tril(TsrTensor* x, int64_t diagonal) { TSR_RETURN_TENSOR(tsr_tril(x, diagonal, &out)); }
static TsrTensor* bind_triu(TsrTensor* x, int64_t diagonal) { TSR_RETURN_TENSOR(tsr_triu(x, diagonal, &out)); }
static void bind_tril_(TsrTensor* x, int64_t diagonal) { tsr_tril_(x, diagonal); }
static void bind_triu_(TsrTensor* x, int64_t diagonal) { tsr_triu_(x, diagonal); }
static TsrTensor* bind_flip(TsrTensor* x, const tsr_i64* array, int64_t length) {
  TSR_RETURN_TENSOR(tsr_flip(x, length, (const int64_t*)array, &out));
}
static TsrTensor* bind_roll(TsrTensor* x, const tsr_i64* shifts, int64_t n_shifts, const tsr_i64* dims, int64_t n_dims) {
  TSR_RETURN_TENSOR(tsr_roll(x, n_shifts, (const int64_t*)shifts, n_dims, (const int64_t*)dims, &out));
}
static TsrTensor* bind_repeat(TsrTensor* x, const tsr_i64* array, int64_t length) {
  TSR_RETURN_TENSOR(tsr_repeat(x, length, (const int64_t*)array, &out));
}
static TsrTensor* bind_tile(TsrTensor* x, const tsr_i64* array, int64_t length) {
  TSR_RETURN_TENSOR(tsr_tile(x, length, (const int64_t*)array, &out));
}
static TsrTensor* bind_einsum(const char* equation, TsrTensorList* operands) {
  if (!operands) {
    tsr_bind_fail(TSR_ERR_INVALID_ARGUMENT, "einsum: the TensorList is NULL or closed");
    return NULL;
  }
  TSR_RETURN_TENSOR(tsr_einsum(equation, operands->size, (const tsr_tensor* const*)operands->items, &out));
}
%}

%apply (const tsr_i64* array, int64_t length) { (const tsr_i64* shifts, int64_t n_shifts) };
%apply (const tsr_i64* array, int64_t length) { (const tsr_i64* dims, int64_t n_dims) };

%newobject bind_linspace;
%rename(linspace) bind_linspace;
TsrTensor* bind_linspace(double start, double end, int64_t steps, int dtype);
%newobject bind_eye;
%rename(eye) bind_eye;
TsrTensor* bind_eye(int64_t n, int64_t m, int dtype);
%newobject bind_tril;
%rename(tril) bind_tril;
TsrTensor* bind_tril(TsrTensor* x, int64_t diagonal);
%newobject bind_triu;
%rename(triu) bind_triu;
TsrTensor* bind_triu(TsrTensor* x, int64_t diagonal);
%rename(tril_) bind_tril_;
void bind_tril_(TsrTensor* x, int64_t diagonal);
%rename(triu_) bind_triu_;
void bind_triu_(TsrTensor* x, int64_t diagonal);
%newobject bind_flip;
%rename(flip) bind_flip;
TsrTensor* bind_flip(TsrTensor* x, const tsr_i64* array, int64_t length);
%newobject bind_roll;
%rename(roll) bind_roll;
TsrTensor* bind_roll(TsrTensor* x, const tsr_i64* shifts, int64_t n_shifts, const tsr_i64* dims, int64_t n_dims);
%newobject bind_repeat;
%rename(repeat) bind_repeat;
TsrTensor* bind_repeat(TsrTensor* x, const tsr_i64* array, int64_t length);
%newobject bind_tile;
%rename(tile) bind_tile;
TsrTensor* bind_tile(TsrTensor* x, const tsr_i64* array, int64_t length);
%newobject bind_einsum;
%rename(einsum) bind_einsum;
TsrTensor* bind_einsum(const char* equation, TsrTensorList* operands);

/* The Java forms of issue 33's indexing, sorting, extrema and shape ops
 * (C# and Go write theirs in hand-written files). */
#if defined(SWIGJAVA)
%include "java/java_indexing_ops.i"
#endif

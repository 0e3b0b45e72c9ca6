/* bindings/linalg.i — Batched matrix products and the outer product: bmm, baddbmm, outer.
 * Over include/tessera/linalg.h. Included at the end of tessera.i, so
 * tessera.i's conventions hold (error bracket, TSR_RETURN_TENSOR, array
 * typemaps). */

%{
/* linalg.h's functions, as _core.linalg_<name>. */
static TsrTensor* linalg_bmm(TsrTensor* a, TsrTensor* b) { TSR_RETURN_TENSOR(tsr_bmm(a, b, &out)); }
static TsrTensor* linalg_baddbmm(TsrTensor* input, TsrTensor* a, TsrTensor* b, double beta, double alpha) {
  TSR_RETURN_TENSOR(tsr_baddbmm(input, a, b, beta, alpha, &out));
}
static TsrTensor* linalg_outer(TsrTensor* a, TsrTensor* b) { TSR_RETURN_TENSOR(tsr_outer(a, b, &out)); }
%}
%newobject linalg_bmm;
TsrTensor* linalg_bmm(TsrTensor* a, TsrTensor* b);
%newobject linalg_baddbmm;
TsrTensor* linalg_baddbmm(TsrTensor* input, TsrTensor* a, TsrTensor* b, double beta, double alpha);
%newobject linalg_outer;
TsrTensor* linalg_outer(TsrTensor* a, TsrTensor* b);

/* Tensor methods (the SWIG-builtin type only takes attributes it has). */
%newobject TsrTensor::bmm;
%newobject TsrTensor::outer;
%newobject TsrTensor::baddbmm;
%extend TsrTensor {
  TsrTensor* bmm(TsrTensor* mat2) { TSR_RETURN_TENSOR(tsr_bmm($self, mat2, &out)); }
  /* beta and alpha positional only here (tessera.baddbmm takes keywords). */
  TsrTensor* baddbmm(TsrTensor* batch1, TsrTensor* batch2, double beta = 1.0, double alpha = 1.0) {
    TSR_RETURN_TENSOR(tsr_baddbmm($self, batch1, batch2, beta, alpha, &out));
  }
  TsrTensor* outer(TsrTensor* vec2) { TSR_RETURN_TENSOR(tsr_outer($self, vec2, &out)); }
}

/* bindings/pointwise.i — Elementwise math and activations beyond ops.h: silu, leaky_relu, elu, softplus, hardtanh, sin, cos, rsqrt, reciprocal, floor, ceil, round, trunc, sign, clamp with tensor bounds.
 * Over include/tessera/pointwise.h. Included at the end of tessera.i, so
 * tessera.i's conventions hold (error bracket, TSR_RETURN_TENSOR, array
 * typemaps). */

%{
/* pointwise.h's functions, as _core.pointwise_<name>. */
static TsrTensor* pointwise_silu(TsrTensor* x) { TSR_RETURN_TENSOR(tsr_silu(x, &out)); }
static TsrTensor* pointwise_sin(TsrTensor* x) { TSR_RETURN_TENSOR(tsr_sin(x, &out)); }
static TsrTensor* pointwise_cos(TsrTensor* x) { TSR_RETURN_TENSOR(tsr_cos(x, &out)); }
static TsrTensor* pointwise_rsqrt(TsrTensor* x) { TSR_RETURN_TENSOR(tsr_rsqrt(x, &out)); }
static TsrTensor* pointwise_reciprocal(TsrTensor* x) { TSR_RETURN_TENSOR(tsr_reciprocal(x, &out)); }
static TsrTensor* pointwise_floor(TsrTensor* x) { TSR_RETURN_TENSOR(tsr_floor(x, &out)); }
static TsrTensor* pointwise_ceil(TsrTensor* x) { TSR_RETURN_TENSOR(tsr_ceil(x, &out)); }
static TsrTensor* pointwise_round(TsrTensor* x) { TSR_RETURN_TENSOR(tsr_round(x, &out)); }
static TsrTensor* pointwise_trunc(TsrTensor* x) { TSR_RETURN_TENSOR(tsr_trunc(x, &out)); }
static TsrTensor* pointwise_sign(TsrTensor* x) { TSR_RETURN_TENSOR(tsr_sign(x, &out)); }
static TsrTensor* pointwise_leaky_relu(TsrTensor* x, double negative_slope) { TSR_RETURN_TENSOR(tsr_leaky_relu(x, negative_slope, &out)); }
static TsrTensor* pointwise_elu(TsrTensor* x, double alpha) { TSR_RETURN_TENSOR(tsr_elu(x, alpha, &out)); }
static TsrTensor* pointwise_softplus(TsrTensor* x, double beta, double threshold) { TSR_RETURN_TENSOR(tsr_softplus(x, beta, threshold, &out)); }
static TsrTensor* pointwise_hardtanh(TsrTensor* x, double min_val, double max_val) { TSR_RETURN_TENSOR(tsr_hardtanh(x, min_val, max_val, &out)); }
%}

%newobject pointwise_silu;
TsrTensor* pointwise_silu(TsrTensor* x);
%newobject pointwise_sin;
TsrTensor* pointwise_sin(TsrTensor* x);
%newobject pointwise_cos;
TsrTensor* pointwise_cos(TsrTensor* x);
%newobject pointwise_rsqrt;
TsrTensor* pointwise_rsqrt(TsrTensor* x);
%newobject pointwise_reciprocal;
TsrTensor* pointwise_reciprocal(TsrTensor* x);
%newobject pointwise_floor;
TsrTensor* pointwise_floor(TsrTensor* x);
%newobject pointwise_ceil;
TsrTensor* pointwise_ceil(TsrTensor* x);
%newobject pointwise_round;
TsrTensor* pointwise_round(TsrTensor* x);
%newobject pointwise_trunc;
TsrTensor* pointwise_trunc(TsrTensor* x);
%newobject pointwise_sign;
TsrTensor* pointwise_sign(TsrTensor* x);
%newobject pointwise_leaky_relu;
TsrTensor* pointwise_leaky_relu(TsrTensor* x, double negative_slope);
%newobject pointwise_elu;
TsrTensor* pointwise_elu(TsrTensor* x, double alpha);
%newobject pointwise_softplus;
TsrTensor* pointwise_softplus(TsrTensor* x, double beta, double threshold);
%newobject pointwise_hardtanh;
TsrTensor* pointwise_hardtanh(TsrTensor* x, double min_val, double max_val);

%{
/* torch.clamp with tensor bounds; None (NULL) for a missing bound. */
static TsrTensor* pointwise_clamp_tensor(TsrTensor* x, TsrTensor* min, TsrTensor* max) {
  TSR_RETURN_TENSOR(tsr_clamp_tensor(x, min, max, &out));
}
%}
%newobject pointwise_clamp_tensor;
TsrTensor* pointwise_clamp_tensor(TsrTensor* x, TsrTensor* min, TsrTensor* max);

/* Tensor methods: the Python layer (_pointwise.py) installs its own over
 * these; the SWIG-builtin type only takes attributes it already has. */
%newobject TsrTensor::sin;
%newobject TsrTensor::cos;
%newobject TsrTensor::rsqrt;
%newobject TsrTensor::reciprocal;
%newobject TsrTensor::floor;
%newobject TsrTensor::ceil;
%newobject TsrTensor::round;
%newobject TsrTensor::trunc;
%newobject TsrTensor::sign;
%newobject TsrTensor::fix;
%extend TsrTensor {
  TsrTensor* sin() { TSR_RETURN_TENSOR(tsr_sin($self, &out)); }
  TsrTensor* cos() { TSR_RETURN_TENSOR(tsr_cos($self, &out)); }
  TsrTensor* rsqrt() { TSR_RETURN_TENSOR(tsr_rsqrt($self, &out)); }
  TsrTensor* reciprocal() { TSR_RETURN_TENSOR(tsr_reciprocal($self, &out)); }
  TsrTensor* floor() { TSR_RETURN_TENSOR(tsr_floor($self, &out)); }
  TsrTensor* ceil() { TSR_RETURN_TENSOR(tsr_ceil($self, &out)); }
  TsrTensor* round() { TSR_RETURN_TENSOR(tsr_round($self, &out)); }
  TsrTensor* trunc() { TSR_RETURN_TENSOR(tsr_trunc($self, &out)); }
  TsrTensor* sign() { TSR_RETURN_TENSOR(tsr_sign($self, &out)); }
  TsrTensor* fix() { TSR_RETURN_TENSOR(tsr_trunc($self, &out)); }
}

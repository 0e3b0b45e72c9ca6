/* bindings/pointwise.i — Elementwise math and activations beyond ops.h: silu, leaky_relu, elu, softplus, hardtanh, sin, cos, rsqrt, reciprocal, floor, ceil, round, trunc, sign, clamp with tensor bounds.
 * Over include/tessera/pointwise.h. Included at the end of tessera.i, so
 * tessera.i's conventions hold (error bracket, TSR_RETURN_TENSOR, array
 * typemaps). */

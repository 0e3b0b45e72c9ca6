#include "core/generator.h"

#include "core/factory.h"

namespace tsr {

uint64_t Generator::below(uint64_t n) {
  unsigned __int128 m = (unsigned __int128)next_u64() * n;
  uint64_t low = uint64_t(m);
  if (low < n) {
    uint64_t threshold = (0 - n) % n;
    while (low < threshold) {
      m = (unsigned __int128)next_u64() * n;
      low = uint64_t(m);
    }
  }
  return uint64_t(m >> 64);
}

namespace {
// Mantissa bits a uniform value may use so that rounding to the dtype never
// produces 1.0 (the interval stays half-open).
int uniform_bits(tsr_dtype d) {
  switch (d) {
    case TSR_FLOAT16: return 11;
    case TSR_BFLOAT16: return 8;
    case TSR_FLOAT32: return 24;
    default: return 53;
  }
}
}  // namespace

Tensor rand(Generator& g, const Shape& sizes, tsr_dtype dtype) {
  Tensor t = empty(sizes, dtype, TSR_CONTIGUOUS_FORMAT, kCpu);  // CPU generator: CPU tensors
  const int bits = uniform_bits(dtype);
  const int64_t n = t.numel();
  philox::Stream s(g.seed(), g.reserve(uint64_t(n) * (bits > 32 ? 2 : 1)));
  dispatch_floating(dtype, "rand", [&]<typename T>() {
    T* p = t.data<T>();
    for (int64_t i = 0; i < n; ++i) {
      const double u = bits > 32 ? uniform53(s.next53()) : uniform_from_word(s.next(), bits);
      p[i] = T(compute_t<T>(u));
    }
  });
  return t;
}

Tensor randn(Generator& g, const Shape& sizes, tsr_dtype dtype) {
  Tensor t = empty(sizes, dtype, TSR_CONTIGUOUS_FORMAT, kCpu);  // CPU generator: CPU tensors
  const int64_t n = t.numel();
  philox::Stream s(g.seed(), g.reserve(uint64_t((n + 1) / 2) * 4));
  dispatch_floating(dtype, "randn", [&]<typename T>() {
    T* p = t.data<T>();
    // Box–Muller: two uniforms give two independent normals.
    for (int64_t i = 0; i < n; i += 2) {
      double u1 = 1.0 - uniform53(s.next53());  // (0, 1]: log is finite
      double u2 = uniform53(s.next53());
      double r = std::sqrt(-2.0 * std::log(u1)), theta = 2.0 * M_PI * u2;
      p[i] = T(compute_t<T>(r * std::cos(theta)));
      if (i + 1 < n) p[i + 1] = T(compute_t<T>(r * std::sin(theta)));
    }
  });
  return t;
}

Tensor randperm(Generator& g, int64_t n) {
  TSR_CHECK(n >= 0, TSR_ERR_INVALID_ARGUMENT, "randperm: n must be non-negative, got ", n);
  Tensor t = empty({n}, TSR_INT64, TSR_CONTIGUOUS_FORMAT, kCpu);
  int64_t* p = t.data<int64_t>();
  for (int64_t i = 0; i < n; ++i) p[i] = i;
  for (int64_t i = n - 1; i > 0; --i) std::swap(p[i], p[g.below(uint64_t(i) + 1)]);  // Fisher–Yates
  return t;
}

}  // namespace tsr

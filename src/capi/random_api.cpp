// C API: generators and random factories (random.h).
#include <tessera/random.h>

#include "capi/barrier.h"
#include "capi/generator_handle.h"
#include "capi/handles.h"
#include "core/generator.h"
#include "ops/dropout.h"

using namespace tsr;
using namespace tsr::capi;

TSR_EXTERN tsr_status tsr_generator_create(uint64_t seed, tsr_generator** out) {
  return guarded([&] {
    // Check out first: in `*require(out) = new ...` the new-expression runs
    // before require (C++17 sequences the right operand of = first), so a
    // NULL out leaked the generator.
    require(out, "out");
    *out = new tsr_generator(seed);
  });
}
TSR_EXTERN void tsr_generator_retain(tsr_generator* g) { retain(g); }
TSR_EXTERN void tsr_generator_release(tsr_generator* g) { release(g); }
TSR_EXTERN tsr_status tsr_generator_manual_seed(tsr_generator* g, uint64_t seed) {
  return guarded([&] { require(g, "generator")->gen.manual_seed(seed); });
}

namespace {
template <typename Fn>
tsr_status random_tensor(int64_t ndim, const int64_t* sizes, const tsr_dtype& dtype,
                         tsr_generator* g, tsr_tensor** out, Fn&& fn) {
  return guarded([&] {
    Shape s = shape_from(ndim, sizes, "sizes", true);
    require(g, "generator");
    require(out, "out");
    // By reference and through its bytes: a value outside the enum must
    // not be loaded as a tsr_dtype before it is validated (enum_arg).
    check_dtype(enum_arg(dtype));
    TSR_CHECK(is_floating(dtype), TSR_ERR_DTYPE_MISMATCH, "expected a floating point dtype, got ",
              dtype_name(dtype));
    emit(out, fn(g->gen, s, dtype));
  });
}
}  // namespace

TSR_EXTERN tsr_status tsr_rand(int64_t ndim, const int64_t* sizes, tsr_dtype dtype, tsr_generator* g,
                               tsr_tensor** out) {
  return random_tensor(ndim, sizes, dtype, g, out,
                       [](Generator& gen, const Shape& s, tsr_dtype d) { return tsr::rand(gen, s, d); });
}
TSR_EXTERN tsr_status tsr_randn(int64_t ndim, const int64_t* sizes, tsr_dtype dtype, tsr_generator* g,
                                tsr_tensor** out) {
  return random_tensor(ndim, sizes, dtype, g, out,
                       [](Generator& gen, const Shape& s, tsr_dtype d) { return tsr::randn(gen, s, d); });
}
TSR_EXTERN tsr_status tsr_randperm(int64_t n, tsr_generator* g, tsr_tensor** out) {
  return guarded([&] {
    require(g, "generator");
    require(out, "out");
    emit(out, randperm(g->gen, n));
  });
}

TSR_EXTERN tsr_status tsr_generator_get_state(const tsr_generator* g, uint64_t* seed, uint64_t* offset) {
  return guarded([&] {
    require(g, "generator");
    require(seed, "seed");
    require(offset, "offset");
    *seed = g->gen.seed();
    *offset = g->gen.offset();
  });
}
TSR_EXTERN tsr_status tsr_generator_set_state(tsr_generator* g, uint64_t seed, uint64_t offset) {
  return guarded([&] { require(g, "generator")->gen.set_state(seed, offset); });
}

TSR_EXTERN tsr_status tsr_dropout(const tsr_tensor* x, double p, bool train, tsr_generator* g,
                                  tsr_tensor** out) {
  return guarded([&] {
    const Tensor& t = tensor_of(x, "x");
    require(g, "generator");
    require(out, "out");
    emit(out, ops::dropout(t, p, train, g->shared));
  });
}

// Every contender reads the same memory: tessera wraps torch's buffers with
// tsr_from_blob. tessera's result is checked against torch's once, before
// timing (bit-exact for add/mul/relu, the integer, comparison, where and
// pow rows; within 1e-5 relative otherwise).
//
// Floors: for binary ops, a hand-written vectorized loop out[i] = a[i] +
// b[i] into a preallocated buffer (the bytes of the op read and written
// once); for a + b.t(), the same with 64x64 tiles, so b's columns are read
// with locality; for unary ops, memcpy of the same bytes (exp and tanh
// compute per element, so for them the floor is a lower bound, not a
// target); for integer add, a < b and where, a plain loop of the op that
// the compiler vectorizes (Release). tessera and torch allocate their
// output on every call.
#include "elementwise_bench.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "bench_util.h"

namespace bench {

namespace {

void leave_to_torch(void*, void*) {}

tsr_dtype tsr_type(at::ScalarType s) {
  switch (s) {
    case at::kHalf: return TSR_FLOAT16;
    case at::kBFloat16: return TSR_BFLOAT16;
    case at::kDouble: return TSR_FLOAT64;
    case at::kInt: return TSR_INT32;
    case at::kLong: return TSR_INT64;
    case at::kByte: return TSR_UINT8;
    case at::kBool: return TSR_BOOL;
    default: return TSR_FLOAT32;
  }
}

tsr_tensor* wrap(const at::Tensor& t) {
  tsr_tensor* out = nullptr;
  BENCH_TSR(tsr_from_blob(t.data_ptr(), t.dim(), t.sizes().data(), t.strides().data(),
                          tsr_type(t.scalar_type()), TSR_DEVICE_CPU, leave_to_torch, nullptr, &out));
  return out;
}

void check(tsr_tensor* got, const at::Tensor& want0, const std::string& what, bool exact) {
  at::Tensor want = want0.contiguous();
  at::Tensor g = at::empty_like(want);
  BENCH_TSR(tsr_copy_to_buffer(got, g.data_ptr(), size_t(g.nbytes()), nullptr));
  const bool ok = exact ? std::memcmp(g.data_ptr(), want.data_ptr(), size_t(g.nbytes())) == 0
                        : at::allclose(g.to(at::kFloat), want.to(at::kFloat), 1e-5, 1e-6, true);
  if (!ok) {
    std::fprintf(stderr, "%s: tessera's result differs from torch's (max abs diff %g)\n", what.c_str(),
                 (g.to(at::kDouble) - want.to(at::kDouble)).abs().max().item<double>());
    std::abort();
  }
}

typedef float v8f __attribute__((vector_size(32)));
#if defined(__x86_64__)
__attribute__((target_clones("avx2", "default")))
#endif
void floor_add(float* o, const float* a, const float* b, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    v8f x, y;
    std::memcpy(&x, a + i, 32);
    std::memcpy(&y, b + i, 32);
    x += y;
    std::memcpy(o + i, &x, 32);
  }
  for (; i < n; ++i) o[i] = a[i] + b[i];
}

// Floors of the integer, comparison and where rows: plain loops the
// compiler vectorizes (Release, -O3), over the same bytes.
#if defined(__x86_64__)
__attribute__((target_clones("avx2", "default")))
#endif
void floor_add_i64(int64_t* o, const int64_t* a, const int64_t* b, int64_t n) {
  for (int64_t i = 0; i < n; ++i) o[i] = int64_t(uint64_t(a[i]) + uint64_t(b[i]));
}
#if defined(__x86_64__)
__attribute__((target_clones("avx2", "default")))
#endif
void floor_add_u8(uint8_t* o, const uint8_t* a, const uint8_t* b, int64_t n) {
  for (int64_t i = 0; i < n; ++i) o[i] = uint8_t(a[i] + b[i]);
}
#if defined(__x86_64__)
__attribute__((target_clones("avx2", "default")))
#endif
void floor_lt(uint8_t* o, const float* a, const float* b, int64_t n) {
  for (int64_t i = 0; i < n; ++i) o[i] = a[i] < b[i];
}
#if defined(__x86_64__)
__attribute__((target_clones("avx2", "default")))
#endif
void floor_where(float* o, const uint8_t* c, const float* a, const float* b, int64_t n) {
  for (int64_t i = 0; i < n; ++i) o[i] = c[i] ? a[i] : b[i];
}

// o = a + b^T for n x n row-major a, b: 64x64 tiles.
#if defined(__x86_64__)
__attribute__((target_clones("avx2", "default")))
#endif
void floor_add_t(float* o, const float* a, const float* b, int64_t n) {
  constexpr int64_t TB = 64;
  for (int64_t i0 = 0; i0 < n; i0 += TB)
    for (int64_t j0 = 0; j0 < n; j0 += TB)
      for (int64_t i = i0; i < std::min(n, i0 + TB); ++i)
        for (int64_t j = j0; j < std::min(n, j0 + TB); ++j) o[i * n + j] = a[i * n + j] + b[j * n + i];
}

#if defined(__x86_64__)
// o = a + b^T with 8x8 AVX register transposes of b inside 64x64 blocks:
// the hand-tiled loop issue 33 sets the target against (<= 1.2x).
__attribute__((target("avx"))) void floor_add_t8x8(float* o, const float* a, const float* b, int64_t n) {
  constexpr int64_t TB = 64;
  for (int64_t i0 = 0; i0 < n; i0 += TB)
    for (int64_t j0 = 0; j0 < n; j0 += TB)
      for (int64_t i = i0; i < std::min(n, i0 + TB); i += 8)
        for (int64_t j = j0; j < std::min(n, j0 + TB); j += 8) {
          // rows j..j+7 of b, columns i..i+7: after the transpose, row k
          // holds b[j..j+7][i+k] = (b^T)[i+k][j..j+7].
          const float* s = b + j * n + i;
          __m256 r0 = _mm256_loadu_ps(s), r1 = _mm256_loadu_ps(s + n), r2 = _mm256_loadu_ps(s + 2 * n),
                 r3 = _mm256_loadu_ps(s + 3 * n), r4 = _mm256_loadu_ps(s + 4 * n),
                 r5 = _mm256_loadu_ps(s + 5 * n), r6 = _mm256_loadu_ps(s + 6 * n),
                 r7 = _mm256_loadu_ps(s + 7 * n);
          __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
          __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
          __m256 t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5);
          __m256 t6 = _mm256_unpacklo_ps(r6, r7), t7 = _mm256_unpackhi_ps(r6, r7);
          __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xEE);
          __m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xEE);
          __m256 u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xEE);
          __m256 u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xEE);
          const __m256 c[8] = {_mm256_permute2f128_ps(u0, u4, 0x20), _mm256_permute2f128_ps(u1, u5, 0x20),
                               _mm256_permute2f128_ps(u2, u6, 0x20), _mm256_permute2f128_ps(u3, u7, 0x20),
                               _mm256_permute2f128_ps(u0, u4, 0x31), _mm256_permute2f128_ps(u1, u5, 0x31),
                               _mm256_permute2f128_ps(u2, u6, 0x31), _mm256_permute2f128_ps(u3, u7, 0x31)};
          for (int k = 0; k < 8; ++k)
            _mm256_storeu_ps(o + (i + k) * n + j, _mm256_add_ps(_mm256_loadu_ps(a + (i + k) * n + j), c[k]));
        }
}
#endif

struct Row {
  std::string name;
  double tsr, torch, floor, r_torch, r_floor;
};

using TsrFn = std::function<tsr_status(tsr_tensor**)>;

// TSR_BENCH_THREADS=n (default 1): tessera and torch on n threads each,
// timed by wall clock (a thread's CPU time leaves out the other threads'
// work); the floors stay single-threaded loops.
int bench_threads() {
  const char* v = std::getenv("TSR_BENCH_THREADS");
  const int n = v ? std::atoi(v) : 1;
  return n >= 1 ? n : 1;
}

Row run_case(const std::string& name, TsrFn tf, std::function<at::Tensor()> torch_fn,
             std::function<void()> floor_fn, bool exact, int warmup, int rounds) {
  if (!wanted(name)) return {};
  {
    tsr_tensor* r;
    BENCH_TSR(tf(&r));
    check(r, torch_fn(), name, exact);
    tsr_tensor_release(r);
  }
  std::vector<Contender> cs = {
      {"tessera",
       [&] {
         tsr_tensor* r;
         BENCH_TSR(tf(&r));
         keep(r);
         tsr_tensor_release(r);
       }},
      {"torch",
       [&] {
         at::Tensor r = torch_fn();
         keep(r.data_ptr());
       }},
      {"floor", floor_fn},
  };
  Samples s = measure_interleaved(cs, warmup, rounds);
  const auto& t = bench_threads() > 1 ? s.wall : s.cpu;
  return {name, median(t[0]), median(t[1]), median(t[2]), paired_ratio(t[0], t[1]), paired_ratio(t[0], t[2])};
}

}  // namespace

void bench_elementwise(int warmup, int rounds) {
  const int64_t before = tsr_get_num_threads();
  const int threads = bench_threads();
  BENCH_TSR(tsr_set_num_threads(threads));
  const int torch_before = at::get_num_threads();
  at::set_num_threads(threads);
  const std::string timing = threads > 1 ? "on " + std::to_string(threads) +
                                               " threads each (TSR_BENCH_THREADS), wall-clock ms; floors on 1 thread"
                                         : std::string("on 1 thread, CPU ms (this thread)");
  std::printf(
      "\nElementwise, [4096,4096] (16M elements), tessera and torch %s.\n"
      "floor: binary = hand-vectorized out = a + b (same bytes), a + b.t() = the same in 64x64 tiles,\n"
      "unary = memcpy of the same bytes (a lower bound for exp/tanh/pow), integer/compare/where =\n"
      "a plain loop of the same op the compiler vectorizes.\n"
      "ratio = median over rounds of tessera's time / this one's.\n",
      timing.c_str());
  at::manual_seed(0);
  const int64_t n = 4096, N = n * n;
  at::Tensor a = at::randn({n, n}), b = at::randn({n, n}), pos = at::rand({n, n}) + 0.5;
  at::Tensor bt = b.t();
  tsr_tensor *ta = wrap(a), *tb = wrap(b), *tpos = wrap(pos), *tbt;
  BENCH_TSR(tsr_t(tb, &tbt));
  std::vector<float> out(static_cast<size_t>(N));
  float* o = out.data();
  const float* pa = a.data_ptr<float>();
  const float* pb = b.data_ptr<float>();
  auto fl_bin = [&] { floor_add(o, pa, pb, N); keep(o); };
  auto fl_un = [&] { std::memcpy(o, pa, size_t(N) * 4); keep(o); };
  std::vector<Row> rows;
  rows.push_back(run_case("f32 a + b", [&](tsr_tensor** r) { return tsr_add(ta, tb, r); },
                          [&] { return a + b; }, fl_bin, true, warmup, rounds));
  rows.push_back(run_case("f32 a * b", [&](tsr_tensor** r) { return tsr_mul(ta, tb, r); },
                          [&] { return a * b; }, fl_bin, true, warmup, rounds));
  rows.push_back(run_case("f32 a / b", [&](tsr_tensor** r) { return tsr_div(ta, tb, r); },
                          [&] { return a / b; }, fl_bin, true, warmup, rounds));
  rows.push_back(run_case("f32 a * 1.5 (scalar)", [&](tsr_tensor** r) { return tsr_mul_scalar(ta, 1.5, r); },
                          [&] { return a * 1.5; }, fl_un, true, warmup, rounds));
  rows.push_back(run_case("f32 a + b.t()", [&](tsr_tensor** r) { return tsr_add(ta, tbt, r); },
                          [&] { return a + bt; }, [&] { floor_add_t(o, pa, pb, n); keep(o); }, true, warmup,
                          rounds));
#if defined(__x86_64__)
  if (__builtin_cpu_supports("avx"))
    rows.push_back(run_case("f32 a + b.t() (8x8 AVX floor)", [&](tsr_tensor** r) { return tsr_add(ta, tbt, r); },
                            [&] { return a + bt; }, [&] { floor_add_t8x8(o, pa, pb, n); keep(o); }, true,
                            warmup, rounds));
#endif
  rows.push_back(run_case("f32 relu", [&](tsr_tensor** r) { return tsr_relu(ta, r); },
                          [&] { return at::relu(a); }, fl_un, true, warmup, rounds));
  rows.push_back(run_case("f32 exp", [&](tsr_tensor** r) { return tsr_exp(ta, r); },
                          [&] { return at::exp(a); }, fl_un, false, warmup, rounds));
  rows.push_back(run_case("f32 log", [&](tsr_tensor** r) { return tsr_log(tpos, r); },
                          [&] { return at::log(pos); }, fl_un, false, warmup, rounds));
  rows.push_back(run_case("f32 tanh", [&](tsr_tensor** r) { return tsr_tanh(ta, r); },
                          [&] { return at::tanh(a); }, fl_un, false, warmup, rounds));
  rows.push_back(run_case("f32 sigmoid", [&](tsr_tensor** r) { return tsr_sigmoid(ta, r); },
                          [&] { return at::sigmoid(a); }, fl_un, false, warmup, rounds));
  rows.push_back(run_case("f32 gelu (erf)", [&](tsr_tensor** r) { return tsr_gelu(ta, TSR_GELU_NONE, r); },
                          [&] { return at::gelu(a); }, fl_un, false, warmup, rounds));
  rows.push_back(run_case("f32 abs", [&](tsr_tensor** r) { return tsr_abs(ta, r); },
                          [&] { return at::abs(a); }, fl_un, true, warmup, rounds));
  rows.push_back(run_case("f32 neg", [&](tsr_tensor** r) { return tsr_neg(ta, r); },
                          [&] { return at::neg(a); }, fl_un, true, warmup, rounds));
  {
    const double lo = -0.5, hi = 0.5;
    rows.push_back(run_case("f32 clamp(a, -0.5, 0.5)", [&](tsr_tensor** r) { return tsr_clamp(ta, &lo, &hi, r); },
                            [&] { return at::clamp(a, lo, hi); }, fl_un, true, warmup, rounds));
  }
  {
    // The optimizers' in-place updates, each side on its own copy of a
    // (the check compares one application; timing goes on applying).
    // torch's add_ fuses a + alpha * b into one fma on AVX2, tessera rounds
    // the product first: equal within an ulp, so not compared bit for bit.
    at::Tensor xa = a.clone(), xt = a.clone();
    tsr_tensor* txt = wrap(xt);
    rows.push_back(run_case("f32 x.add_(b, alpha=0.1)",
                            [&](tsr_tensor** r) {
                              tsr_tensor_retain(txt);
                              *r = txt;
                              return tsr_add_(txt, tb, 0.1);
                            },
                            [&] { return xa.add_(b, 0.1); }, fl_bin, false, warmup, rounds));
    xa.copy_(a);  // the add_ rounds differ by an ulp; mul_ starts equal
    xt.copy_(a);
    rows.push_back(run_case("f32 x.mul_(0.999)",
                            [&](tsr_tensor** r) {
                              tsr_tensor_retain(txt);
                              *r = txt;
                              return tsr_mul_scalar_(txt, 0.999);
                            },
                            [&] { return xa.mul_(0.999); }, fl_un, true, warmup, rounds));
    tsr_tensor_release(txt);
  }
  rows.push_back(run_case("f32 gelu (tanh)", [&](tsr_tensor** r) { return tsr_gelu(ta, TSR_GELU_TANH, r); },
                          [&] { return at::gelu(a, "tanh"); }, fl_un, false, warmup, rounds));
  // integers: int32 (the bytes of float32, so the float floor), int64, uint8
  {
    at::Tensor ai = at::randint(-1000000, 1000000, {n, n}, at::kInt), bi = at::randint(-1000000, 1000000, {n, n}, at::kInt);
    at::Tensor al = at::randint(-1000000, 1000000, {n, n}, at::kLong), bl = at::randint(-1000000, 1000000, {n, n}, at::kLong);
    at::Tensor au = at::randint(0, 256, {n, n}, at::kByte), bu = at::randint(0, 256, {n, n}, at::kByte);
    tsr_tensor *tai = wrap(ai), *tbi = wrap(bi), *tal = wrap(al), *tbl = wrap(bl), *tau = wrap(au), *tbu = wrap(bu);
    std::vector<int64_t> o64(static_cast<size_t>(N));
    rows.push_back(run_case("i32 a + b", [&](tsr_tensor** r) { return tsr_add(tai, tbi, r); },
                            [&] { return ai + bi; }, fl_bin, true, warmup, rounds));
    rows.push_back(run_case("i64 a + b", [&](tsr_tensor** r) { return tsr_add(tal, tbl, r); },
                            [&] { return al + bl; },
                            [&] { floor_add_i64(o64.data(), al.data_ptr<int64_t>(), bl.data_ptr<int64_t>(), N); keep(o64.data()); },
                            true, warmup, rounds));
    rows.push_back(run_case("u8 a + b", [&](tsr_tensor** r) { return tsr_add(tau, tbu, r); },
                            [&] { return au + bu; },
                            [&] {
                              floor_add_u8(reinterpret_cast<uint8_t*>(o), au.data_ptr<uint8_t>(), bu.data_ptr<uint8_t>(), N);
                              keep(o);
                            },
                            true, warmup, rounds));
    for (tsr_tensor* t : {tai, tbi, tal, tbl, tau, tbu}) tsr_tensor_release(t);
  }
  // comparison, where, pow (float32)
  {
    at::Tensor c = a > 0;
    tsr_tensor* tc = wrap(c);
    rows.push_back(run_case("f32 a < b -> bool", [&](tsr_tensor** r) { return tsr_lt(ta, tb, r); },
                            [&] { return a < b; },
                            [&] { floor_lt(reinterpret_cast<uint8_t*>(o), pa, pb, N); keep(o); }, true, warmup, rounds));
    rows.push_back(run_case("f32 where(c, a, b)", [&](tsr_tensor** r) { return tsr_where(tc, ta, tb, r); },
                            [&] { return at::where(c, a, b); },
                            [&] { floor_where(o, reinterpret_cast<const uint8_t*>(c.data_ptr<bool>()), pa, pb, N); keep(o); },
                            true, warmup, rounds));
    tsr_tensor_release(tc);
  }
  rows.push_back(run_case("f32 pow(a, 2.5)", [&](tsr_tensor** r) { return tsr_pow_scalar(tpos, 2.5, r); },
                          [&] { return at::pow(pos, 2.5); }, fl_un, true, warmup, rounds));
  rows.push_back(run_case("f32 pow(a, 2)", [&](tsr_tensor** r) { return tsr_pow_scalar(ta, 2.0, r); },
                          [&] { return at::pow(a, 2); }, fl_un, true, warmup, rounds));
  for (at::ScalarType st : {at::kHalf, at::kBFloat16}) {
    at::Tensor ah = a.to(st), bh = b.to(st);
    tsr_tensor *tah = wrap(ah), *tbh = wrap(bh);
    const std::string nm = st == at::kHalf ? "f16" : "bf16";
    auto fl_h = [&] { floor_add(o, pa, pb, N / 2); keep(o); };  // the same bytes as 16-bit a + b
    rows.push_back(run_case(nm + " a + b", [&](tsr_tensor** r) { return tsr_add(tah, tbh, r); },
                            [&] { return ah + bh; }, fl_h, true, warmup, rounds));
    auto fl_h_un = [&] { std::memcpy(o, pa, size_t(N) * 2); keep(o); };  // the 16-bit bytes
    rows.push_back(run_case(nm + " abs", [&](tsr_tensor** r) { return tsr_abs(tah, r); },
                            [&] { return at::abs(ah); }, fl_h_un, true, warmup, rounds));
    if (st == at::kBFloat16)  // torch 1.13's CPU relu and clamp have no Half kernel
      rows.push_back(run_case(nm + " relu", [&](tsr_tensor** r) { return tsr_relu(tah, r); },
                              [&] { return at::relu(ah); }, fl_h_un, true, warmup, rounds));
    if (st == at::kBFloat16)
      rows.push_back(run_case(nm + " clamp(a, -0.5, 0.5)",
                              [&](tsr_tensor** r) {
                                const double lo = -0.5, hi = 0.5;
                                return tsr_clamp(tah, &lo, &hi, r);
                              },
                              [&] { return at::clamp(ah, -0.5, 0.5); }, fl_h_un, true, warmup, rounds));
    tsr_tensor_release(tah);
    tsr_tensor_release(tbh);
  }
  std::printf("  %-28s %9s %9s %9s %9s %9s\n", "case", "tessera", "torch", "floor", "tsr/torch", "tsr/floor");
  rule();
  for (const Row& r : rows)
    if (!r.name.empty())  // empty: left out by TSR_BENCH_ONLY
      std::printf("  %-28s %9.2f %9.2f %9.2f %9.2f %9.2f\n", r.name.c_str(), r.tsr * 1e3, r.torch * 1e3,
                  r.floor * 1e3, r.r_torch, r.r_floor);
  for (tsr_tensor* t : {ta, tb, tpos, tbt}) tsr_tensor_release(t);
  at::set_num_threads(torch_before);
  BENCH_TSR(tsr_set_num_threads(before));
}

}  // namespace bench

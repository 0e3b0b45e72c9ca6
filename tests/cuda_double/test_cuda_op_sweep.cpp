// cuda_emulated_op_sweep (issue 32): public ops, and their backward, on the
// emulated CUDA device (libtessera_cuda_emulated.so through
// $TSR_CUDA_PLUGIN: the plugin's host code, the gpu/kernels functors run by
// the CPU grid emulator) against the same ops on the CPU. Any
// TSR_ERR_UNSUPPORTED on CUDA fails, as does a difference beyond the case's
// tolerance (stated per case: exact for selections, copies, comparisons,
// integer math and index adds; a few ULPs of the dtype for transcendental
// math and row sums, whose order differs).
//
// Every case is built once per device by the same function, so layouts
// match: inputs are made on the CPU from a fixed generator, moved to the
// device, then viewed (transposed, sliced, expanded) on it. Each case's
// floating inputs require grad; its output's backward with a fixed
// gradient gives leaf gradients compared the same way.
//
// kKnownGaps lists the public ops with no CUDA path yet; the test prints
// it (the list is the record of what is left, not an exclusion: none of
// them is in the sweep).
#include <gtest/gtest.h>

#include <tessera/tessera.h>

#include "tsr_cuda_double.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace {

#define ASSERT_OK(call) ASSERT_EQ((call), TSR_OK) << #call << ": " << tsr_last_error_message()

// Owns a tensor handle.
struct H {
  tsr_tensor* h = nullptr;
  H() = default;
  explicit H(tsr_tensor* t) : h(t) {}
  H(H&& o) noexcept : h(o.h) { o.h = nullptr; }
  H& operator=(H&& o) noexcept {
    std::swap(h, o.h);
    return *this;
  }
  H(const H&) = delete;
  ~H() { tsr_tensor_release(h); }
};

// Where a case is built.
struct Dev {
  tsr_device_type type;
};
constexpr Dev kCpuDev{TSR_DEVICE_CPU};
constexpr Dev kCudaDev{TSR_DEVICE_CUDA};

// A throwing wrapper for building inputs: a failure there is the test's.
tsr_tensor* ok(tsr_status s, tsr_tensor* t) {
  if (s != TSR_OK) throw std::runtime_error(std::string("building an input failed: ") + tsr_last_error_message());
  return t;
}

// Deterministic CPU values: sin of the position, scaled, in dtype.
tsr_tensor* values_cpu(std::vector<int64_t> sizes, tsr_dtype dtype, double scale = 2.0, double shift = 0.0) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[size_t(i)] = scale * std::sin(0.7 * double(i) + 0.3) + shift;
  tsr_tensor* d = nullptr;
  ok(tsr_from_data(v.data(), v.size() * sizeof(double), int64_t(sizes.size()), sizes.data(), TSR_FLOAT64, &d), d);
  if (dtype == TSR_FLOAT64) return d;
  tsr_tensor* out = nullptr;
  const tsr_status s = tsr_to_dtype(d, dtype, &out);
  tsr_tensor_release(d);
  return ok(s, out);
}

tsr_tensor* ints_cpu(const std::vector<int64_t>& v, std::vector<int64_t> sizes, tsr_dtype dtype = TSR_INT64) {
  tsr_tensor* d = nullptr;
  ok(tsr_from_data(v.data(), v.size() * sizeof(int64_t), int64_t(sizes.size()), sizes.data(), TSR_INT64, &d), d);
  if (dtype == TSR_INT64) return d;
  tsr_tensor* out = nullptr;
  const tsr_status s = tsr_to_dtype(d, dtype, &out);
  tsr_tensor_release(d);
  return ok(s, out);
}

tsr_tensor* on(Dev dev, tsr_tensor* cpu) {
  if (dev.type == TSR_DEVICE_CPU) return cpu;
  tsr_tensor* out = nullptr;
  const tsr_status s = tsr_to_device(cpu, dev.type, 0, false, &out);
  tsr_tensor_release(cpu);
  return ok(s, out);
}

// One input of a case: the leaf (what requires grad and gets .grad) and the
// tensor the op sees (the leaf or a view of it).
struct Input {
  H leaf;
  H used;  // null: the leaf itself
  const tsr_tensor* get() const { return used.h ? used.h : leaf.h; }
};

using Inputs = std::vector<Input>;
using MakeInputs = std::function<void(Dev, Inputs&)>;
using RunOp = std::function<tsr_status(const Inputs&, tsr_tensor**)>;

bool is_float(tsr_dtype d) { return d == TSR_FLOAT16 || d == TSR_BFLOAT16 || d == TSR_FLOAT32 || d == TSR_FLOAT64; }

// Set by run_case while a case's inputs are built: floating leaves then
// require grad, before any view of them is taken.
bool g_want_grad = false;
tsr_tensor* grad_leaf(tsr_tensor* t) {
  if (g_want_grad && is_float(tsr_tensor_dtype(t)) && tsr_set_requires_grad(t, true) != TSR_OK)
    throw std::runtime_error(tsr_last_error_message());
  return t;
}

Input leaf(tsr_tensor* t) { return Input{H(grad_leaf(t)), H()}; }
Input transposed(tsr_tensor* t, int64_t a, int64_t b) {
  grad_leaf(t);
  tsr_tensor* v = nullptr;
  ok(tsr_transpose(t, a, b, &v), v);
  return Input{H(t), H(v)};
}
Input sliced(tsr_tensor* t, int64_t dim, int64_t start, int64_t end, int64_t step) {
  grad_leaf(t);
  tsr_tensor* v = nullptr;
  ok(tsr_slice(t, dim, start, end, step, &v), v);
  return Input{H(t), H(v)};
}
Input expanded(tsr_tensor* t, std::vector<int64_t> sizes) {
  grad_leaf(t);
  tsr_tensor* v = nullptr;
  ok(tsr_expand(t, int64_t(sizes.size()), sizes.data(), &v), v);
  return Input{H(t), H(v)};
}

struct Case {
  std::string name;
  MakeInputs make;
  RunOp run;
  double rtol, atol;  // |cuda - cpu| <= atol + rtol * |cpu|, NaN where the CPU has NaN
  bool backward = true;
  // > 0: rtol and atol are this many ULPs-ish (ulps()) of the result's dtype.
  double ulp_factor = 0;
};

double ulps(tsr_dtype d);

// t's values as doubles, on the host (bool and integers converted exactly).
std::vector<double> host_values(const tsr_tensor* t) {
  tsr_tensor* c = nullptr;
  EXPECT_EQ(tsr_to_device(t, TSR_DEVICE_CPU, 0, false, &c), TSR_OK) << tsr_last_error_message();
  tsr_tensor* d = nullptr;
  EXPECT_EQ(tsr_to_dtype(c, TSR_FLOAT64, &d), TSR_OK) << tsr_last_error_message();
  std::vector<double> v(size_t(tsr_tensor_numel(d)));
  EXPECT_EQ(tsr_copy_to_buffer(d, v.data(), v.size() * sizeof(double), nullptr), TSR_OK);
  tsr_tensor_release(c);
  tsr_tensor_release(d);
  return v;
}

std::vector<int64_t> sizes_of(const tsr_tensor* t) {
  const int64_t* s = tsr_tensor_sizes(t);
  return std::vector<int64_t>(s, s + tsr_tensor_ndim(t));
}

void expect_close(const std::string& what, const tsr_tensor* cpu, const tsr_tensor* cuda, double rtol, double atol) {
  ASSERT_EQ(tsr_tensor_device_type(cuda), TSR_DEVICE_CUDA) << what;
  ASSERT_EQ(tsr_tensor_dtype(cpu), tsr_tensor_dtype(cuda)) << what;
  ASSERT_EQ(sizes_of(cpu), sizes_of(cuda)) << what;
  const std::vector<double> a = host_values(cpu), b = host_values(cuda);
  int bad = 0;
  for (size_t i = 0; i < a.size() && bad < 5; ++i) {
    const bool same = std::isnan(a[i]) ? std::isnan(b[i])
                                       : (a[i] == b[i] || std::fabs(a[i] - b[i]) <= atol + rtol * std::fabs(a[i]));
    if (!same) {
      ++bad;
      ADD_FAILURE() << what << ": element " << i << " cpu " << a[i] << " cuda " << b[i];
    }
  }
}

// The case on both devices: forward, then backward from a fixed gradient.
void run_case_on_both(const Case& c);

// A kernel the emulator refuses runs as queued work, after the launch
// returned: the simulated device records it as a violation (and prints
// "simdev: kernel ... threw") where a real launch would have failed. Each
// case must leave none.
void run_case(const Case& c) {
  const size_t violations_before = tsr_double_violations();
  run_case_on_both(c);
  tsr_cuda_synchronize(0);
  EXPECT_EQ(tsr_double_violations(), violations_before)
      << c.name << ": the emulated device recorded a violation (stderr says which)";
}

void run_case_on_both(const Case& c) {
  SCOPED_TRACE(c.name);
  Inputs in_cpu, in_cuda;
  g_want_grad = c.backward;
  c.make(kCpuDev, in_cpu);
  c.make(kCudaDev, in_cuda);
  g_want_grad = false;
  H out_cpu, out_cuda;
  const tsr_status s_cpu = c.run(in_cpu, &out_cpu.h);
  const std::string m_cpu = tsr_last_error_message();
  const tsr_status s = c.run(in_cuda, &out_cuda.h);
  if (s_cpu != TSR_OK) {  // a refusal (a dtype the op lacks): the same on CUDA
    EXPECT_EQ(s, s_cpu) << c.name << ": cpu says " << m_cpu << "; cuda says " << tsr_last_error_message();
    EXPECT_EQ(tsr_last_error_message(), m_cpu) << c.name;
    EXPECT_EQ(out_cuda.h, nullptr);
    return;
  }
  ASSERT_NE(s, TSR_ERR_UNSUPPORTED) << c.name << " has no CUDA path: " << tsr_last_error_message();
  ASSERT_EQ(s, TSR_OK) << c.name << " on CUDA: " << tsr_last_error_message();
  const double rtol = c.ulp_factor > 0 ? c.ulp_factor * ulps(tsr_tensor_dtype(out_cpu.h)) : c.rtol;
  const double atol = c.ulp_factor > 0 ? c.ulp_factor * ulps(tsr_tensor_dtype(out_cpu.h)) : c.atol;
  expect_close(c.name + " forward", out_cpu.h, out_cuda.h, rtol, atol);
  if (!c.backward || !is_float(tsr_tensor_dtype(out_cpu.h))) return;
  bool any = false;
  for (const Input& i : in_cpu) any = any || tsr_requires_grad(i.leaf.h);
  if (!any) return;
  H seed_cpu(values_cpu(sizes_of(out_cpu.h), tsr_tensor_dtype(out_cpu.h), 1.0, 0.5));
  H seed_cuda(on(kCudaDev, values_cpu(sizes_of(out_cpu.h), tsr_tensor_dtype(out_cpu.h), 1.0, 0.5)));
  ASSERT_OK(tsr_backward(out_cpu.h, seed_cpu.h, false));
  const tsr_status sb = tsr_backward(out_cuda.h, seed_cuda.h, false);
  ASSERT_NE(sb, TSR_ERR_UNSUPPORTED) << c.name << "'s backward has no CUDA path: " << tsr_last_error_message();
  ASSERT_EQ(sb, TSR_OK) << c.name << " backward on CUDA: " << tsr_last_error_message();
  for (size_t k = 0; k < in_cpu.size(); ++k) {
    if (!tsr_requires_grad(in_cpu[k].leaf.h)) continue;
    H g_cpu, g_cuda;
    ASSERT_OK(tsr_grad(in_cpu[k].leaf.h, &g_cpu.h));
    ASSERT_OK(tsr_grad(in_cuda[k].leaf.h, &g_cuda.h));
    ASSERT_NE(g_cpu.h, nullptr);
    ASSERT_NE(g_cuda.h, nullptr) << c.name << ": no gradient for input " << k << " on CUDA";
    expect_close(c.name + " grad of input " + std::to_string(k), g_cpu.h, g_cuda.h, rtol, atol);
  }
}

// Tolerances by dtype: a few ULPs where the math or a sum's order differs.
double ulps(tsr_dtype d) {
  switch (d) {
    case TSR_FLOAT16: return 2e-3;
    case TSR_BFLOAT16: return 1.6e-2;
    case TSR_FLOAT32: return 2e-6;
    default: return 1e-13;
  }
}

const char* dname(tsr_dtype d) {
  switch (d) {
    case TSR_FLOAT16: return "float16";
    case TSR_BFLOAT16: return "bfloat16";
    case TSR_FLOAT32: return "float32";
    case TSR_FLOAT64: return "float64";
    case TSR_INT64: return "int64";
    case TSR_INT32: return "int32";
    case TSR_INT8: return "int8";
    case TSR_UINT8: return "uint8";
    case TSR_BOOL: return "bool";
    default: return "other";
  }
}

constexpr tsr_dtype kFloats[] = {TSR_FLOAT32, TSR_FLOAT64, TSR_FLOAT16, TSR_BFLOAT16};
constexpr tsr_dtype kAll[] = {TSR_FLOAT32, TSR_FLOAT64, TSR_FLOAT16, TSR_BFLOAT16, TSR_INT64,
                              TSR_INT32,   TSR_INT8,    TSR_UINT8,   TSR_BOOL};

// ---- reductions, extrema, scans, statistics (issue 32, cuda-reduce) -----

// Given values (NaN, signed zeros, ties) in dtype.
tsr_tensor* doubles_cpu(const std::vector<double>& v, std::vector<int64_t> sizes, tsr_dtype dtype) {
  tsr_tensor* d = nullptr;
  ok(tsr_from_data(v.data(), v.size() * sizeof(double), int64_t(sizes.size()), sizes.data(), TSR_FLOAT64, &d), d);
  if (dtype == TSR_FLOAT64) return d;
  tsr_tensor* out = nullptr;
  const tsr_status s = tsr_to_dtype(d, dtype, &out);
  tsr_tensor_release(d);
  return ok(s, out);
}

// 1 / t: tells -0 (-inf) from +0 (+inf) in the comparison, which takes
// -0 == +0.
tsr_status signed_zeros(tsr_status s, tsr_tensor** o) {
  if (s != TSR_OK) return s;
  tsr_tensor* r = nullptr;
  const tsr_status s2 = tsr_reciprocal(*o, &r);
  tsr_tensor_release(*o);
  *o = r;
  return s2;
}

void add_reduce_cases(std::vector<Case>& cs) {
  const std::vector<double> special = {1.0, -0.0, 0.0, NAN, 2.0, 2.0, -3.0, 0.0, -0.0, 2.0, NAN, -3.0};
  const std::vector<double> ties = {-0.0, 0.0, 1.5, 1.5, 0.0, -0.0, -2.0, 3.0, -2.0, 3.0, 0.0, 0.0};
  // ---- maximum / minimum: every dtype, broadcast, promoted ----------------
  using Binary = std::function<tsr_status(const tsr_tensor*, const tsr_tensor*, tsr_tensor**)>;
  for (const auto& [name, fn] : std::vector<std::pair<std::string, Binary>>{{"maximum", tsr_maximum},
                                                                         {"minimum", tsr_minimum}}) {
    for (tsr_dtype d : kAll)
      for (tsr_dtype e : {d, TSR_FLOAT32, TSR_INT64}) {
        cs.push_back({name + "/" + dname(d) + "," + dname(e),
                      [d, e](Dev dev, Inputs& in) {
                        in.push_back(transposed(on(dev, values_cpu({4, 3}, d, 3.0)), 0, 1));
                        in.push_back(leaf(on(dev, values_cpu({4}, e, 2.0, 0.5))));
                      },
                      [fn = fn](const Inputs& in, tsr_tensor** o) { return fn(in[0].get(), in[1].get(), o); }, 0,
                      0});
      }
    // NaN on either side, equal values (the backward halves the gradient)
    cs.push_back({name + "/nan and ties",
                  [special, ties](Dev dev, Inputs& in) {
                    in.push_back(leaf(on(dev, doubles_cpu(special, {3, 4}, TSR_FLOAT32))));
                    in.push_back(transposed(on(dev, doubles_cpu(ties, {4, 3}, TSR_FLOAT32)), 0, 1));
                  },
                  [fn = fn](const Inputs& in, tsr_tensor** o) { return fn(in[0].get(), in[1].get(), o); }, 0, 0});
    // promoted (float16 with float64), and dense float32 (the packed path)
    for (tsr_dtype d : {TSR_FLOAT16, TSR_FLOAT32})
      cs.push_back({name + "/signed zeros/" + dname(d),
                    [special, ties, d](Dev dev, Inputs& in) {
                      in.push_back(leaf(on(dev, doubles_cpu(special, {12}, d))));
                      in.push_back(leaf(on(dev, doubles_cpu(ties, {12}, d == TSR_FLOAT16 ? TSR_FLOAT64 : d))));
                    },
                    [fn = fn](const Inputs& in, tsr_tensor** o) {
                      return signed_zeros(fn(in[0].get(), in[1].get(), o), o);
                    },
                    0, 0, false});
    cs.push_back({name + "/expanded, empty",
                  [](Dev dev, Inputs& in) {
                    in.push_back(expanded(on(dev, values_cpu({1, 3}, TSR_FLOAT64)), {0, 3}));
                    in.push_back(leaf(on(dev, values_cpu({3}, TSR_FLOAT64))));
                  },
                  [fn = fn](const Inputs& in, tsr_tensor** o) { return fn(in[0].get(), in[1].get(), o); }, 0, 0});
  }
  // ---- amax / amin: dims in any order of a transposed input ---------------
  using Over = std::function<tsr_status(const tsr_tensor*, int64_t, const int64_t*, bool, tsr_tensor**)>;
  for (const auto& [name, fn] : std::vector<std::pair<std::string, Over>>{{"amax", tsr_amax}, {"amin", tsr_amin}}) {
    for (tsr_dtype d : kAll) {
      cs.push_back({name + "/" + dname(d),
                    [d](Dev dev, Inputs& in) { in.push_back(transposed(on(dev, values_cpu({5, 3, 4}, d, 6.0)), 0, 2)); },
                    [fn = fn](const Inputs& in, tsr_tensor** o) {
                      const int64_t dims[] = {2, 0};
                      return fn(in[0].get(), 2, dims, false, o);
                    },
                    0, 0});
      cs.push_back({name + "/all, keepdim/" + dname(d),
                    [d](Dev dev, Inputs& in) { in.push_back(sliced(on(dev, values_cpu({9, 4}, d, 6.0)), 0, 1, 9, 3)); },
                    [fn = fn](const Inputs& in, tsr_tensor** o) { return fn(in[0].get(), 0, nullptr, true, o); },
                    0, 0});
    }
    cs.push_back({name + "/nan, ties (the backward shares the gradient)",
                  [ties](Dev dev, Inputs& in) {
                    std::vector<double> v = ties;
                    v[7] = NAN;
                    in.push_back(transposed(on(dev, doubles_cpu(v, {4, 3}, TSR_FLOAT64)), 0, 1));
                  },
                  [fn = fn](const Inputs& in, tsr_tensor** o) {
                    const int64_t dims[] = {1};
                    return fn(in[0].get(), 1, dims, true, o);
                  },
                  0, 0});
    cs.push_back({name + "/signed zeros",  // the first of -0 and +0 in C order
                  [ties](Dev dev, Inputs& in) {
                    in.push_back(transposed(on(dev, doubles_cpu(ties, {3, 2, 2}, TSR_FLOAT32)), 0, 2));
                  },
                  [fn = fn](const Inputs& in, tsr_tensor** o) {
                    const int64_t dims[] = {0, 1};
                    return signed_zeros(fn(in[0].get(), 2, dims, false, o), o);
                  },
                  0, 0, false});
    cs.push_back({name + "/0-dim", [](Dev dev, Inputs& in) { in.push_back(leaf(on(dev, values_cpu({}, TSR_FLOAT32)))); },
                  [fn = fn](const Inputs& in, tsr_tensor** o) { return fn(in[0].get(), 0, nullptr, false, o); }, 0,
                  0});
  }
  // ---- min / max over a dim (values, indices) and over everything ---------
  using DimFn = std::function<tsr_status(const tsr_tensor*, int64_t, bool, tsr_tensor**, tsr_tensor**)>;
  for (const auto& [name, fn] :
       std::vector<std::pair<std::string, DimFn>>{{"min_dim", tsr_min_dim}, {"max_dim", tsr_max_dim}}) {
    for (tsr_dtype d : kAll) {
      for (bool indices : {false, true}) {
        cs.push_back({name + (indices ? "/indices/" : "/values/") + dname(d),
                      [d](Dev dev, Inputs& in) { in.push_back(transposed(on(dev, values_cpu({6, 5}, d, 4.0)), 0, 1)); },
                      [fn = fn, indices](const Inputs& in, tsr_tensor** o) {
                        H other;
                        return indices ? fn(in[0].get(), 1, true, &other.h, o) : fn(in[0].get(), -1, false, o, &other.h);
                      },
                      0, 0});
      }
    }
    for (bool indices : {false, true})
      cs.push_back({name + "/nan, ties/" + (indices ? "indices" : "values"),
                    [special](Dev dev, Inputs& in) { in.push_back(leaf(on(dev, doubles_cpu(special, {2, 6}, TSR_FLOAT32)))); },
                    [fn = fn, indices](const Inputs& in, tsr_tensor** o) {
                      H other;
                      return indices ? fn(in[0].get(), 1, false, &other.h, o) : fn(in[0].get(), 0, false, o, &other.h);
                    },
                    0, 0});
    cs.push_back({name + "/0-dim", [](Dev dev, Inputs& in) { in.push_back(leaf(on(dev, values_cpu({}, TSR_FLOAT64)))); },
                  [fn = fn](const Inputs& in, tsr_tensor** o) {
                    H idx;
                    return fn(in[0].get(), 0, false, o, &idx.h);
                  },
                  0, 0});
  }
  // long rows: split over a block (rows of unit stride) or column blocks
  // (rows whose neighbours are adjacent), the ties' first index kept by
  // the combine
  for (const auto& [name, fn] :
       std::vector<std::pair<std::string, DimFn>>{{"min_dim", tsr_min_dim}, {"max_dim", tsr_max_dim}}) {
    for (bool columns : {false, true})
      cs.push_back({name + "/long rows, ties/" + (columns ? "column blocks" : "block per row"),
                    [columns](Dev dev, Inputs& in) {
                      if (columns) in.push_back(transposed(on(dev, values_cpu({200, 3}, TSR_INT8, 4.0)), 0, 1));
                      else in.push_back(leaf(on(dev, values_cpu({3, 200}, TSR_INT8, 4.0))));
                    },
                    [fn = fn](const Inputs& in, tsr_tensor** o) {
                      H values;
                      return fn(in[0].get(), 1, false, &values.h, o);
                    },
                    0, 0});
  }
  for (const auto& [name, fn] : std::vector<std::pair<std::string, Over>>{{"amax", tsr_amax}, {"amin", tsr_amin}})
    cs.push_back({name + "/long rows, nan",
                  [](Dev dev, Inputs& in) {
                    std::vector<double> v(600);
                    for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(0.3 * double(i));
                    v[250] = NAN;
                    in.push_back(leaf(on(dev, doubles_cpu(v, {3, 200}, TSR_FLOAT32))));
                  },
                  [fn = fn](const Inputs& in, tsr_tensor** o) {
                    const int64_t dims[] = {1};
                    return fn(in[0].get(), 1, dims, false, o);
                  },
                  0, 0});
  using Unary = std::function<tsr_status(const tsr_tensor*, tsr_tensor**)>;
  for (const auto& [name, fn] : std::vector<std::pair<std::string, Unary>>{{"min", tsr_min}, {"max", tsr_max}}) {
    for (tsr_dtype d : kAll)
      cs.push_back({name + "/" + dname(d),
                    [d](Dev dev, Inputs& in) { in.push_back(transposed(on(dev, values_cpu({4, 3, 5}, d, 5.0)), 0, 2)); },
                    [fn = fn](const Inputs& in, tsr_tensor** o) { return fn(in[0].get(), o); }, 0, 0});
    // evenly_distribute_backward: the gradient shared among the ties, then
    // among the NaNs
    cs.push_back({name + "/ties", [ties](Dev dev, Inputs& in) { in.push_back(leaf(on(dev, doubles_cpu(ties, {12}, TSR_FLOAT16)))); },
                  [fn = fn](const Inputs& in, tsr_tensor** o) { return fn(in[0].get(), o); }, 0, 0});
    cs.push_back({name + "/nan", [special](Dev dev, Inputs& in) { in.push_back(transposed(on(dev, doubles_cpu(special, {3, 4}, TSR_BFLOAT16)), 0, 1)); },
                  [fn = fn](const Inputs& in, tsr_tensor** o) { return fn(in[0].get(), o); }, 0, 0});
    cs.push_back({name + "/signed zeros", [ties](Dev dev, Inputs& in) { in.push_back(transposed(on(dev, doubles_cpu(ties, {3, 4}, TSR_FLOAT64)), 0, 1)); },
                  [fn = fn](const Inputs& in, tsr_tensor** o) { return signed_zeros(fn(in[0].get(), o), o); }, 0, 0,
                  false});
  }
  // ---- var / std (and their _mean forms), logsumexp, norm ----------------
  using Stat = std::function<tsr_status(const tsr_tensor*, int64_t, const int64_t*, int64_t, bool, tsr_tensor**)>;
  const std::vector<std::pair<std::string, Stat>> stats = {
      {"var", tsr_var},
      {"std", tsr_std},
      {"var_mean/var",
       [](const tsr_tensor* a, int64_t n, const int64_t* d, int64_t c, bool k, tsr_tensor** o) {
         H mean;
         return tsr_var_mean(a, n, d, c, k, o, &mean.h);
       }},
      {"var_mean/mean",
       [](const tsr_tensor* a, int64_t n, const int64_t* d, int64_t c, bool k, tsr_tensor** o) {
         H var;
         return tsr_var_mean(a, n, d, c, k, &var.h, o);
       }},
      {"std_mean/std",
       [](const tsr_tensor* a, int64_t n, const int64_t* d, int64_t c, bool k, tsr_tensor** o) {
         H mean;
         return tsr_std_mean(a, n, d, c, k, o, &mean.h);
       }},
      {"std_mean/mean",
       [](const tsr_tensor* a, int64_t n, const int64_t* d, int64_t c, bool k, tsr_tensor** o) {
         H sd;
         return tsr_std_mean(a, n, d, c, k, &sd.h, o);
       }},
  };
  struct StatArgs {
    std::string what;
    std::vector<int64_t> dims;
    int64_t correction;
    bool keepdim;
  };
  const std::vector<StatArgs> stat_args = {
      {"dims 2,0", {2, 0}, 1, false}, {"dim 1, biased, keepdim", {1}, 0, true}, {"all", {}, 1, false},
      {"correction beyond N", {1}, 5, false}};
  for (const auto& [name, fn] : stats) {
    for (tsr_dtype d : kAll)
      for (const StatArgs& a : stat_args) {
        Case c{name + "/" + a.what + "/" + dname(d),
               [d](Dev dev, Inputs& in) { in.push_back(transposed(on(dev, values_cpu({5, 3, 4}, d, 3.0, 0.5)), 0, 2)); },
               [fn = fn, a](const Inputs& in, tsr_tensor** o) {
                 return fn(in[0].get(), int64_t(a.dims.size()), a.dims.data(), a.correction, a.keepdim, o);
               },
               0, 0};
        c.ulp_factor = 16;
        cs.push_back(c);
      }
    cs.push_back({name + "/empty dim",  // N = 0: NaN
                  [](Dev dev, Inputs& in) { in.push_back(leaf(on(dev, values_cpu({3, 0}, TSR_FLOAT32)))); },
                  [fn = fn](const Inputs& in, tsr_tensor** o) {
                    const int64_t dims[] = {1};
                    return fn(in[0].get(), 1, dims, 1, false, o);
                  },
                  0, 0});
  }
  for (tsr_dtype d : kAll)
    for (bool all : {false, true}) {
      Case c{std::string("logsumexp/") + (all ? "all/" : "dims 0,2/") + dname(d),
             [d](Dev dev, Inputs& in) { in.push_back(transposed(on(dev, values_cpu({4, 3, 5}, d, 4.0)), 1, 2)); },
             [all](const Inputs& in, tsr_tensor** o) {
               const int64_t dims[] = {0, 2};
               return tsr_logsumexp(in[0].get(), all ? 0 : 2, dims, !all, o);
             },
             0, 0};
      c.ulp_factor = 16;
      cs.push_back(c);
    }
  {
    const double inf = INFINITY;
    // rows: all -inf, one +inf, a NaN, finite
    const std::vector<double> v = {-inf, -inf, -inf, 1.0, inf, 2.0, NAN, 0.5, 3.0, -1.0, 2.0, 700.0};
    cs.push_back({"logsumexp/infinite rows",
                  [v](Dev dev, Inputs& in) { in.push_back(leaf(on(dev, doubles_cpu(v, {4, 3}, TSR_FLOAT64)))); },
                  [](const Inputs& in, tsr_tensor** o) {
                    const int64_t dims[] = {1};
                    return tsr_logsumexp(in[0].get(), 1, dims, false, o);
                  },
                  1e-13, 0, false});
    cs.push_back({"logsumexp/empty dim",
                  [](Dev dev, Inputs& in) { in.push_back(leaf(on(dev, values_cpu({2, 0}, TSR_FLOAT32)))); },
                  [](const Inputs& in, tsr_tensor** o) {
                    const int64_t dims[] = {1};
                    return tsr_logsumexp(in[0].get(), 1, dims, true, o);
                  },
                  0, 0});
  }
  for (double p : {2.0, 1.0, 0.0, 3.0, 0.5, double(INFINITY), -double(INFINITY)})
    for (tsr_dtype d : kAll) {
      // zeros in the input: norm's backward masks them for p < 1
      Case c{"norm/p=" + std::to_string(p) + "/" + dname(d),
             [d](Dev dev, Inputs& in) {
               std::vector<double> v(24);
               for (size_t i = 0; i < v.size(); ++i) v[i] = i % 5 == 2 ? 0.0 : 3.0 * std::sin(0.9 * double(i));
               in.push_back(transposed(on(dev, doubles_cpu(v, {4, 6}, d)), 0, 1));
             },
             [p](const Inputs& in, tsr_tensor** o) {
               const int64_t dims[] = {1};
               return tsr_norm(in[0].get(), p, 1, dims, false, o);
             },
             0, 0};
      c.ulp_factor = 16;
      cs.push_back(c);
    }
  for (double p : {2.0, double(INFINITY), -double(INFINITY), 3.0})
    cs.push_back({"norm/all, keepdim, nan, p=" + std::to_string(p),
                  [](Dev dev, Inputs& in) {
                    in.push_back(leaf(on(dev, doubles_cpu({1.0, -2.0, NAN, 0.0, 4.0, -0.5}, {2, 3}, TSR_FLOAT32))));
                  },
                  [p](const Inputs& in, tsr_tensor** o) { return tsr_norm(in[0].get(), p, 0, nullptr, true, o); }, 0,
                  0, false});
  // linalg.vector_norm: norm's kernels, its own node (and, empty, its refusals)
  for (double p : {2.0, double(INFINITY), -double(INFINITY), 0.5})
    for (int64_t dim : {0, 1}) {
      Case c{"linalg_vector_norm/dim " + std::to_string(dim) + ", p=" + std::to_string(p),
             [](Dev dev, Inputs& in) {
               in.push_back(leaf(on(dev, doubles_cpu({1.0, -2.0, 3.5, 0.25, 4.0, -0.5}, {2, 3}, TSR_FLOAT32))));
               Input empty;  // no gradient: only its refusal (or its empty result) counts
               empty.leaf = H(on(dev, values_cpu({3, 0}, TSR_FLOAT32)));
               in.push_back(std::move(empty));
             },
             [p, dim](const Inputs& in, tsr_tensor** o) {
               const int64_t dims[] = {dim};
               tsr_tensor* empty_norm = nullptr;
               const tsr_status s = tsr_linalg_vector_norm(in[1].get(), p, 1, dims, false, &empty_norm);
               tsr_tensor_release(empty_norm);
               if (s != TSR_OK) return s;
               return tsr_linalg_vector_norm(in[0].get(), p, 1, dims, true, o);
             },
             0, 0};
      c.ulp_factor = 16;
      cs.push_back(c);
    }
  for (double p : {double(INFINITY), -double(INFINITY), 2.0})
    cs.push_back({"norm/empty dim, p=" + std::to_string(p),
                  [](Dev dev, Inputs& in) { in.push_back(leaf(on(dev, values_cpu({3, 0}, TSR_FLOAT32)))); },
                  [p](const Inputs& in, tsr_tensor** o) {
                    const int64_t dims[] = {1};
                    return tsr_norm(in[0].get(), p, 1, dims, false, o);
                  },
                  0, 0});
  // ---- cumsum / cumprod / prod: one thread per line, the CPU's order -----
  using ScanFnC = std::function<tsr_status(const tsr_tensor*, int64_t, const tsr_dtype*, tsr_tensor**)>;
  for (const auto& [name, fn] :
       std::vector<std::pair<std::string, ScanFnC>>{{"cumsum", tsr_cumsum}, {"cumprod", tsr_cumprod}}) {
    for (tsr_dtype d : kAll)
      for (int64_t dim : {0, 1, -1})
        cs.push_back({name + "/dim " + std::to_string(dim) + "/" + dname(d),
                      [d](Dev dev, Inputs& in) { in.push_back(transposed(on(dev, values_cpu({3, 5, 4}, d, 2.0, 0.3)), 0, 2)); },
                      [fn = fn, dim](const Inputs& in, tsr_tensor** o) { return fn(in[0].get(), dim, nullptr, o); }, 0,
                      0});
    for (tsr_dtype d : {TSR_INT8, TSR_FLOAT32, TSR_FLOAT64})  // the dtype argument: converted first
      for (tsr_dtype r : {TSR_FLOAT32, TSR_FLOAT64, TSR_INT16, TSR_BOOL})
        cs.push_back({name + "/" + dname(d) + " as " + (r == TSR_INT16 ? "int16" : dname(r)),
                      [d](Dev dev, Inputs& in) { in.push_back(sliced(on(dev, values_cpu({4, 9}, d, 3.0)), 1, 1, 9, 2)); },
                      [fn = fn, r](const Inputs& in, tsr_tensor** o) { return fn(in[0].get(), 1, &r, o); }, 0, 0});
    // zeros: cumprod's backward before, at and after a line's first zero
    cs.push_back({name + "/zeros",
                  [](Dev dev, Inputs& in) {
                    in.push_back(transposed(
                        on(dev, doubles_cpu({1.5, 0.0, 2.0, -1.0, 0.0, 3.0, 0.5, 2.0, 0.0, 0.0, 1.0, -2.0, 4.0, 1.0, 0.5},
                                            {5, 3}, TSR_FLOAT64)),
                        0, 1));
                  },
                  [fn = fn](const Inputs& in, tsr_tensor** o) { return fn(in[0].get(), 1, nullptr, o); }, 0, 0});
    cs.push_back({name + "/long lines", [](Dev dev, Inputs& in) { in.push_back(leaf(on(dev, values_cpu({2, 150}, TSR_FLOAT32, 1.0, 1.0)))); },
                  [fn = fn](const Inputs& in, tsr_tensor** o) { return fn(in[0].get(), 1, nullptr, o); }, 0, 0});
    cs.push_back({name + "/0-dim", [](Dev dev, Inputs& in) { in.push_back(leaf(on(dev, values_cpu({}, TSR_FLOAT32)))); },
                  [fn = fn](const Inputs& in, tsr_tensor** o) { return fn(in[0].get(), -1, nullptr, o); }, 0, 0});
    cs.push_back({name + "/empty", [](Dev dev, Inputs& in) { in.push_back(leaf(on(dev, values_cpu({3, 0}, TSR_FLOAT32)))); },
                  [fn = fn](const Inputs& in, tsr_tensor** o) { return fn(in[0].get(), 0, nullptr, o); }, 0, 0});
    Case ex{name + "/expanded",
            [](Dev dev, Inputs& in) { in.push_back(expanded(on(dev, values_cpu({1, 4}, TSR_FLOAT32)), {3, 4})); },
            [fn = fn](const Inputs& in, tsr_tensor** o) { return fn(in[0].get(), 0, nullptr, o); }, 0, 0};
    ex.ulp_factor = 4;  // exact forward; the gradient is summed over the expanded dim, in another order
    cs.push_back(ex);
  }
  for (tsr_dtype d : kAll) {
    for (int64_t dim : {0, 2})
      for (bool keepdim : {false, true})
        cs.push_back({"prod_dim/dim " + std::to_string(dim) + (keepdim ? ", keepdim/" : "/") + dname(d),
                      [d](Dev dev, Inputs& in) { in.push_back(transposed(on(dev, values_cpu({3, 5, 4}, d, 2.0, 0.3)), 0, 1)); },
                      [dim, keepdim](const Inputs& in, tsr_tensor** o) {
                        return tsr_prod_dim(in[0].get(), dim, keepdim, nullptr, o);
                      },
                      0, 0});
    cs.push_back({std::string("prod/") + dname(d),
                  [d](Dev dev, Inputs& in) { in.push_back(transposed(on(dev, values_cpu({3, 4}, d, 2.0, 0.5)), 0, 1)); },
                  [](const Inputs& in, tsr_tensor** o) { return tsr_prod(in[0].get(), nullptr, o); }, 0, 0});
  }
  // zeros: none, one and two per line (prod's backward cases)
  for (bool all : {false, true})
    cs.push_back({std::string("prod/zeros") + (all ? ", all" : ""),
                  [all](Dev dev, Inputs& in) {
                    std::vector<double> v = {1.5, 0.0, 2.0, -1.0, 0.5, 3.0, 0.5, 2.0, 0.0, 0.0, 1.0, -2.0};
                    if (all) v = {1.5, 2.0, 0.0, -1.0, 0.5, 3.0};
                    in.push_back(transposed(on(dev, doubles_cpu(v, {int64_t(v.size()) / 3, 3}, TSR_FLOAT32)), 0, 1));
                  },
                  [all](const Inputs& in, tsr_tensor** o) {
                    return all ? tsr_prod(in[0].get(), nullptr, o) : tsr_prod_dim(in[0].get(), 1, false, nullptr, o);
                  },
                  0, 0});
  {
    const tsr_dtype f64 = TSR_FLOAT64, i16 = TSR_INT16;
    cs.push_back({"prod/float32 as float64",
                  [](Dev dev, Inputs& in) { in.push_back(leaf(on(dev, values_cpu({7}, TSR_FLOAT32, 2.0, 0.3)))); },
                  [f64](const Inputs& in, tsr_tensor** o) { return tsr_prod(in[0].get(), &f64, o); }, 0, 0});
    cs.push_back({"prod_dim/int64 as int16 (wraps)",
                  [](Dev dev, Inputs& in) { in.push_back(leaf(on(dev, ints_cpu({300, 200, 7, -9, 1000, 3}, {2, 3})))); },
                  [i16](const Inputs& in, tsr_tensor** o) { return tsr_prod_dim(in[0].get(), 1, false, &i16, o); }, 0, 0});
  }
  cs.push_back({"prod/empty", [](Dev dev, Inputs& in) { in.push_back(leaf(on(dev, values_cpu({0, 3}, TSR_FLOAT32)))); },
                [](const Inputs& in, tsr_tensor** o) { return tsr_prod(in[0].get(), nullptr, o); }, 0, 0});
  cs.push_back({"prod_dim/empty dim", [](Dev dev, Inputs& in) { in.push_back(leaf(on(dev, values_cpu({0, 3}, TSR_FLOAT32)))); },
                [](const Inputs& in, tsr_tensor** o) { return tsr_prod_dim(in[0].get(), 0, true, nullptr, o); }, 0, 0});
  cs.push_back({"prod_dim/0-dim", [](Dev dev, Inputs& in) { in.push_back(leaf(on(dev, values_cpu({}, TSR_FLOAT64)))); },
                [](const Inputs& in, tsr_tensor** o) { return tsr_prod_dim(in[0].get(), -1, false, nullptr, o); }, 0, 0});
  cs.push_back({"prod/long", [](Dev dev, Inputs& in) { in.push_back(leaf(on(dev, values_cpu({130}, TSR_FLOAT32, 0.3, 1.0)))); },
                [](const Inputs& in, tsr_tensor** o) { return tsr_prod(in[0].get(), nullptr, o); }, 0, 0});
  // ---- any / all: uint8 stays uint8, NaN is true, empty slices ----------
  for (bool is_all : {false, true}) {
    const std::string name = is_all ? "all" : "any";
    // rows: zeros only, a NaN among zeros, mixed, no zero
    const std::vector<double> v = {0, 0, 0, 0, NAN, 0, 0, 2, -1, 3, 1, 0.5};
    for (tsr_dtype d : {TSR_FLOAT32, TSR_FLOAT16, TSR_FLOAT64, TSR_INT64, TSR_INT8, TSR_UINT8, TSR_BOOL, TSR_UINT16})
      for (int64_t dim : {-1, 0, 99}) {  // 99: over everything
        cs.push_back({name + (dim == 99 ? "/all dims/" : "/dim " + std::to_string(dim) + "/") +
                          (d == TSR_UINT16 ? "uint16" : dname(d)),
                      [v, d](Dev dev, Inputs& in) {
                        std::vector<double> w = v;
                        if (!is_float(d)) w[4] = 0;  // NaN only where it exists
                        if (d == TSR_UINT16 || d == TSR_UINT8) w[8] = 1;
                        in.push_back(transposed(on(dev, doubles_cpu(w, {3, 4}, d)), 0, 1));
                      },
                      [dim, is_all](const Inputs& in, tsr_tensor** o) {
                        if (dim == 99) return is_all ? tsr_all(in[0].get(), o) : tsr_any(in[0].get(), o);
                        return is_all ? tsr_all_dim(in[0].get(), dim, dim == 0, o) : tsr_any_dim(in[0].get(), dim, false, o);
                      },
                      0, 0, false});
      }
    cs.push_back({name + "/empty",
                  [](Dev dev, Inputs& in) { in.push_back(leaf(on(dev, values_cpu({2, 0}, TSR_FLOAT32)))); },
                  [is_all](const Inputs& in, tsr_tensor** o) {
                    return is_all ? tsr_all_dim(in[0].get(), 1, false, o) : tsr_any_dim(in[0].get(), 1, true, o);
                  },
                  0, 0, false});
  }
  for (const auto& [name, fn] : std::vector<std::pair<std::string, DimFn>>{
           {"argmin", [](const tsr_tensor* a, int64_t d, bool k, tsr_tensor** o, tsr_tensor**) { return tsr_argmin(a, d, k, o); }},
           {"argmax", [](const tsr_tensor* a, int64_t d, bool k, tsr_tensor** o, tsr_tensor**) { return tsr_argmax(a, d, k, o); }}})
    for (tsr_dtype d : {TSR_FLOAT32, TSR_INT8, TSR_BOOL})
      cs.push_back({name + "/" + dname(d),
                    [d](Dev dev, Inputs& in) { in.push_back(transposed(on(dev, values_cpu({6, 5}, d, 4.0)), 0, 1)); },
                    [fn = fn](const Inputs& in, tsr_tensor** o) { return fn(in[0].get(), 0, true, o, nullptr); }, 0,
                    0});
}

// Values with ties, NaN, -0 and +0 and infinities (sorting's corner
// cases), cycled over sizes, in dtype; integers and bool get small
// integers with ties instead.
tsr_tensor* tied_cpu(std::vector<int64_t> sizes, tsr_dtype dtype) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  if (!is_float(dtype)) {
    const int64_t pattern[] = {3, -1, 3, 0, 7, -1, 2, 3, 1, 0, -5, 2, 9};
    std::vector<int64_t> v(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) v[size_t(i)] = pattern[i % 13] + (i / 13) % 3;
    return ints_cpu(v, sizes, dtype);
  }
  const double pattern[] = {1.5, NAN, -0.0, 0.0, -2.0, 1.5, INFINITY, -INFINITY, 3.0, 1.5, NAN, -1.0, 0.0};
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[size_t(i)] = i % 2 ? pattern[i % 13] : std::sin(0.3 * double(i));
  tsr_tensor* d = nullptr;
  ok(tsr_from_data(v.data(), v.size() * sizeof(double), int64_t(sizes.size()), sizes.data(), TSR_FLOAT64, &d), d);
  if (dtype == TSR_FLOAT64) return d;
  tsr_tensor* out = nullptr;
  const tsr_status st = tsr_to_dtype(d, dtype, &out);
  tsr_tensor_release(d);
  return ok(st, out);
}

// A two-output op's values (which = 0) or indices (1), the other released.
using TwoOutputs = std::function<tsr_status(const tsr_tensor*, tsr_tensor**, tsr_tensor**)>;
RunOp output_of(TwoOutputs fn, int which) {
  return [fn, which](const Inputs& in, tsr_tensor** o) {
    H other;
    return which == 0 ? fn(in[0].get(), o, &other.h) : fn(in[0].get(), &other.h, o);
  };
}

// ---- bmm/baddbmm, softplus, losses, sort/topk/kthvalue (issue 32, the
// cuda-sort-loss family) ------------------------------------------------------
void sort_loss_cases(std::vector<Case>& cs) {
  // bmm: a transposed batch1, a sliced batch2; float16/bfloat16 sum in
  // float on both devices (rounded once), in another order.
  for (tsr_dtype d : kFloats) {
    Case bmm{std::string("bmm/") + dname(d),
             [d](Dev dev, Inputs& in) {
               in.push_back(transposed(on(dev, values_cpu({3, 5, 4}, d)), 1, 2));  // [3, 4, 5]
               in.push_back(sliced(on(dev, values_cpu({3, 5, 4}, d, 1.0)), 2, 0, 4, 2));  // [3, 5, 2]
             },
             [](const Inputs& in, tsr_tensor** o) { return tsr_bmm(in[0].get(), in[1].get(), o); }, 0, 0};
    bmm.ulp_factor = 16;
    cs.push_back(bmm);
    for (double beta : {0.0, 1.0, -0.5}) {
      Case ab{std::string("baddbmm/beta ") + std::to_string(beta) + "/" + dname(d),
              [d](Dev dev, Inputs& in) {
                in.push_back(expanded(on(dev, values_cpu({1, 2}, d, 1.0, 0.5)), {3, 4, 2}));  // broadcast input
                in.push_back(leaf(on(dev, values_cpu({3, 4, 5}, d))));
                in.push_back(transposed(on(dev, values_cpu({3, 2, 5}, d, 1.5)), 1, 2));  // [3, 5, 2]
              },
              [beta](const Inputs& in, tsr_tensor** o) {
                return tsr_baddbmm(in[0].get(), in[1].get(), in[2].get(), beta, 0.75, o);
              },
              0, 0};
      ab.ulp_factor = 16;
      cs.push_back(ab);
    }
  }
  cs.push_back({"baddbmm/beta 0 ignores NaN input, k = 0",
                [](Dev dev, Inputs& in) {
                  in.push_back(leaf(on(dev, values_cpu({2, 3, 4}, TSR_FLOAT32, NAN))));
                  in.push_back(leaf(on(dev, values_cpu({2, 3, 0}, TSR_FLOAT32))));
                  in.push_back(leaf(on(dev, values_cpu({2, 0, 4}, TSR_FLOAT32))));
                },
                [](const Inputs& in, tsr_tensor** o) {
                  return tsr_baddbmm(in[0].get(), in[1].get(), in[2].get(), 0.0, 2.0, o);
                },
                0, 0, false});
  cs.push_back({"baddbmm/k = 0 scales input, float64 input into float32",
                [](Dev dev, Inputs& in) {
                  in.push_back(leaf(on(dev, values_cpu({3, 4}, TSR_FLOAT64))));
                  in.push_back(leaf(on(dev, values_cpu({2, 3, 0}, TSR_FLOAT32))));
                  in.push_back(leaf(on(dev, values_cpu({2, 0, 4}, TSR_FLOAT32))));
                },
                [](const Inputs& in, tsr_tensor** o) {
                  return tsr_baddbmm(in[0].get(), in[1].get(), in[2].get(), 0.5, 2.0, o);
                },
                1e-6, 0, false});
  cs.push_back({"bmm/empty batch",
                [](Dev dev, Inputs& in) {
                  in.push_back(leaf(on(dev, values_cpu({0, 3, 2}, TSR_FLOAT32))));
                  in.push_back(leaf(on(dev, values_cpu({0, 2, 4}, TSR_FLOAT32))));
                },
                [](const Inputs& in, tsr_tensor** o) { return tsr_bmm(in[0].get(), in[1].get(), o); }, 0, 0});
  cs.push_back({"bmm/int64 refused as on the CPU",
                [](Dev dev, Inputs& in) {
                  in.push_back(leaf(on(dev, ints_cpu({1, 2, 3, 4}, {1, 2, 2}))));
                  in.push_back(leaf(on(dev, ints_cpu({1, 2, 3, 4}, {1, 2, 2}))));
                },
                [](const Inputs& in, tsr_tensor** o) { return tsr_bmm(in[0].get(), in[1].get(), o); }, 0, 0});
  // softplus: both branches of the threshold, beta != 1; integers refused.
  for (tsr_dtype d : kAll) {
    for (double beta : {1.0, 2.5}) {
      Case sp{std::string("softplus/beta ") + std::to_string(beta) + "/" + dname(d),
              [d](Dev dev, Inputs& in) { in.push_back(transposed(on(dev, values_cpu({5, 6}, d, 12.0, 1.0)), 0, 1)); },
              [beta](const Inputs& in, tsr_tensor** o) { return tsr_softplus(in[0].get(), beta, 8.0, o); }, 0, 0};
      sp.ulp_factor = 4;
      cs.push_back(sp);
    }
  }
  // The pointwise losses: every reduction, a broadcast target (expanded),
  // a transposed input; float16/bfloat16 where the CPU takes them.
  using Loss = std::function<tsr_status(const tsr_tensor*, const tsr_tensor*, tsr_loss_reduction, tsr_tensor**)>;
  const std::vector<std::pair<std::string, Loss>> losses = {
      {"mse_loss", tsr_mse_loss},
      {"l1_loss", tsr_l1_loss},
      {"smooth_l1_loss", [](const tsr_tensor* x, const tsr_tensor* y, tsr_loss_reduction r,
                            tsr_tensor** o) { return tsr_smooth_l1_loss(x, y, r, 0.75, o); }},
      {"smooth_l1_loss beta 0", [](const tsr_tensor* x, const tsr_tensor* y, tsr_loss_reduction r,
                                   tsr_tensor** o) { return tsr_smooth_l1_loss(x, y, r, 0.0, o); }},
      {"huber_loss", [](const tsr_tensor* x, const tsr_tensor* y, tsr_loss_reduction r, tsr_tensor** o) {
         return tsr_huber_loss(x, y, r, 0.6, o);
       }},
      {"kl_div", [](const tsr_tensor* x, const tsr_tensor* y, tsr_loss_reduction r, tsr_tensor** o) {
         return tsr_kl_div(x, y, r, false, o);
       }},
      {"kl_div log_target", [](const tsr_tensor* x, const tsr_tensor* y, tsr_loss_reduction r, tsr_tensor** o) {
         return tsr_kl_div(x, y, r, true, o);
       }},
  };
  for (const auto& [name, fn] : losses)
    for (tsr_dtype d : kFloats)
      for (tsr_loss_reduction r : {TSR_REDUCTION_NONE, TSR_REDUCTION_MEAN, TSR_REDUCTION_SUM}) {
        Case c{name + "/" + dname(d) + "/reduction " + std::to_string(int(r)),
               [d](Dev dev, Inputs& in) {
                 in.push_back(transposed(on(dev, values_cpu({6, 4}, d, 2.0)), 0, 1));  // [4, 6]
                 in.push_back(expanded(on(dev, values_cpu({1, 6}, d, 1.5, 0.5)), {4, 6}));
               },
               [fn = fn, r](const Inputs& in, tsr_tensor** o) { return fn(in[0].get(), in[1].get(), r, o); }, 0, 0};
        c.ulp_factor = 16;
        cs.push_back(c);
      }
  cs.push_back({"mse_loss/float32 input, float64 target (promoted)",
                [](Dev dev, Inputs& in) {
                  in.push_back(leaf(on(dev, values_cpu({3, 4}, TSR_FLOAT32))));
                  in.push_back(leaf(on(dev, values_cpu({4}, TSR_FLOAT64, 1.0))));
                },
                [](const Inputs& in, tsr_tensor** o) { return tsr_mse_loss(in[0].get(), in[1].get(), TSR_REDUCTION_MEAN, o); },
                1e-13, 1e-13});
  cs.push_back({"mse_loss/empty, mean is NaN",
                [](Dev dev, Inputs& in) {
                  in.push_back(leaf(on(dev, values_cpu({0, 3}, TSR_FLOAT32))));
                  in.push_back(leaf(on(dev, values_cpu({0, 3}, TSR_FLOAT32))));
                },
                [](const Inputs& in, tsr_tensor** o) { return tsr_mse_loss(in[0].get(), in[1].get(), TSR_REDUCTION_MEAN, o); },
                0, 0});
  // binary_cross_entropy: probabilities in (0, 1) plus exact 0 and 1 (the
  // -100 clamp), a weight broadcast along rows.
  for (tsr_dtype d : kFloats)
    for (tsr_loss_reduction r : {TSR_REDUCTION_NONE, TSR_REDUCTION_MEAN, TSR_REDUCTION_SUM})
      for (bool weighted : {false, true}) {
        Case c{std::string("binary_cross_entropy/") + dname(d) + "/reduction " + std::to_string(int(r)) +
                   (weighted ? "/weight" : ""),
               [d, weighted](Dev dev, Inputs& in) {
                 tsr_tensor* x = nullptr;
                 tsr_tensor* v = values_cpu({5, 4}, TSR_FLOAT64, 0.45, 0.5);
                 const double lo = 0.0, hi = 1.0;  // a few exact 0s and 1s
                 tsr_tensor* w = nullptr;
                 ok(tsr_mul_scalar(v, 1.2, &w), w);
                 ok(tsr_clamp(w, &lo, &hi, &x), x);
                 tsr_tensor_release(v);
                 tsr_tensor_release(w);
                 tsr_tensor* xd = nullptr;
                 ok(tsr_to_dtype(x, d, &xd), xd);
                 tsr_tensor_release(x);
                 in.push_back(transposed(on(dev, xd), 0, 1));  // [4, 5]
                 in.push_back(leaf(on(dev, values_cpu({4, 5}, d, 0.5, 0.5))));
                 if (weighted) in.push_back(leaf(on(dev, values_cpu({5}, d, 1.0, 1.5))));
               },
               [r, weighted](const Inputs& in, tsr_tensor** o) {
                 return tsr_binary_cross_entropy(in[0].get(), in[1].get(), weighted ? in[2].get() : nullptr, r, o);
               },
               0, 0};
        c.ulp_factor = 16;
        cs.push_back(c);
      }
  for (tsr_dtype d : kFloats)
    for (tsr_loss_reduction r : {TSR_REDUCTION_NONE, TSR_REDUCTION_MEAN, TSR_REDUCTION_SUM})
      for (int variant = 0; variant < 3; ++variant) {  // plain, weight, weight + pos_weight
        Case c{std::string("binary_cross_entropy_with_logits/") + dname(d) + "/reduction " + std::to_string(int(r)) +
                   "/variant " + std::to_string(variant),
               [d, variant](Dev dev, Inputs& in) {
                 in.push_back(transposed(on(dev, values_cpu({5, 4}, d, 6.0)), 0, 1));  // [4, 5]
                 in.push_back(leaf(on(dev, values_cpu({4, 5}, d, 0.5, 0.5))));
                 if (variant >= 1) in.push_back(expanded(on(dev, values_cpu({4, 1}, d, 1.0, 1.5)), {4, 5}));
                 if (variant >= 2) in.push_back(leaf(on(dev, values_cpu({5}, d, 1.0, 2.0))));
               },
               [r, variant](const Inputs& in, tsr_tensor** o) {
                 return tsr_binary_cross_entropy_with_logits(in[0].get(), in[1].get(),
                                                             variant >= 1 ? in[2].get() : nullptr,
                                                             variant >= 2 ? in[3].get() : nullptr, r, o);
               },
               0, 0};
        c.ulp_factor = 16;
        cs.push_back(c);
      }
  // nll_loss beyond [N, C]: class weights, ignore_index (some targets
  // ignored), every reduction, [C], [N, C], [N, C, L] (run as 4-D) and
  // [N, C, H, W] with a transposed input.
  struct NllShape {
    const char* name;
    std::vector<int64_t> input, target;
    std::vector<int64_t> targets;  // values, ignore_index -1 among them
  };
  const std::vector<NllShape> nll_shapes = {
      {"[C]", {5}, {}, {3}},
      {"[C] ignored", {5}, {}, {-1}},
      {"[N, C]", {4, 5}, {4}, {4, -1, 0, 2}},
      {"[N, C, L]", {2, 4, 3}, {2, 3}, {3, 0, -1, 1, 1, 2}},
      {"[N, C, H, W]", {2, 3, 2, 2}, {2, 2, 2}, {2, 0, 1, -1, 0, 0, 2, 1}},
  };
  for (const NllShape& sh : nll_shapes)
    for (tsr_dtype d : kFloats)
      for (tsr_loss_reduction r : {TSR_REDUCTION_NONE, TSR_REDUCTION_MEAN, TSR_REDUCTION_SUM})
        for (bool weighted : {false, true}) {
          Case c{std::string("nll_loss/") + sh.name + "/" + dname(d) + "/reduction " + std::to_string(int(r)) +
                     (weighted ? "/weight" : ""),
                 [d, sh, weighted](Dev dev, Inputs& in) {
                   const int64_t classes = sh.input.size() == 1 ? sh.input[0] : sh.input[1];
                   if (sh.input.size() == 4) {  // a transposed [N, C, W, H] seen as [N, C, H, W]
                     in.push_back(transposed(
                         on(dev, values_cpu({sh.input[0], sh.input[1], sh.input[3], sh.input[2]}, d, 3.0, -2.0)), 2, 3));
                   } else {
                     in.push_back(leaf(on(dev, values_cpu(sh.input, d, 3.0, -2.0))));
                   }
                   in.push_back(leaf(on(dev, ints_cpu(sh.targets, sh.target))));
                   if (weighted) in.push_back(Input{H(on(dev, values_cpu({classes}, d, 1.0, 1.5))), H()});  // no grad
                 },
                 [r, weighted](const Inputs& in, tsr_tensor** o) {
                   return tsr_nll_loss(in[0].get(), in[1].get(), weighted ? in[2].get() : nullptr, r, -1, o);
                 },
                 0, 0};
          c.ulp_factor = 16;
          cs.push_back(c);
        }
  // cross_entropy with class indices: label smoothing, weights, ignore_index.
  for (tsr_dtype d : {TSR_FLOAT32, TSR_FLOAT64})
    for (tsr_loss_reduction r : {TSR_REDUCTION_NONE, TSR_REDUCTION_MEAN, TSR_REDUCTION_SUM})
      for (bool weighted : {false, true}) {
        Case c{std::string("cross_entropy_loss/label smoothing/") + dname(d) + "/reduction " + std::to_string(int(r)) +
                   (weighted ? "/weight" : ""),
               [d, weighted](Dev dev, Inputs& in) {
                 in.push_back(leaf(on(dev, values_cpu({3, 4, 2}, d, 3.0))));
                 in.push_back(leaf(on(dev, ints_cpu({1, 3, 7, 0, 2, 7}, {3, 2}))));
                 if (weighted) in.push_back(Input{H(on(dev, values_cpu({4}, d, 0.5, 1.0))), H()});  // no grad
               },
               [r, weighted](const Inputs& in, tsr_tensor** o) {
                 return tsr_cross_entropy_loss(in[0].get(), in[1].get(), weighted ? in[2].get() : nullptr, r, 7, 0.2, o);
               },
               0, 0};
        c.ulp_factor = 16;
        cs.push_back(c);
      }
  cs.push_back({"nll_loss/empty batch, mean is NaN",
                [](Dev dev, Inputs& in) {
                  in.push_back(leaf(on(dev, values_cpu({0, 3}, TSR_FLOAT32))));
                  in.push_back(leaf(on(dev, ints_cpu({}, {0}))));
                },
                [](const Inputs& in, tsr_tensor** o) {
                  return tsr_nll_loss(in[0].get(), in[1].get(), nullptr, TSR_REDUCTION_MEAN, -100, o);
                },
                0, 0});
  // sort, topk, kthvalue: values (and their gradient, scattered back) and
  // indices, exact; ties, NaN, -0/+0 and infinities in every dtype; a
  // transposed input, both directions, both dims.
  for (tsr_dtype d : kAll)
    for (int which : {0, 1}) {
      const std::string what = which ? "/indices/" : "/values/";
      for (bool descending : {false, true})
        for (int64_t dim : {0, -1}) {
          cs.push_back({std::string("sort") + what + (descending ? "descending/" : "ascending/") + "dim " +
                            std::to_string(dim) + "/" + dname(d),
                        [d](Dev dev, Inputs& in) { in.push_back(transposed(on(dev, tied_cpu({9, 6}, d)), 0, 1)); },
                        output_of(
                            [descending, dim](const tsr_tensor* x, tsr_tensor** v, tsr_tensor** i) {
                              return tsr_sort(x, dim, descending, true, v, i);
                            },
                            which),
                        0, 0});
        }
      for (bool largest : {true, false})
        cs.push_back({std::string("topk") + what + (largest ? "largest/" : "smallest/") + dname(d),
                      [d](Dev dev, Inputs& in) { in.push_back(transposed(on(dev, tied_cpu({7, 4}, d)), 0, 1)); },
                      output_of(
                          [largest](const tsr_tensor* x, tsr_tensor** v, tsr_tensor** i) {
                            return tsr_topk(x, 3, 1, largest, v, i);
                          },
                          which),
                      0, 0});
      for (bool keepdim : {false, true})
        cs.push_back({std::string("kthvalue") + what + (keepdim ? "keepdim/" : "") + dname(d),
                      [d](Dev dev, Inputs& in) { in.push_back(sliced(on(dev, tied_cpu({4, 13}, d)), 1, 1, 13, 2)); },
                      output_of(
                          [keepdim](const tsr_tensor* x, tsr_tensor** v, tsr_tensor** i) {
                            return tsr_kthvalue(x, 4, 1, keepdim, v, i);
                          },
                          which),
                      0, 0});
    }
  for (int which : {0, 1}) {
    const std::string what = which ? "/indices" : "/values";
    cs.push_back({"sort/long rows" + what,
                  [](Dev dev, Inputs& in) { in.push_back(leaf(on(dev, tied_cpu({2, 300}, TSR_FLOAT32)))); },
                  output_of([](const tsr_tensor* x, tsr_tensor** v,
                               tsr_tensor** i) { return tsr_sort(x, 1, true, false, v, i); },
                            which),
                  0, 0});
    cs.push_back({"sort/0-dim" + what, [](Dev dev, Inputs& in) { in.push_back(leaf(on(dev, values_cpu({}, TSR_FLOAT32)))); },
                  output_of([](const tsr_tensor* x, tsr_tensor** v,
                               tsr_tensor** i) { return tsr_sort(x, 0, false, false, v, i); },
                            which),
                  0, 0});
    cs.push_back({"sort/empty" + what, [](Dev dev, Inputs& in) { in.push_back(leaf(on(dev, values_cpu({3, 0}, TSR_FLOAT32)))); },
                  output_of([](const tsr_tensor* x, tsr_tensor** v,
                               tsr_tensor** i) { return tsr_sort(x, 0, false, false, v, i); },
                            which),
                  0, 0});
    cs.push_back({"topk/k 0" + what, [](Dev dev, Inputs& in) { in.push_back(leaf(on(dev, values_cpu({3, 4}, TSR_FLOAT64)))); },
                  output_of([](const tsr_tensor* x, tsr_tensor** v,
                               tsr_tensor** i) { return tsr_topk(x, 0, 1, true, v, i); },
                            which),
                  0, 0});
    cs.push_back({"kthvalue/0-dim" + what,
                  [](Dev dev, Inputs& in) { in.push_back(leaf(on(dev, values_cpu({}, TSR_FLOAT64)))); },
                  output_of([](const tsr_tensor* x, tsr_tensor** v,
                               tsr_tensor** i) { return tsr_kthvalue(x, 1, 0, false, v, i); },
                            which),
                  0, 0});
  }
  // cross_entropy with class probabilities: mean divides by N (loss's div).
  for (tsr_dtype d : {TSR_FLOAT32, TSR_FLOAT64}) {
    Case c{std::string("cross_entropy_loss/probabilities/") + dname(d),
           [d](Dev dev, Inputs& in) {
             in.push_back(leaf(on(dev, values_cpu({3, 5, 2}, d, 3.0))));
             in.push_back(leaf(on(dev, values_cpu({3, 5, 2}, d, 0.5, 0.5))));
           },
           [](const Inputs& in, tsr_tensor** o) {
             return tsr_cross_entropy_loss(in[0].get(), in[1].get(), nullptr, TSR_REDUCTION_MEAN, -100, 0.0, o);
           },
           0, 0};
    c.ulp_factor = 16;
    cs.push_back(c);
  }
}

// ---- the scatter / index family (masked_fill, masked_select, flip, nonzero,
// scatter*, index_add/copy/fill, index, index_put): every result exact, as
// the device walks each output column in the CPU's order --------------------

// A bool mask of sizes: sin-valued positions above shift.
tsr_tensor* mask_cpu(std::vector<int64_t> sizes, double shift = 0.0) {
  H v(values_cpu(sizes, TSR_FLOAT32, 1.0, -shift));
  H z(values_cpu({}, TSR_FLOAT32, 0.0));
  tsr_tensor* m = nullptr;
  ok(tsr_gt(v.h, z.h, &m), m);  // (ok's second argument may be read before the call fills m)
  return m;
}

// The op in place on a differentiable clone of input 0 (so the leaf still
// gets a gradient through it); the clone is the result. Its version must
// move by one, as torch's in-place ops bump it.
using InPlace = std::function<tsr_status(tsr_tensor*, const Inputs&)>;
RunOp on_clone(InPlace op) {
  return [op](const Inputs& in, tsr_tensor** o) {
    tsr_tensor* c = nullptr;
    tsr_status s = tsr_clone(in[0].get(), TSR_PRESERVE_FORMAT, &c);
    if (s != TSR_OK) return s;
    const int64_t v0 = tsr_version(c);
    s = op(c, in);
    if (s != TSR_OK) {
      tsr_tensor_release(c);
      return s;
    }
    EXPECT_EQ(tsr_version(c), v0 + 1) << "an in-place op's version bump";
    *o = c;
    return TSR_OK;
  };
}

void add_index_family_cases(std::vector<Case>& cs) {
  // ---- masked_fill(_) ---------------------------------------------------------
  for (tsr_dtype d : kAll) {
    cs.push_back({std::string("masked_fill/") + dname(d),
                  [d](Dev dev, Inputs& in) {
                    in.push_back(transposed(on(dev, values_cpu({3, 4}, d, 5.0)), 0, 1));  // [4, 3]
                    in.push_back(leaf(on(dev, mask_cpu({3}))));                             // broadcast
                  },
                  [](const Inputs& in, tsr_tensor** o) { return tsr_masked_fill(in[0].get(), in[1].get(), 1.7, o); },
                  0, 0});
    cs.push_back({std::string("masked_fill_/") + dname(d),
                  [d](Dev dev, Inputs& in) {
                    in.push_back(leaf(on(dev, values_cpu({4, 5}, d, 5.0))));
                    in.push_back(transposed(on(dev, ints_cpu({1, 0, 2, 0, 0, 1, 1, 0, 0, 0, 3, 1, 0, 1, 0, 0, 1, 0, 0, 9},
                                                             {5, 4}, TSR_UINT8)),
                                            0, 1));  // a uint8 mask, transposed
                  },
                  on_clone([](tsr_tensor* c, const Inputs& in) { return tsr_masked_fill_(c, in[1].get(), -2.5); }), 0,
                  0});
  }
  for (tsr_dtype d : kFloats)
    cs.push_back({std::string("masked_fill/tensor value/") + dname(d),
                  [d](Dev dev, Inputs& in) {
                    in.push_back(expanded(on(dev, values_cpu({1, 5}, d, 5.0)), {3, 5}));
                    in.push_back(leaf(on(dev, mask_cpu({3, 5}, 0.2))));
                    in.push_back(leaf(on(dev, values_cpu({}, TSR_FLOAT64, 1.0, 0.25))));  // a float64 value
                  },
                  [](const Inputs& in, tsr_tensor** o) {
                    return tsr_masked_fill_tensor(in[0].get(), in[1].get(), in[2].get(), o);
                  },
                  16 * ulps(d), 16 * ulps(d)});  // value's gradient: a sum
  cs.push_back({"masked_fill_/tensor value",
                [](Dev dev, Inputs& in) {
                  in.push_back(leaf(on(dev, values_cpu({6}, TSR_FLOAT32))));
                  in.push_back(leaf(on(dev, mask_cpu({6}))));
                  in.push_back(leaf(on(dev, values_cpu({}, TSR_FLOAT32, 1.0, 3.0))));
                },
                on_clone([](tsr_tensor* c, const Inputs& in) {
                  return tsr_masked_fill_tensor_(c, in[1].get(), in[2].get());
                }),
                1e-6, 1e-6});
  cs.push_back({"masked_fill/empty",
                [](Dev dev, Inputs& in) {
                  in.push_back(leaf(on(dev, values_cpu({0, 3}, TSR_FLOAT32))));
                  in.push_back(leaf(on(dev, mask_cpu({3}))));
                },
                [](const Inputs& in, tsr_tensor** o) { return tsr_masked_fill(in[0].get(), in[1].get(), 1.0, o); }, 0,
                0});
  // ---- masked_select, nonzero ------------------------------------------------
  for (tsr_dtype d : kAll)
    cs.push_back({std::string("masked_select/") + dname(d),
                  [d](Dev dev, Inputs& in) {
                    in.push_back(transposed(on(dev, values_cpu({5, 4}, d, 5.0)), 0, 1));  // [4, 5]
                    in.push_back(leaf(on(dev, mask_cpu({4, 1}, -0.3))));                   // broadcast
                  },
                  [](const Inputs& in, tsr_tensor** o) { return tsr_masked_select(in[0].get(), in[1].get(), o); }, 0,
                  0});
  cs.push_back({"masked_select/x broadcast to the mask",
                [](Dev dev, Inputs& in) {
                  in.push_back(leaf(on(dev, values_cpu({3}, TSR_FLOAT64))));
                  in.push_back(transposed(on(dev, mask_cpu({3, 4}, 0.1)), 0, 1));  // [4, 3]
                },
                [](const Inputs& in, tsr_tensor** o) { return tsr_masked_select(in[0].get(), in[1].get(), o); }, 1e-13,
                0});
  cs.push_back({"masked_select/several blocks (5000 elements)",
                [](Dev dev, Inputs& in) {
                  in.push_back(leaf(on(dev, values_cpu({50, 100}, TSR_FLOAT32))));
                  in.push_back(leaf(on(dev, mask_cpu({50, 100}, 0.6))));
                },
                [](const Inputs& in, tsr_tensor** o) { return tsr_masked_select(in[0].get(), in[1].get(), o); }, 0,
                0});
  cs.push_back({"masked_select/nothing selected",
                [](Dev dev, Inputs& in) {
                  in.push_back(leaf(on(dev, values_cpu({4}, TSR_FLOAT32))));
                  in.push_back(leaf(on(dev, mask_cpu({4}, 5.0))));
                },
                [](const Inputs& in, tsr_tensor** o) { return tsr_masked_select(in[0].get(), in[1].get(), o); }, 0,
                0});
  for (tsr_dtype d : {TSR_FLOAT32, TSR_FLOAT16, TSR_INT64, TSR_UINT8, TSR_BOOL})
    cs.push_back({std::string("nonzero/") + dname(d),
                  [d](Dev dev, Inputs& in) {
                    in.push_back(transposed(on(dev, ints_cpu({0, 3, 0, 0, 1, 2, 0, 0, 0, 5, 0, 1, 1, 0, 0, 0, 0, 4, 0, 0,
                                                              2, 0, 0, 1},
                                                             {2, 3, 4}, d)),
                                            0, 2));  // [4, 3, 2]
                  },
                  [](const Inputs& in, tsr_tensor** o) { return tsr_nonzero(in[0].get(), o); }, 0, 0});
  cs.push_back({"nonzero/0-dim",
                [](Dev dev, Inputs& in) { in.push_back(leaf(on(dev, ints_cpu({7}, {})))); },
                [](const Inputs& in, tsr_tensor** o) { return tsr_nonzero(in[0].get(), o); }, 0, 0});
  cs.push_back({"nonzero/several blocks (6000 elements)",
                [](Dev dev, Inputs& in) { in.push_back(leaf(on(dev, mask_cpu({20, 300}, 0.8)))); },
                [](const Inputs& in, tsr_tensor** o) { return tsr_nonzero(in[0].get(), o); }, 0, 0});
  cs.push_back({"nonzero/empty", [](Dev dev, Inputs& in) { in.push_back(leaf(on(dev, mask_cpu({0, 3})))); },
                [](const Inputs& in, tsr_tensor** o) { return tsr_nonzero(in[0].get(), o); }, 0, 0});
  // ---- flip ------------------------------------------------------------------
  for (tsr_dtype d : kAll)
    cs.push_back({std::string("flip/") + dname(d),
                  [d](Dev dev, Inputs& in) { in.push_back(transposed(on(dev, values_cpu({4, 5, 3}, d, 9.0)), 0, 2)); },
                  [](const Inputs& in, tsr_tensor** o) {
                    const int64_t dims[] = {0, -1};
                    return tsr_flip(in[0].get(), 2, dims, o);
                  },
                  0, 0});
  cs.push_back({"flip/expanded, one dim",
                [](Dev dev, Inputs& in) { in.push_back(expanded(on(dev, values_cpu({1, 4}, TSR_FLOAT32)), {3, 4})); },
                [](const Inputs& in, tsr_tensor** o) {
                  const int64_t dims[] = {1};
                  return tsr_flip(in[0].get(), 1, dims, o);
                },
                0, 0});
  cs.push_back({"flip/no dims, 0-dim",
                [](Dev dev, Inputs& in) { in.push_back(leaf(on(dev, values_cpu({}, TSR_FLOAT32)))); },
                [](const Inputs& in, tsr_tensor** o) { return tsr_flip(in[0].get(), 0, nullptr, o); }, 0, 0});
  // ---- scatter, scatter_add, scatter_reduce ----------------------------------
  // index [3, 4] into self [4, 5] along dim 1, with repeated positions.
  const std::vector<int64_t> sidx = {4, 0, 4, 1, 2, 2, 3, 0, 1, 1, 1, 4};
  for (tsr_dtype d : kAll) {
    cs.push_back({std::string("scatter/") + dname(d),
                  [d, sidx](Dev dev, Inputs& in) {
                    in.push_back(transposed(on(dev, values_cpu({5, 4}, d, 9.0)), 0, 1));  // [4, 5]
                    in.push_back(leaf(on(dev, ints_cpu(sidx, {3, 4}))));
                    in.push_back(leaf(on(dev, values_cpu({3, 4}, d, 4.0, 1.0))));
                  },
                  [](const Inputs& in, tsr_tensor** o) {
                    return tsr_scatter(in[0].get(), 1, in[1].get(), in[2].get(), o);
                  },
                  0, 0});
    cs.push_back({std::string("scatter/src larger than index/") + dname(d),
                  [d, sidx](Dev dev, Inputs& in) {
                    in.push_back(leaf(on(dev, values_cpu({4, 5}, d, 9.0))));
                    in.push_back(leaf(on(dev, ints_cpu(sidx, {3, 4}))));
                    in.push_back(transposed(on(dev, values_cpu({6, 3}, d, 4.0, 1.0)), 0, 1));  // [3, 6]
                  },
                  [](const Inputs& in, tsr_tensor** o) {
                    return tsr_scatter(in[0].get(), 1, in[1].get(), in[2].get(), o);
                  },
                  0, 0, false});  // forward only: torch's backward refuses src's [3, 4] gradient for [3, 6]
    cs.push_back({std::string("scatter_add/") + dname(d),
                  [d](Dev dev, Inputs& in) {
                    in.push_back(leaf(on(dev, values_cpu({4, 5}, d, 9.0))));
                    in.push_back(transposed(on(dev, ints_cpu({3, 0, 3, 1, 2, 2, 3, 0, 1, 1, 1, 0}, {4, 3})), 0, 1));
                    in.push_back(leaf(on(dev, values_cpu({3, 4}, d, 4.0, 1.0))));
                  },
                  [](const Inputs& in, tsr_tensor** o) {
                    return tsr_scatter_add(in[0].get(), 0, in[1].get(), in[2].get(), o);
                  },
                  0, 0});
  }
  cs.push_back({"scatter_value/float16",
                [sidx](Dev dev, Inputs& in) {
                  in.push_back(leaf(on(dev, values_cpu({4, 5}, TSR_FLOAT16))));
                  in.push_back(leaf(on(dev, ints_cpu(sidx, {3, 4}))));
                },
                [](const Inputs& in, tsr_tensor** o) { return tsr_scatter_value(in[0].get(), 1, in[1].get(), 0.3, o); },
                0, 0});
  cs.push_back({"scatter_/float32",
                [sidx](Dev dev, Inputs& in) {
                  in.push_back(leaf(on(dev, values_cpu({4, 5}, TSR_FLOAT32))));
                  in.push_back(leaf(on(dev, ints_cpu(sidx, {3, 4}))));
                  in.push_back(leaf(on(dev, values_cpu({3, 4}, TSR_FLOAT32, 3.0))));
                },
                on_clone([](tsr_tensor* c, const Inputs& in) { return tsr_scatter_(c, 1, in[1].get(), in[2].get()); }),
                0, 0});
  cs.push_back({"scatter_add_/int64",
                [sidx](Dev dev, Inputs& in) {
                  in.push_back(leaf(on(dev, ints_cpu({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20},
                                                     {4, 5}))));
                  in.push_back(leaf(on(dev, ints_cpu(sidx, {3, 4}))));
                  in.push_back(leaf(on(dev, ints_cpu({5, -3, 7, 1, 1, 2, 9, -8, 4, 4, 4, 4}, {3, 4}))));
                },
                on_clone([](tsr_tensor* c, const Inputs& in) { return tsr_scatter_add_(c, 1, in[1].get(), in[2].get()); }),
                0, 0});
  cs.push_back({"scatter_value_/int32",
                [sidx](Dev dev, Inputs& in) {
                  in.push_back(leaf(on(dev, ints_cpu({1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, {2, 5}, TSR_INT32))));
                  in.push_back(leaf(on(dev, ints_cpu({4, 0, 4, 1, 2, 2}, {2, 3}))));
                },
                on_clone([](tsr_tensor* c, const Inputs& in) { return tsr_scatter_value_(c, 1, in[1].get(), -7.0); }),
                0, 0});
  const tsr_scatter_reduction reductions[] = {TSR_SCATTER_SUM, TSR_SCATTER_PROD, TSR_SCATTER_MEAN, TSR_SCATTER_AMAX,
                                              TSR_SCATTER_AMIN};
  const char* const rnames[] = {"sum", "prod", "mean", "amax", "amin"};
  for (int r = 0; r < 5; ++r)
    for (bool self_too : {true, false})
      for (tsr_dtype d : {TSR_FLOAT32, TSR_FLOAT64, TSR_FLOAT16, TSR_INT64, TSR_INT8, TSR_BOOL}) {
        Case c{std::string("scatter_reduce/") + rnames[r] + (self_too ? "" : "/without self") + "/" + dname(d),
               [d, sidx](Dev dev, Inputs& in) {
                 in.push_back(transposed(on(dev, values_cpu({5, 4}, d, 4.0, 0.5)), 0, 1));  // [4, 5]
                 in.push_back(leaf(on(dev, ints_cpu(sidx, {3, 4}))));
                 in.push_back(leaf(on(dev, values_cpu({3, 4}, d, 3.0, 1.0))));
               },
               [red = reductions[r], self_too](const Inputs& in, tsr_tensor** o) {
                 return tsr_scatter_reduce(in[0].get(), 1, in[1].get(), in[2].get(), red, self_too, o);
               },
               0, 0};
        c.ulp_factor = 16;  // the forward is exact; backward formulas divide and multiply in another order
        cs.push_back(c);
      }
  cs.push_back({"scatter_reduce_/mean/int32",
                [sidx](Dev dev, Inputs& in) {
                  in.push_back(leaf(on(dev, ints_cpu({1, -2, 3, 4, 5, 6, -7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20},
                                                     {4, 5}, TSR_INT32))));
                  in.push_back(leaf(on(dev, ints_cpu(sidx, {3, 4}))));
                  in.push_back(leaf(on(dev, ints_cpu({5, -3, 7, 1, 1, 2, 9, -8, 4, 4, 4, 4}, {3, 4}, TSR_INT32))));
                },
                on_clone([](tsr_tensor* c, const Inputs& in) {
                  return tsr_scatter_reduce_(c, 1, in[1].get(), in[2].get(), TSR_SCATTER_MEAN, true);
                }),
                0, 0});
  cs.push_back({"scatter_reduce_/amax, float32 (with grad: through a copy, CopyBackwards)",
                [sidx](Dev dev, Inputs& in) {
                  in.push_back(leaf(on(dev, values_cpu({4, 5}, TSR_FLOAT32, 4.0))));
                  in.push_back(leaf(on(dev, ints_cpu(sidx, {3, 4}))));
                  in.push_back(leaf(on(dev, values_cpu({3, 4}, TSR_FLOAT32, 3.0, 1.0))));
                },
                on_clone([](tsr_tensor* c, const Inputs& in) {
                  return tsr_scatter_reduce_(c, 1, in[1].get(), in[2].get(), TSR_SCATTER_AMAX, true);
                }),
                0, 0});
  // NaN, infinities and zeros through every reduction (amax / amin let a
  // NaN win, prod's zeros), and integer wrap-around (int8 sums and
  // products past 127).
  for (int r = 0; r < 5; ++r)
    for (tsr_dtype d : {TSR_FLOAT32, TSR_BFLOAT16, TSR_INT8}) {
      const double nan = std::nan(""), inf = INFINITY;
      const bool fp = d != TSR_INT8;
      const std::vector<double> self_v = fp ? std::vector<double>{1, nan, -inf, 0, 2, 3}
                                            : std::vector<double>{100, -100, 7, 0, 90, -128};
      const std::vector<double> src_v = fp ? std::vector<double>{nan, 2, inf, -1, 0, 5, -inf, 4}
                                           : std::vector<double>{100, 77, -90, 3, 127, 2, 64, -2};
      cs.push_back({std::string("scatter_reduce/special values/") + rnames[r] + "/" + dname(d),
                    [d, self_v, src_v](Dev dev, Inputs& in) {
                      in.push_back(leaf(on(dev, doubles_cpu(self_v, {6}, d))));
                      in.push_back(leaf(on(dev, ints_cpu({0, 0, 1, 2, 3, 3, 5, 5}, {8}))));
                      in.push_back(leaf(on(dev, doubles_cpu(src_v, {8}, d))));
                    },
                    [red = reductions[r]](const Inputs& in, tsr_tensor** o) {
                      return tsr_scatter_reduce(in[0].get(), 0, in[1].get(), in[2].get(), red, true, o);
                    },
                    0, 0, false});
    }
  // The storage-only dtypes: the writes that only move elements work as
  // on the CPU; the reductions are refused with the CPU's message.
  for (tsr_dtype d : {TSR_UINT16, TSR_UINT64, TSR_FLOAT8_E4M3FN}) {
    const std::string dn = std::to_string(int(d));
    cs.push_back({"scatter/storage-only dtype " + dn,
                  [d, sidx](Dev dev, Inputs& in) {
                    in.push_back(leaf(on(dev, values_cpu({4, 5}, d, 9.0, 10.0))));
                    in.push_back(leaf(on(dev, ints_cpu(sidx, {3, 4}))));
                    in.push_back(leaf(on(dev, values_cpu({3, 4}, d, 4.0, 5.0))));
                  },
                  [](const Inputs& in, tsr_tensor** o) {
                    return tsr_scatter(in[0].get(), 1, in[1].get(), in[2].get(), o);
                  },
                  0, 0, false});
    cs.push_back({"scatter_add/storage-only dtype " + dn,
                  [d, sidx](Dev dev, Inputs& in) {
                    in.push_back(leaf(on(dev, values_cpu({4, 5}, d, 9.0, 10.0))));
                    in.push_back(leaf(on(dev, ints_cpu(sidx, {3, 4}))));
                    in.push_back(leaf(on(dev, values_cpu({3, 4}, d, 4.0, 5.0))));
                  },
                  [](const Inputs& in, tsr_tensor** o) {
                    return tsr_scatter_add(in[0].get(), 1, in[1].get(), in[2].get(), o);
                  },
                  0, 0, false});
    cs.push_back({"index_copy/storage-only dtype " + dn,
                  [d](Dev dev, Inputs& in) {
                    in.push_back(leaf(on(dev, values_cpu({5, 3}, d, 9.0, 10.0))));
                    in.push_back(leaf(on(dev, ints_cpu({4, 0, 2}, {3}))));
                    in.push_back(leaf(on(dev, values_cpu({3, 3}, d, 4.0, 5.0))));
                  },
                  [](const Inputs& in, tsr_tensor** o) {
                    return tsr_index_copy(in[0].get(), 0, in[1].get(), in[2].get(), o);
                  },
                  0, 0, false});
    cs.push_back({"index_fill/storage-only dtype " + dn,
                  [d](Dev dev, Inputs& in) {
                    in.push_back(leaf(on(dev, values_cpu({5, 3}, d, 9.0, 10.0))));
                    in.push_back(leaf(on(dev, ints_cpu({4, -5}, {2}))));
                  },
                  [](const Inputs& in, tsr_tensor** o) { return tsr_index_fill(in[0].get(), 0, in[1].get(), 3.0, o); },
                  0, 0, false});
    cs.push_back({"index_put/storage-only dtype " + dn,
                  [d](Dev dev, Inputs& in) {
                    in.push_back(leaf(on(dev, values_cpu({5, 3}, d, 9.0, 10.0))));
                    in.push_back(leaf(on(dev, ints_cpu({4, 1, 4}, {3}))));
                    in.push_back(leaf(on(dev, values_cpu({3}, d, 4.0, 5.0))));
                  },
                  [](const Inputs& in, tsr_tensor** o) {
                    const tsr_tensor* idx[] = {in[1].get()};
                    return tsr_index_put(in[0].get(), 1, idx, in[2].get(), false, o);
                  },
                  0, 0, false});
    cs.push_back({"flip, index, masked_select/storage-only dtype " + dn,
                  [d](Dev dev, Inputs& in) {
                    in.push_back(leaf(on(dev, values_cpu({4, 3}, d, 9.0, 10.0))));
                    in.push_back(leaf(on(dev, mask_cpu({3}))));
                    in.push_back(leaf(on(dev, ints_cpu({2, 0}, {2}))));
                  },
                  [](const Inputs& in, tsr_tensor** o) {  // these move elements: any dtype
                    H b, c;
                    const int64_t dims[] = {0};
                    tsr_status st = tsr_flip(in[0].get(), 1, dims, &b.h);
                    if (st != TSR_OK) return st;
                    const tsr_tensor* idx[] = {in[2].get()};
                    if ((st = tsr_index(b.h, 1, idx, &c.h)) != TSR_OK) return st;
                    return tsr_masked_select(c.h, in[1].get(), o);
                  },
                  0, 0, false});
    cs.push_back({"masked_fill/storage-only dtype " + dn,
                  [d](Dev dev, Inputs& in) {
                    in.push_back(leaf(on(dev, values_cpu({4, 3}, d, 9.0, 10.0))));
                    in.push_back(leaf(on(dev, mask_cpu({3}))));
                  },
                  [](const Inputs& in, tsr_tensor** o) { return tsr_masked_fill(in[0].get(), in[1].get(), 2.0, o); },
                  0, 0, false});
  }
  cs.push_back({"scatter/0-dim",
                [](Dev dev, Inputs& in) {
                  in.push_back(leaf(on(dev, values_cpu({}, TSR_FLOAT32))));
                  in.push_back(leaf(on(dev, ints_cpu({0}, {}))));
                  in.push_back(leaf(on(dev, values_cpu({}, TSR_FLOAT32, 1.0, 3.0))));
                },
                [](const Inputs& in, tsr_tensor** o) {
                  return tsr_scatter_add(in[0].get(), 0, in[1].get(), in[2].get(), o);
                },
                0, 0});
  cs.push_back({"scatter/empty index",
                [](Dev dev, Inputs& in) {
                  in.push_back(leaf(on(dev, values_cpu({3, 4}, TSR_FLOAT32))));
                  in.push_back(leaf(on(dev, ints_cpu({}, {0, 4}))));
                  in.push_back(leaf(on(dev, values_cpu({2, 4}, TSR_FLOAT32))));
                },
                [](const Inputs& in, tsr_tensor** o) { return tsr_scatter(in[0].get(), 0, in[1].get(), in[2].get(), o); },
                0, 0, false});  // forward only: torch's backward refuses src's [0, 4] gradient for [2, 4]
  // ---- index_add, index_copy, index_fill -------------------------------------
  for (tsr_dtype d : kAll) {
    for (double alpha : {1.0, 2.5}) {
      Case c{std::string("index_add/") + dname(d) + (alpha == 1.0 ? "" : "/alpha"),
             [d](Dev dev, Inputs& in) {
               in.push_back(transposed(on(dev, values_cpu({5, 4}, d, 9.0)), 0, 1));  // [4, 5]
               in.push_back(leaf(on(dev, ints_cpu({3, 0, 3, 4, 3, 1}, {6}, TSR_INT32))));
               in.push_back(leaf(on(dev, values_cpu({4, 6}, d, 4.0, 1.0))));
             },
             [alpha](const Inputs& in, tsr_tensor** o) {
               return tsr_index_add(in[0].get(), 1, in[1].get(), in[2].get(), alpha, o);
             },
             0, 0};
      c.ulp_factor = alpha == 1.0 ? 0 : 1;  // the CPU's scaled add may fuse its multiply (SIMD)
      cs.push_back(c);
    }
    cs.push_back({std::string("index_copy/") + dname(d),
                  [d](Dev dev, Inputs& in) {
                    in.push_back(leaf(on(dev, values_cpu({5, 3}, d, 9.0))));
                    in.push_back(sliced(on(dev, ints_cpu({4, 9, 0, 9, 4, 9, 2, 9}, {8})), 0, 0, 8, 2));  // {4, 0, 4, 2}
                    in.push_back(transposed(on(dev, values_cpu({3, 4}, d, 4.0, 1.0)), 0, 1));  // [4, 3]
                  },
                  [](const Inputs& in, tsr_tensor** o) {
                    return tsr_index_copy(in[0].get(), 0, in[1].get(), in[2].get(), o);
                  },
                  0, 0});
    cs.push_back({std::string("index_fill/") + dname(d),
                  [d](Dev dev, Inputs& in) {
                    in.push_back(transposed(on(dev, values_cpu({4, 3, 2}, d, 9.0)), 0, 2));  // [2, 3, 4]
                    in.push_back(leaf(on(dev, ints_cpu({-1, 0, 2, -4}, {4}))));
                  },
                  [](const Inputs& in, tsr_tensor** o) { return tsr_index_fill(in[0].get(), 2, in[1].get(), 0.75, o); },
                  0, 0});
  }
  cs.push_back({"index_add_/float64",
                [](Dev dev, Inputs& in) {
                  in.push_back(leaf(on(dev, values_cpu({3, 4}, TSR_FLOAT64))));
                  in.push_back(leaf(on(dev, ints_cpu({2, 2, 0}, {3}))));
                  in.push_back(leaf(on(dev, values_cpu({3, 4}, TSR_FLOAT64, 3.0))));
                },
                on_clone([](tsr_tensor* c, const Inputs& in) {
                  return tsr_index_add_(c, 0, in[1].get(), in[2].get(), 1.0);
                }),
                0, 0});
  cs.push_back({"index_copy_/float32",
                [](Dev dev, Inputs& in) {
                  in.push_back(leaf(on(dev, values_cpu({3, 4}, TSR_FLOAT32))));
                  in.push_back(leaf(on(dev, ints_cpu({3, 1}, {2}))));
                  in.push_back(leaf(on(dev, values_cpu({3, 2}, TSR_FLOAT32, 3.0))));
                },
                on_clone([](tsr_tensor* c, const Inputs& in) { return tsr_index_copy_(c, 1, in[1].get(), in[2].get()); }),
                0, 0});
  cs.push_back({"index_fill_/bfloat16",
                [](Dev dev, Inputs& in) {
                  in.push_back(leaf(on(dev, values_cpu({3, 4}, TSR_BFLOAT16))));
                  in.push_back(leaf(on(dev, ints_cpu({1}, {}))));  // a 0-dim index
                },
                on_clone([](tsr_tensor* c, const Inputs& in) { return tsr_index_fill_(c, 0, in[1].get(), -1.5); }), 0,
                0});
  cs.push_back({"index_add/0-dim self",
                [](Dev dev, Inputs& in) {
                  in.push_back(leaf(on(dev, values_cpu({}, TSR_FLOAT32))));
                  in.push_back(leaf(on(dev, ints_cpu({0, 0, 0}, {3}))));
                  in.push_back(leaf(on(dev, values_cpu({3}, TSR_FLOAT32, 2.0))));
                },
                [](const Inputs& in, tsr_tensor** o) {
                  return tsr_index_add(in[0].get(), 0, in[1].get(), in[2].get(), 1.0, o);
                },
                0, 0});
  // ---- advanced indexing: index, index_put(_) --------------------------------
  // x [4, 5, 3] (transposed), indices by case.
  struct IndexCase {
    std::string name;
    std::function<void(Dev, Inputs&)> indices;  // pushed after x
    std::vector<int> slots;                     // per indexed dim: input number, or -1 for ":"
  };
  const std::vector<IndexCase> icases = {
      {"int64 with negatives", [](Dev dev, Inputs& in) { in.push_back(leaf(on(dev, ints_cpu({3, -1, 0, 3, -4}, {5})))); },
       {1}},
      {"middle dim, 2-D index",
       [](Dev dev, Inputs& in) { in.push_back(transposed(on(dev, ints_cpu({4, 0, -2, 1, 1, 4}, {2, 3})), 0, 1)); },
       {-1, 1}},
      {"two broadcast indices",
       [](Dev dev, Inputs& in) {
         in.push_back(leaf(on(dev, ints_cpu({0, 2, 3}, {3, 1}))));
         in.push_back(leaf(on(dev, ints_cpu({4, 0, 1, 1}, {4}))));
       },
       {1, 2}},
      {"non-adjacent (result dims first)",
       [](Dev dev, Inputs& in) {
         in.push_back(leaf(on(dev, ints_cpu({3, 1}, {2}))));
         in.push_back(leaf(on(dev, ints_cpu({2, -3}, {2}))));
       },
       {1, -1, 2}},
      {"bool mask over two dims", [](Dev dev, Inputs& in) { in.push_back(leaf(on(dev, mask_cpu({4, 5}, 0.2)))); }, {1}},
      {"uint8 mask, middle dim",
       [](Dev dev, Inputs& in) { in.push_back(leaf(on(dev, ints_cpu({1, 0, 2, 0, 1}, {5}, TSR_UINT8)))); },
       {-1, 1}},
      {"mask and int64", 
       [](Dev dev, Inputs& in) {
         in.push_back(leaf(on(dev, ints_cpu({1, 0, 1, 1}, {4}, TSR_BOOL))));
         in.push_back(leaf(on(dev, ints_cpu({2, 2, 0}, {3}))));
       },
       {1, 2}},
      {"0-dim index", [](Dev dev, Inputs& in) { in.push_back(leaf(on(dev, ints_cpu({2}, {})))); }, {-1, -1, 1}},
      {"empty index", [](Dev dev, Inputs& in) { in.push_back(leaf(on(dev, ints_cpu({}, {0})))); }, {1}},
  };
  auto index_args = [](const Inputs& in, const std::vector<int>& slots) {
    std::vector<const tsr_tensor*> idx;
    for (int s : slots) idx.push_back(s < 0 ? nullptr : in[size_t(s)].get());
    return idx;
  };
  for (const IndexCase& ic : icases) {
    for (tsr_dtype d : {TSR_FLOAT32, TSR_FLOAT16, TSR_INT64, TSR_BOOL})
      cs.push_back({"index/" + ic.name + "/" + dname(d),
                    [d, ic](Dev dev, Inputs& in) {
                      in.push_back(transposed(on(dev, values_cpu({3, 5, 4}, d, 9.0)), 0, 2));  // [4, 5, 3]
                      ic.indices(dev, in);
                    },
                    [ic, index_args](const Inputs& in, tsr_tensor** o) {
                      const auto idx = index_args(in, ic.slots);
                      return tsr_index(in[0].get(), int64_t(idx.size()), idx.data(), o);
                    },
                    0, 0});
    // index_put with values of the indexing result's shape (read from the
    // CPU's index), then accumulating with a broadcast row
    for (bool acc : {false, true})
      for (tsr_dtype d : {TSR_FLOAT32, TSR_FLOAT64, TSR_INT32}) {
        Case c{"index_put/" + ic.name + (acc ? "/accumulate/" : "/") + dname(d),
               [d, ic, index_args](Dev dev, Inputs& in) {
                 in.push_back(leaf(on(dev, values_cpu({4, 5, 3}, d, 9.0))));
                 ic.indices(dev, in);
                 // values: broadcast over the result's last dim (3 for
                 // every case here but the non-adjacent one, whose last
                 // dim is x's dim 1: 5)
                 const int64_t last = ic.slots.size() == 3 && ic.slots[1] == -1 ? 5 : 3;
                 in.push_back(leaf(on(dev, values_cpu({last}, d, 4.0, 1.0))));
               },
               [ic, acc, index_args](const Inputs& in, tsr_tensor** o) {
                 const auto idx = index_args(in, ic.slots);
                 return tsr_index_put(in[0].get(), int64_t(idx.size()), idx.data(), in.back().get(), acc, o);
               },
               0, 0};
        c.ulp_factor = 4;  // the forward is exact; the gradient of broadcast values is a sum, in another order
        if (ic.name == "0-dim index") continue;  // the result's last dim is 4 there
        cs.push_back(c);
      }
  }
  cs.push_back({"index_put_/bool mask, one value, float64",
                [](Dev dev, Inputs& in) {
                  in.push_back(leaf(on(dev, values_cpu({4, 5}, TSR_FLOAT64))));
                  in.push_back(leaf(on(dev, mask_cpu({4, 5}, 0.3))));
                  in.push_back(leaf(on(dev, values_cpu({}, TSR_FLOAT64, 1.0, 2.0))));
                },
                on_clone([](tsr_tensor* c, const Inputs& in) {
                  const tsr_tensor* idx[] = {in[1].get()};
                  return tsr_index_put_(c, 1, idx, in[2].get(), false);
                }),
                1e-13, 1e-13});
  cs.push_back({"index_put_/accumulate, repeated positions, float32",
                [](Dev dev, Inputs& in) {
                  in.push_back(leaf(on(dev, values_cpu({6}, TSR_FLOAT32))));
                  std::vector<int64_t> idx(40);
                  for (size_t i = 0; i < idx.size(); ++i) idx[i] = int64_t((i * 5) % 6) - 3;
                  in.push_back(leaf(on(dev, ints_cpu(idx, {40}))));
                  in.push_back(leaf(on(dev, values_cpu({40}, TSR_FLOAT32, 3.0))));
                },
                on_clone([](tsr_tensor* c, const Inputs& in) {
                  const tsr_tensor* idx[] = {in[1].get()};
                  return tsr_index_put_(c, 1, idx, in[2].get(), true);
                }),
                0, 0});
  cs.push_back({"index_put/no index tensors (all of self)",
                [](Dev dev, Inputs& in) {
                  in.push_back(leaf(on(dev, values_cpu({2, 3}, TSR_FLOAT32))));
                  in.push_back(leaf(on(dev, values_cpu({3}, TSR_FLOAT32, 3.0))));
                },
                [](const Inputs& in, tsr_tensor** o) {
                  const tsr_tensor* idx[] = {nullptr};
                  return tsr_index_put(in[0].get(), 1, idx, in[1].get(), true, o);
                },
                0, 0});
}

std::vector<Case> cases() {
  std::vector<Case> cs;
  const double lo = -0.5, hi = 0.75;
  // ---- clamp with Python-float bounds: every dtype (integers give float32) --
  for (tsr_dtype d : kAll) {
    cs.push_back({std::string("clamp/") + dname(d),
                  [d](Dev dev, Inputs& in) { in.push_back(transposed(on(dev, values_cpu({5, 7}, d)), 0, 1)); },
                  [lo, hi](const Inputs& in, tsr_tensor** o) { return tsr_clamp(in[0].get(), &lo, &hi, o); }, 0, 0});
    cs.push_back({std::string("clamp_min/") + dname(d),
                  [d](Dev dev, Inputs& in) { in.push_back(leaf(on(dev, values_cpu({33}, d)))); },
                  [lo](const Inputs& in, tsr_tensor** o) { return tsr_clamp(in[0].get(), &lo, nullptr, o); }, 0, 0});
  }
  cs.push_back({"clamp/nan bound",
                [](Dev dev, Inputs& in) { in.push_back(leaf(on(dev, values_cpu({6}, TSR_FLOAT32)))); },
                [](const Inputs& in, tsr_tensor** o) {
                  const double l = NAN, h = 1.0;
                  return tsr_clamp(in[0].get(), &l, &h, o);
                },
                0, 0, false});
  cs.push_back({"clamp/empty", [](Dev dev, Inputs& in) { in.push_back(leaf(on(dev, values_cpu({0, 3}, TSR_FLOAT32)))); },
                [lo](const Inputs& in, tsr_tensor** o) { return tsr_clamp(in[0].get(), &lo, nullptr, o); }, 0, 0});
  // ---- clamp with tensor bounds, broadcast --------------------------------
  for (tsr_dtype d : {TSR_FLOAT32, TSR_FLOAT64, TSR_FLOAT16, TSR_INT64}) {
    cs.push_back({std::string("clamp_tensor/") + dname(d),
                  [d](Dev dev, Inputs& in) {
                    in.push_back(leaf(on(dev, values_cpu({4, 5}, d, 3.0))));
                    in.push_back(leaf(on(dev, values_cpu({5}, d, 1.0, -1.0))));
                    in.push_back(expanded(on(dev, values_cpu({4, 1}, d, 1.0, 1.0)), {4, 5}));
                  },
                  [](const Inputs& in, tsr_tensor** o) { return tsr_clamp_tensor(in[0].get(), in[1].get(), in[2].get(), o); },
                  0, 0});
  }
  // ---- pow with a tensor exponent, broadcast ------------------------------
  for (tsr_dtype d : kFloats) {
    cs.push_back({std::string("pow/") + dname(d),
                  [d](Dev dev, Inputs& in) {
                    in.push_back(transposed(on(dev, values_cpu({3, 4}, d, 1.0, 1.5)), 0, 1));  // positive bases
                    in.push_back(leaf(on(dev, values_cpu({3}, d, 2.0))));
                  },
                  [](const Inputs& in, tsr_tensor** o) { return tsr_pow(in[0].get(), in[1].get(), o); }, 4 * ulps(d),
                  0});
  }
  for (tsr_dtype d : {TSR_INT64, TSR_INT32, TSR_INT8, TSR_UINT8}) {
    cs.push_back({std::string("pow/") + dname(d),
                  [d](Dev dev, Inputs& in) {
                    in.push_back(leaf(on(dev, ints_cpu({-3, -1, 0, 1, 2, 7, 5, -2}, {2, 4}, d))));
                    in.push_back(leaf(on(dev, ints_cpu({3, 2, 0, 5}, {4}, d == TSR_UINT8 ? d : d))));
                  },
                  [](const Inputs& in, tsr_tensor** o) { return tsr_pow(in[0].get(), in[1].get(), o); }, 0, 0});
  }
  cs.push_back({"pow/int64 negative exponent",
                [](Dev dev, Inputs& in) {
                  in.push_back(leaf(on(dev, ints_cpu({-1, 1, 2, -1, 3, 0}, {6}))));
                  in.push_back(leaf(on(dev, ints_cpu({-3, -2, -1, -4, 40, 0}, {6}))));
                },
                [](const Inputs& in, tsr_tensor** o) { return tsr_pow(in[0].get(), in[1].get(), o); }, 0, 0});
  cs.push_back({"pow/zero base grad",  // exponent's gradient where the base is 0
                [](Dev dev, Inputs& in) {
                  in.push_back(leaf(on(dev, values_cpu({4}, TSR_FLOAT64, 0.0))));
                  in.push_back(leaf(on(dev, values_cpu({4}, TSR_FLOAT64, 2.0))));
                },
                [](const Inputs& in, tsr_tensor** o) { return tsr_pow(in[0].get(), in[1].get(), o); }, 1e-13, 0});
  // ---- where: every dtype, broadcast, uint8 condition ---------------------
  for (tsr_dtype d : kAll) {
    cs.push_back({std::string("where/") + dname(d),
                  [d](Dev dev, Inputs& in) {
                    tsr_tensor* c = nullptr;
                    tsr_tensor* v = values_cpu({3, 4}, TSR_FLOAT32);
                    tsr_tensor* z = values_cpu({}, TSR_FLOAT32, 0.0);
                    ok(tsr_gt(v, z, &c), c);
                    tsr_tensor_release(v);
                    tsr_tensor_release(z);
                    in.push_back(transposed(on(dev, c), 0, 1));  // [4, 3]
                    in.push_back(leaf(on(dev, values_cpu({4, 3}, d, 5.0))));
                    in.push_back(leaf(on(dev, values_cpu({3}, d, 7.0, 1.0))));
                  },
                  [](const Inputs& in, tsr_tensor** o) { return tsr_where(in[0].get(), in[1].get(), in[2].get(), o); },
                  0, 0});
  }
  cs.push_back({"where/uint8 condition, mixed dtypes",
                [](Dev dev, Inputs& in) {
                  in.push_back(leaf(on(dev, ints_cpu({1, 0, 3, 0, 0, 9}, {6}, TSR_UINT8))));
                  in.push_back(leaf(on(dev, values_cpu({6}, TSR_FLOAT16))));
                  in.push_back(leaf(on(dev, values_cpu({1}, TSR_FLOAT32))));
                },
                [](const Inputs& in, tsr_tensor** o) { return tsr_where(in[0].get(), in[1].get(), in[2].get(), o); },
                0, 0});
  // ---- layer_norm -----------------------------------------------------------
  for (tsr_dtype d : kFloats) {
    cs.push_back({std::string("layer_norm/") + dname(d),
                  [d](Dev dev, Inputs& in) {
                    in.push_back(transposed(on(dev, values_cpu({8, 3, 5}, d, 2.0, 0.5)), 0, 2));  // [5, 3, 8]
                    in.push_back(leaf(on(dev, values_cpu({3, 8}, d, 1.0, 1.0))));
                    in.push_back(leaf(on(dev, values_cpu({3, 8}, d, 0.5))));
                  },
                  [](const Inputs& in, tsr_tensor** o) {
                    const int64_t ns[] = {3, 8};
                    return tsr_layer_norm(in[0].get(), 2, ns, in[1].get(), in[2].get(), 1e-5, o);
                  },
                  16 * ulps(d), 16 * ulps(d)});
    cs.push_back({std::string("layer_norm/long rows, no affine/") + dname(d),
                  [d](Dev dev, Inputs& in) { in.push_back(leaf(on(dev, values_cpu({3, 300}, d, 2.0, 5.0)))); },
                  [](const Inputs& in, tsr_tensor** o) {
                    const int64_t ns[] = {300};
                    return tsr_layer_norm(in[0].get(), 1, ns, nullptr, nullptr, 1e-5, o);
                  },
                  16 * ulps(d), 16 * ulps(d)});
  }
  cs.push_back({"layer_norm/empty", [](Dev dev, Inputs& in) { in.push_back(leaf(on(dev, values_cpu({0, 4}, TSR_FLOAT32)))); },
                [](const Inputs& in, tsr_tensor** o) {
                  const int64_t ns[] = {4};
                  return tsr_layer_norm(in[0].get(), 1, ns, nullptr, nullptr, 1e-5, o);
                },
                0, 0});
  // ---- index_select, gather, embedding: every dtype, repeated indices -----
  for (tsr_dtype d : kAll) {
    for (tsr_dtype id : {TSR_INT64, TSR_INT32}) {
      cs.push_back({std::string("index_select/") + dname(d) + "/" + dname(id),
                    [d, id](Dev dev, Inputs& in) {
                      in.push_back(transposed(on(dev, values_cpu({6, 4, 5}, d, 9.0)), 0, 2));  // [5, 4, 6]
                      in.push_back(sliced(on(dev, ints_cpu({3, 9, 0, 9, 3, 9, 1, 9, 3}, {9}, id)), 0, 0, 9, 2));
                    },
                    [](const Inputs& in, tsr_tensor** o) { return tsr_index_select(in[0].get(), 2, in[1].get(), o); },
                    0, 0});
    }
    cs.push_back({std::string("gather/") + dname(d),
                  [d](Dev dev, Inputs& in) {
                    in.push_back(transposed(on(dev, values_cpu({5, 4}, d, 9.0)), 0, 1));  // [4, 5]
                    in.push_back(leaf(on(dev, ints_cpu({4, 0, 4, 1, 2, 2, 3, 0, 1}, {3, 3}))));
                  },
                  [](const Inputs& in, tsr_tensor** o) { return tsr_gather(in[0].get(), 1, in[1].get(), o); }, 0, 0});
  }
  for (tsr_dtype d : kFloats) {
    cs.push_back({std::string("embedding/") + dname(d),
                  [d](Dev dev, Inputs& in) {
                    in.push_back(leaf(on(dev, values_cpu({7, 6}, d))));
                    in.push_back(transposed(on(dev, ints_cpu({1, 6, 1, 0, 3, 1}, {2, 3})), 0, 1));
                  },
                  [](const Inputs& in, tsr_tensor** o) { return tsr_embedding(in[0].get(), in[1].get(), o); }, 0, 0});
  }
  cs.push_back({"index_select/empty index",
                [](Dev dev, Inputs& in) {
                  in.push_back(leaf(on(dev, values_cpu({3, 4}, TSR_FLOAT32))));
                  in.push_back(leaf(on(dev, ints_cpu({}, {0}))));
                },
                [](const Inputs& in, tsr_tensor** o) { return tsr_index_select(in[0].get(), 0, in[1].get(), o); }, 0,
                0});
  cs.push_back({"index_select/0-dim x",
                [](Dev dev, Inputs& in) {
                  in.push_back(leaf(on(dev, values_cpu({}, TSR_FLOAT32))));
                  in.push_back(leaf(on(dev, ints_cpu({0}, {1}))));
                },
                [](const Inputs& in, tsr_tensor** o) { return tsr_index_select(in[0].get(), 0, in[1].get(), o); }, 0,
                0});
  cs.push_back({"index_select/long index (block-wide bounds check)",
                [](Dev dev, Inputs& in) {
                  std::vector<int64_t> idx(300);
                  for (size_t i = 0; i < idx.size(); ++i) idx[i] = int64_t((i * 7) % 11);
                  in.push_back(leaf(on(dev, values_cpu({11, 3}, TSR_FLOAT32))));
                  in.push_back(leaf(on(dev, ints_cpu(idx, {300}))));
                },
                [](const Inputs& in, tsr_tensor** o) { return tsr_index_select(in[0].get(), 0, in[1].get(), o); }, 0,
                0});
  cs.push_back({"embedding/empty indices",
                [](Dev dev, Inputs& in) {
                  in.push_back(leaf(on(dev, values_cpu({4, 3}, TSR_FLOAT32))));
                  in.push_back(leaf(on(dev, ints_cpu({}, {2, 0}))));
                },
                [](const Inputs& in, tsr_tensor** o) { return tsr_embedding(in[0].get(), in[1].get(), o); }, 0, 0});
  cs.push_back({"gather/empty",
                [](Dev dev, Inputs& in) {
                  in.push_back(leaf(on(dev, values_cpu({3, 4}, TSR_FLOAT32))));
                  in.push_back(leaf(on(dev, ints_cpu({}, {0, 4}))));
                },
                [](const Inputs& in, tsr_tensor** o) { return tsr_gather(in[0].get(), 0, in[1].get(), o); }, 0, 0});
  // ---- comparisons (the clamp_tensor backward's masks) ---------------------
  for (tsr_dtype d : {TSR_FLOAT32, TSR_FLOAT16, TSR_INT64, TSR_BOOL}) {
    cs.push_back({std::string("lt/") + dname(d),
                  [d](Dev dev, Inputs& in) {
                    in.push_back(leaf(on(dev, values_cpu({4, 3}, d, 3.0))));
                    in.push_back(leaf(on(dev, values_cpu({3}, d, 3.0, 0.5))));
                  },
                  [](const Inputs& in, tsr_tensor** o) { return tsr_lt(in[0].get(), in[1].get(), o); }, 0, 0});
  }
  // ---- unary ops: every dtype (the CPU's refusals must be CUDA's too) ----
  using Unary = std::function<tsr_status(const tsr_tensor*, tsr_tensor**)>;
  const std::vector<std::pair<std::string, Unary>> unary = {
      {"relu", tsr_relu}, {"exp", tsr_exp}, {"log", tsr_log}, {"neg", tsr_neg}, {"tanh", tsr_tanh},
      {"sigmoid", tsr_sigmoid}, {"sqrt", tsr_sqrt}, {"silu", tsr_silu}, {"sin", tsr_sin}, {"cos", tsr_cos},
      {"rsqrt", tsr_rsqrt}, {"reciprocal", tsr_reciprocal}, {"floor", tsr_floor}, {"ceil", tsr_ceil},
      {"round", tsr_round}, {"trunc", tsr_trunc}, {"sign", tsr_sign}, {"abs", tsr_abs},
      {"gelu", [](const tsr_tensor* x, tsr_tensor** o) { return tsr_gelu(x, TSR_GELU_NONE, o); }},
      {"gelu_tanh", [](const tsr_tensor* x, tsr_tensor** o) { return tsr_gelu(x, TSR_GELU_TANH, o); }},
      {"leaky_relu", [](const tsr_tensor* x, tsr_tensor** o) { return tsr_leaky_relu(x, 0.1, o); }},
      {"elu", [](const tsr_tensor* x, tsr_tensor** o) { return tsr_elu(x, 1.3, o); }},
      {"hardtanh", [](const tsr_tensor* x, tsr_tensor** o) { return tsr_hardtanh(x, -0.5, 1.7, o); }},
      {"hardtanh_int_bounds", [](const tsr_tensor* x, tsr_tensor** o) { return tsr_hardtanh(x, -1.0, 2.0, o); }},
      {"pow_scalar", [](const tsr_tensor* x, tsr_tensor** o) { return tsr_pow_scalar(x, 2.5, o); }},
      {"pow_scalar_2", [](const tsr_tensor* x, tsr_tensor** o) { return tsr_pow_scalar(x, 2.0, o); }},
  };
  for (const auto& [name, fn] : unary)
    for (tsr_dtype d : kAll) {
      Case c{name + "/" + dname(d),
             [d](Dev dev, Inputs& in) { in.push_back(transposed(on(dev, values_cpu({5, 6}, d, 3.0, 0.25)), 0, 1)); },
             [fn = fn](const Inputs& in, tsr_tensor** o) { return fn(in[0].get(), o); }, 0, 0};
      c.ulp_factor = 4;
      cs.push_back(c);
    }
  // ---- binary arithmetic, broadcast and promoted --------------------------
  using Binary = std::function<tsr_status(const tsr_tensor*, const tsr_tensor*, tsr_tensor**)>;
  const std::vector<std::pair<std::string, Binary>> binary = {
      {"add", tsr_add}, {"sub", tsr_sub}, {"mul", tsr_mul}, {"div", tsr_div}, {"eq", tsr_eq}, {"ge", tsr_ge},
      {"gt", tsr_gt}};
  for (const auto& [name, fn] : binary)
    for (tsr_dtype d : kAll)
      for (tsr_dtype e : {d, TSR_FLOAT32, TSR_INT64}) {
        Case c{name + "/" + dname(d) + "," + dname(e),
               [d, e](Dev dev, Inputs& in) {
                 in.push_back(transposed(on(dev, values_cpu({4, 3}, d, 3.0)), 0, 1));
                 in.push_back(leaf(on(dev, values_cpu({4}, e, 2.0, 0.5))));
               },
               [fn = fn](const Inputs& in, tsr_tensor** o) { return fn(in[0].get(), in[1].get(), o); }, 0, 0};
        c.ulp_factor = 2;
        cs.push_back(c);
      }
  // ---- copies: roll, repeat ---------------------------------------------------
  for (tsr_dtype d : kAll) {
    cs.push_back({std::string("roll/") + dname(d),
                  [d](Dev dev, Inputs& in) { in.push_back(transposed(on(dev, values_cpu({4, 5, 3}, d, 9.0)), 0, 2)); },
                  [](const Inputs& in, tsr_tensor** o) {
                    const int64_t shifts[] = {2, -7}, dims[] = {0, 2};
                    return tsr_roll(in[0].get(), 2, shifts, 2, dims, o);
                  },
                  0, 0});
    cs.push_back({std::string("roll/flattened/") + dname(d),
                  [d](Dev dev, Inputs& in) { in.push_back(transposed(on(dev, values_cpu({4, 5}, d, 9.0)), 0, 1)); },
                  [](const Inputs& in, tsr_tensor** o) {
                    const int64_t shifts[] = {3};
                    return tsr_roll(in[0].get(), 1, shifts, 0, nullptr, o);
                  },
                  0, 0});
    Case rp{std::string("repeat/") + dname(d),
            [d](Dev dev, Inputs& in) { in.push_back(transposed(on(dev, values_cpu({3, 2}, d, 9.0)), 0, 1)); },
            [](const Inputs& in, tsr_tensor** o) {
              const int64_t reps[] = {2, 1, 3};
              return tsr_repeat(in[0].get(), 3, reps, o);
            },
            0, 0};
    rp.ulp_factor = 8;  // the forward is a copy (exact); its backward a sum, added in another order
    cs.push_back(rp);
  }
  // ---- reductions, softmax, matmul, losses ----------------------------------
  for (tsr_dtype d : kFloats) {
    Case sum{std::string("sum/") + dname(d),
             [d](Dev dev, Inputs& in) { in.push_back(transposed(on(dev, values_cpu({6, 70}, d)), 0, 1)); },
             [](const Inputs& in, tsr_tensor** o) {
               const int64_t dims[] = {0};
               return tsr_sum(in[0].get(), 1, dims, false, o);
             },
             0, 0};
    sum.ulp_factor = 64;
    cs.push_back(sum);
    Case mean = sum;
    mean.name = std::string("mean/") + dname(d);
    mean.run = [](const Inputs& in, tsr_tensor** o) {
      const int64_t dims[] = {1};
      return tsr_mean(in[0].get(), 1, dims, true, o);
    };
    cs.push_back(mean);
    Case sm{std::string("softmax/") + dname(d),
            [d](Dev dev, Inputs& in) { in.push_back(transposed(on(dev, values_cpu({5, 9}, d, 4.0)), 0, 1)); },
            [](const Inputs& in, tsr_tensor** o) { return tsr_softmax(in[0].get(), 1, o); }, 0, 0};
    sm.ulp_factor = 8;
    cs.push_back(sm);
    Case lsm = sm;
    lsm.name = std::string("log_softmax/") + dname(d);
    lsm.run = [](const Inputs& in, tsr_tensor** o) { return tsr_log_softmax(in[0].get(), 0, o); };
    cs.push_back(lsm);
    Case mx{std::string("max_dim/") + dname(d),
            [d](Dev dev, Inputs& in) { in.push_back(leaf(on(dev, values_cpu({4, 7}, d, 4.0)))); },
            [](const Inputs& in, tsr_tensor** o) {
              H idx;
              return tsr_max_dim(in[0].get(), 1, false, o, &idx.h);
            },
            0, 0};
    cs.push_back(mx);
  }
  for (tsr_dtype d : {TSR_FLOAT32, TSR_FLOAT64}) {
    Case mm{std::string("matmul/") + dname(d),
            [d](Dev dev, Inputs& in) {
              in.push_back(transposed(on(dev, values_cpu({2, 5, 3}, d)), 1, 2));  // [2, 3, 5]
              in.push_back(leaf(on(dev, values_cpu({5, 4}, d))));
            },
            [](const Inputs& in, tsr_tensor** o) { return tsr_matmul(in[0].get(), in[1].get(), o); }, 0, 0};
    mm.ulp_factor = 16;
    cs.push_back(mm);
    Case lin{std::string("linear/") + dname(d),
             [d](Dev dev, Inputs& in) {
               in.push_back(leaf(on(dev, values_cpu({3, 5}, d))));
               in.push_back(leaf(on(dev, values_cpu({4, 5}, d, 1.0))));
               in.push_back(leaf(on(dev, values_cpu({4}, d, 1.0))));
             },
             [](const Inputs& in, tsr_tensor** o) { return tsr_linear(in[0].get(), in[1].get(), in[2].get(), o); },
             0, 0};
    lin.ulp_factor = 16;
    cs.push_back(lin);
    Case ce{std::string("cross_entropy/") + dname(d),
            [d](Dev dev, Inputs& in) {
              in.push_back(leaf(on(dev, values_cpu({4, 6}, d, 3.0))));
              in.push_back(leaf(on(dev, ints_cpu({5, 0, 2, 2}, {4}))));
            },
            [](const Inputs& in, tsr_tensor** o) { return tsr_cross_entropy(in[0].get(), in[1].get(), o); }, 0, 0};
    ce.ulp_factor = 16;
    cs.push_back(ce);
  }
  add_reduce_cases(cs);
  sort_loss_cases(cs);
  add_index_family_cases(cs);
  return cs;
}

// The public ops with no CUDA path yet (TSR_ERR_UNSUPPORTED there); each
// leaves this list when it gains one and joins the sweep above. conv2d,
// batch norm and the poolings (max pooling included) are checked against
// the CPU by cuda_emulated_cudnn, attention by bindings_python_cuda_emulated.
const std::vector<const char*> kKnownGaps = {
    // Every primitive without eval_device when this was written (grep
    // eval_cpu without eval_device under src/ops), by family: none left.
};

class CudaOpSweep : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_OK(tsr_cuda_init()); }
};

TEST_F(CudaOpSweep, EveryCaseMatchesTheCpu) {
  const std::vector<Case> cs = cases();
  for (const Case& c : cs) run_case(c);
  std::printf("cuda_emulated_op_sweep: %zu cases. Known gaps (no CUDA path yet):\n", cs.size());
  for (const char* g : kKnownGaps) std::printf("  - %s\n", g);
}

// ---- error paths: the CUDA status and message are the CPU's ---------------

void expect_same_error(const std::function<tsr_status(Dev, tsr_tensor**)>& op) {
  H a, b;
  const tsr_status s_cpu = op(kCpuDev, &a.h);
  const std::string m_cpu = tsr_last_error_message();
  const tsr_status s_cuda = op(kCudaDev, &b.h);
  const std::string m_cuda = tsr_last_error_message();
  EXPECT_NE(s_cpu, TSR_OK);
  EXPECT_EQ(s_cpu, s_cuda);
  EXPECT_EQ(m_cpu, m_cuda);
  EXPECT_EQ(a.h, nullptr);
  EXPECT_EQ(b.h, nullptr);
}

TEST_F(CudaOpSweep, IndexOutOfRangeSaysWhatTheCpuSays) {
  // index_select: the first bad value and its position.
  expect_same_error([](Dev dev, tsr_tensor** o) {
    H x(on(dev, values_cpu({3, 4}, TSR_FLOAT32))), i(on(dev, ints_cpu({0, 2, 7, -1}, {4})));
    return tsr_index_select(x.h, 1, i.h, o);
  });
  expect_same_error([](Dev dev, tsr_tensor** o) {
    H x(on(dev, values_cpu({3, 4}, TSR_FLOAT32))), i(on(dev, ints_cpu({1, -1}, {2}, TSR_INT32)));
    return tsr_index_select(x.h, 0, i.h, o);
  });
  // gather, index non-contiguous
  expect_same_error([](Dev dev, tsr_tensor** o) {
    H x(on(dev, values_cpu({3, 4}, TSR_FLOAT32))), i0(on(dev, ints_cpu({0, 1, 2, 3, 4, 5}, {3, 2})));
    H i;
    tsr_transpose(i0.h, 0, 1, &i.h);
    return tsr_gather(x.h, 0, i.h, o);
  });
  // embedding
  expect_same_error([](Dev dev, tsr_tensor** o) {
    H w(on(dev, values_cpu({5, 2}, TSR_FLOAT32))), i(on(dev, ints_cpu({4, 5}, {1, 2})));
    return tsr_embedding(w.h, i.h, o);
  });
  // a long index: the bounds check runs block-wide; the first bad one wins
  expect_same_error([](Dev dev, tsr_tensor** o) {
    std::vector<int64_t> idx(500, 1);
    idx[170] = 9;
    idx[150] = -4;
    idx[499] = 3;
    H x(on(dev, values_cpu({3, 2}, TSR_FLOAT32))), i(on(dev, ints_cpu(idx, {500})));
    return tsr_index_select(x.h, 0, i.h, o);
  });
  expect_same_error([](Dev dev, tsr_tensor** o) {
    std::vector<int64_t> idx(400, 0);
    idx[333] = 2;
    H x(on(dev, values_cpu({2, 400}, TSR_FLOAT32))), i(on(dev, ints_cpu(idx, {1, 400})));
    return tsr_gather(x.h, 0, i.h, o);
  });
  // an index into an empty dim
  expect_same_error([](Dev dev, tsr_tensor** o) {
    H x(on(dev, values_cpu({3, 0}, TSR_FLOAT32))), i(on(dev, ints_cpu({0}, {1})));
    return tsr_index_select(x.h, 1, i.h, o);
  });
}

TEST_F(CudaOpSweep, ArgumentErrorsSayWhatTheCpuSays) {
  expect_same_error([](Dev dev, tsr_tensor** o) {  // a float condition
    H c(on(dev, values_cpu({3}, TSR_FLOAT32))), a(on(dev, values_cpu({3}, TSR_FLOAT32)));
    return tsr_where(c.h, a.h, a.h, o);
  });
  expect_same_error([](Dev dev, tsr_tensor** o) {  // pow of bools
    H a(on(dev, ints_cpu({1, 0}, {2}, TSR_BOOL)));
    return tsr_pow(a.h, a.h, o);
  });
  expect_same_error([](Dev dev, tsr_tensor** o) {  // a bound beyond float16's range
    H x(on(dev, values_cpu({3}, TSR_FLOAT16)));
    const double big = 1e6;
    return tsr_clamp(x.h, &big, nullptr, o);
  });
  expect_same_error([](Dev dev, tsr_tensor** o) {  // layer_norm of integers
    H x(on(dev, ints_cpu({1, 2, 3}, {3})));
    const int64_t ns[] = {3};
    return tsr_layer_norm(x.h, 1, ns, nullptr, nullptr, 1e-5, o);
  });
  expect_same_error([](Dev dev, tsr_tensor** o) {  // gather with an int32 index
    H x(on(dev, values_cpu({3}, TSR_FLOAT32))), i(on(dev, ints_cpu({0}, {1}, TSR_INT32)));
    return tsr_gather(x.h, 0, i.h, o);
  });
}

// The cuda-sort-loss family's argument errors (issue 32).
TEST_F(CudaOpSweep, SortLossErrorsSayWhatTheCpuSays) {
  expect_same_error([](Dev dev, tsr_tensor** o) {  // bmm: inner sizes differ
    H a(on(dev, values_cpu({2, 3, 4}, TSR_FLOAT32))), b(on(dev, values_cpu({2, 5, 2}, TSR_FLOAT32)));
    return tsr_bmm(a.h, b.h, o);
  });
  expect_same_error([](Dev dev, tsr_tensor** o) {  // baddbmm: input does not broadcast
    H i(on(dev, values_cpu({3, 3}, TSR_FLOAT32))), a(on(dev, values_cpu({2, 3, 4}, TSR_FLOAT32))),
        b(on(dev, values_cpu({2, 4, 2}, TSR_FLOAT32)));
    return tsr_baddbmm(i.h, a.h, b.h, 1.0, 1.0, o);
  });
  for (double bad : {1.5, -0.25, double(NAN)})  // binary_cross_entropy: an input outside [0, 1]
    expect_same_error([bad](Dev dev, tsr_tensor** o) {
      std::vector<double> v = {0.5, 0.25, 1.0, 0.0, bad, 0.75};
      tsr_tensor* xc = nullptr;
      const int64_t n = 6;
      ok(tsr_from_data(v.data(), v.size() * sizeof(double), 1, &n, TSR_FLOAT64, &xc), xc);
      H x(on(dev, xc)), t(on(dev, values_cpu({6}, TSR_FLOAT64, 0.5, 0.5)));
      return tsr_binary_cross_entropy(x.h, t.h, nullptr, TSR_REDUCTION_MEAN, o);
    });
  expect_same_error([](Dev dev, tsr_tensor** o) {  // binary_cross_entropy: a target of another dtype
    H x(on(dev, values_cpu({4}, TSR_FLOAT32, 0.4, 0.5))), t(on(dev, values_cpu({4}, TSR_FLOAT64, 0.5, 0.5)));
    return tsr_binary_cross_entropy(x.h, t.h, nullptr, TSR_REDUCTION_MEAN, o);
  });
  expect_same_error([](Dev dev, tsr_tensor** o) {  // softplus of integers
    H x(on(dev, ints_cpu({1, 2, 3}, {3})));
    return tsr_softplus(x.h, 1.0, 20.0, o);
  });
  expect_same_error([](Dev dev, tsr_tensor** o) {  // mse_loss of integers
    H x(on(dev, ints_cpu({1, 2, 3}, {3}))), y(on(dev, ints_cpu({1, 2, 3}, {3})));
    return tsr_mse_loss(x.h, y.h, TSR_REDUCTION_MEAN, o);
  });
  expect_same_error([](Dev dev, tsr_tensor** o) {  // an invalid reduction
    H x(on(dev, values_cpu({3}, TSR_FLOAT32))), y(on(dev, values_cpu({3}, TSR_FLOAT32)));
    return tsr_smooth_l1_loss(x.h, y.h, tsr_loss_reduction(3), 1.0, o);
  });
  expect_same_error([](Dev dev, tsr_tensor** o) {  // nll_loss: the first bad target (not the ignored one)
    H x(on(dev, values_cpu({2, 3, 2}, TSR_FLOAT32))), t(on(dev, ints_cpu({1, -5, 2, 3}, {2, 2})));
    return tsr_nll_loss(x.h, t.h, nullptr, TSR_REDUCTION_MEAN, -5, o);
  });
  expect_same_error([](Dev dev, tsr_tensor** o) {  // nll_loss: a negative target
    H x(on(dev, values_cpu({3, 4}, TSR_FLOAT32))), t(on(dev, ints_cpu({1, -2, 7}, {3})));
    return tsr_nll_loss(x.h, t.h, nullptr, TSR_REDUCTION_SUM, -100, o);
  });
  expect_same_error([](Dev dev, tsr_tensor** o) {  // cross_entropy with label smoothing: a bad target
    H x(on(dev, values_cpu({3, 4}, TSR_FLOAT32))), t(on(dev, ints_cpu({1, 4, 0}, {3})));
    return tsr_cross_entropy_loss(x.h, t.h, nullptr, TSR_REDUCTION_MEAN, -100, 0.1, o);
  });
  expect_same_error([](Dev dev, tsr_tensor** o) {  // nll_loss: a weight of the wrong size
    H x(on(dev, values_cpu({3, 4}, TSR_FLOAT32))), t(on(dev, ints_cpu({1, 2, 0}, {3}))),
        w(on(dev, values_cpu({3}, TSR_FLOAT32)));
    return tsr_nll_loss(x.h, t.h, w.h, TSR_REDUCTION_MEAN, -100, o);
  });
  expect_same_error([](Dev dev, tsr_tensor** o) {  // topk: k beyond the dim
    H x(on(dev, values_cpu({3, 4}, TSR_FLOAT32))), i;
    return tsr_topk(x.h, 5, 1, true, o, &i.h);
  });
  expect_same_error([](Dev dev, tsr_tensor** o) {  // kthvalue: k = 0
    H x(on(dev, values_cpu({3, 4}, TSR_FLOAT32))), i;
    return tsr_kthvalue(x.h, 0, 1, false, o, &i.h);
  });
  expect_same_error([](Dev dev, tsr_tensor** o) {  // kthvalue: an empty dim
    H x(on(dev, values_cpu({3, 0}, TSR_FLOAT32))), i;
    return tsr_kthvalue(x.h, 1, 1, false, o, &i.h);
  });
  expect_same_error([](Dev dev, tsr_tensor** o) {  // sort: a dim out of range
    H x(on(dev, values_cpu({3, 4}, TSR_FLOAT32))), i;
    return tsr_sort(x.h, 2, false, false, o, &i.h);
  });
  expect_same_error([](Dev dev, tsr_tensor** o) {  // huber_loss: delta must be positive
    H x(on(dev, values_cpu({3}, TSR_FLOAT32))), y(on(dev, values_cpu({3}, TSR_FLOAT32)));
    return tsr_huber_loss(x.h, y.h, TSR_REDUCTION_MEAN, 0.0, o);
  });
}

}  // namespace

// ---- reductions, extrema, scans, statistics: error paths (cuda-reduce) ----
namespace {

TEST_F(CudaOpSweep, ReductionErrorsSayWhatTheCpuSays) {
  for (auto fn : {tsr_min, tsr_max})  // nothing to reduce
    expect_same_error([fn](Dev dev, tsr_tensor** o) {
      H x(on(dev, values_cpu({0, 3}, TSR_FLOAT32)));
      return fn(x.h, o);
    });
  for (auto fn : {tsr_min_dim, tsr_max_dim})  // an empty reduced dim
    expect_same_error([fn](Dev dev, tsr_tensor** o) {
      H x(on(dev, values_cpu({2, 0}, TSR_FLOAT32))), idx;
      return fn(x.h, 1, false, o, &idx.h);
    });
  for (auto fn : {tsr_amax, tsr_amin})
    expect_same_error([fn](Dev dev, tsr_tensor** o) {
      H x(on(dev, values_cpu({0, 3}, TSR_FLOAT32)));
      const int64_t dims[] = {0};
      return fn(x.h, 1, dims, false, o);
    });
  expect_same_error([](Dev dev, tsr_tensor** o) {  // a dim out of range
    H x(on(dev, values_cpu({2, 3}, TSR_FLOAT32))), idx;
    return tsr_min_dim(x.h, 2, false, o, &idx.h);
  });
  expect_same_error([](Dev dev, tsr_tensor** o) {  // argmin of bools
    H x(on(dev, ints_cpu({1, 0}, {2}, TSR_BOOL)));
    return tsr_argmin(x.h, 0, false, o);
  });
  expect_same_error([](Dev dev, tsr_tensor** o) {  // shapes that do not broadcast
    H a(on(dev, values_cpu({2, 3}, TSR_FLOAT32))), b(on(dev, values_cpu({2}, TSR_FLOAT32)));
    return tsr_maximum(a.h, b.h, o);
  });
  expect_same_error([](Dev dev, tsr_tensor** o) {  // var of integers
    H x(on(dev, ints_cpu({1, 2, 3}, {3})));
    return tsr_var(x.h, 0, nullptr, 1, false, o);
  });
  expect_same_error([](Dev dev, tsr_tensor** o) {  // a repeated dim
    H x(on(dev, values_cpu({2, 3}, TSR_FLOAT32)));
    const int64_t dims[] = {1, -1};
    return tsr_std(x.h, 2, dims, 1, false, o);
  });
  expect_same_error([](Dev dev, tsr_tensor** o) {  // norm of integers
    H x(on(dev, ints_cpu({1, 2, 3}, {3})));
    return tsr_norm(x.h, 2.0, 0, nullptr, false, o);
  });
  expect_same_error([](Dev dev, tsr_tensor** o) {  // a scan dim out of range
    H x(on(dev, values_cpu({2, 3}, TSR_FLOAT32)));
    return tsr_cumsum(x.h, 2, nullptr, o);
  });
  expect_same_error([](Dev dev, tsr_tensor** o) {  // a storage-only result dtype
    H x(on(dev, values_cpu({2, 3}, TSR_FLOAT32)));
    const tsr_dtype u16 = TSR_UINT16;
    return tsr_cumprod(x.h, 0, &u16, o);
  });
  expect_same_error([](Dev dev, tsr_tensor** o) {
    H x(on(dev, values_cpu({2, 3}, TSR_FLOAT32)));
    const tsr_dtype u16 = TSR_UINT16;
    return tsr_prod_dim(x.h, -3, false, &u16, o);
  });
  expect_same_error([](Dev dev, tsr_tensor** o) {
    H x(on(dev, values_cpu({2, 3}, TSR_FLOAT32)));
    const tsr_dtype u32 = TSR_UINT32;
    return tsr_prod(x.h, &u32, o);
  });
}

// ---- the scatter / index family's errors: the CPU's status and message ----

TEST_F(CudaOpSweep, IndexFamilyErrorsSayWhatTheCpuSays) {
  // index values out of range, each op's own message
  expect_same_error([](Dev dev, tsr_tensor** o) {
    H x(on(dev, values_cpu({3, 4}, TSR_FLOAT32))), i(on(dev, ints_cpu({0, 1, 4, 2}, {1, 4}))),
        s(on(dev, values_cpu({1, 4}, TSR_FLOAT32)));
    return tsr_scatter(x.h, 1, i.h, s.h, o);
  });
  expect_same_error([](Dev dev, tsr_tensor** o) {
    H x(on(dev, values_cpu({3, 4}, TSR_FLOAT32))), i(on(dev, ints_cpu({0, -1}, {2, 1})));
    return tsr_scatter_value(x.h, 0, i.h, 1.0, o);
  });
  expect_same_error([](Dev dev, tsr_tensor** o) {
    H x(on(dev, values_cpu({3, 4}, TSR_FLOAT32))), i(on(dev, ints_cpu({1, 3}, {2}, TSR_INT32))),
        s(on(dev, values_cpu({2, 4}, TSR_FLOAT32)));
    return tsr_index_add(x.h, 0, i.h, s.h, 1.0, o);
  });
  expect_same_error([](Dev dev, tsr_tensor** o) {
    H x(on(dev, values_cpu({3, 4}, TSR_FLOAT32))), i(on(dev, ints_cpu({-1}, {1}))),
        s(on(dev, values_cpu({3, 1}, TSR_FLOAT32)));
    return tsr_index_copy(x.h, 1, i.h, s.h, o);
  });
  expect_same_error([](Dev dev, tsr_tensor** o) {
    H x(on(dev, values_cpu({3, 4}, TSR_FLOAT32))), i(on(dev, ints_cpu({0, 3, -5}, {3})));
    return tsr_index_fill(x.h, 1, i.h, 2.0, o);
  });
  expect_same_error([](Dev dev, tsr_tensor** o) {  // the second index's dim: its own size
    H x(on(dev, values_cpu({3, 4}, TSR_FLOAT32))), a(on(dev, ints_cpu({0, 2}, {2}))), b(on(dev, ints_cpu({1, -5}, {2})));
    const tsr_tensor* idx[] = {a.h, b.h};
    return tsr_index(x.h, 2, idx, o);
  });
  expect_same_error([](Dev dev, tsr_tensor** o) {
    H x(on(dev, values_cpu({3, 4}, TSR_FLOAT32))), a(on(dev, ints_cpu({3}, {1}))), v(on(dev, values_cpu({4}, TSR_FLOAT32)));
    const tsr_tensor* idx[] = {a.h};
    return tsr_index_put(x.h, 1, idx, v.h, true, o);
  });
  // argument errors
  expect_same_error([](Dev dev, tsr_tensor** o) {  // values that do not broadcast to the result
    H x(on(dev, values_cpu({3, 4}, TSR_FLOAT32))), a(on(dev, ints_cpu({0, 1}, {2}))), v(on(dev, values_cpu({3}, TSR_FLOAT32)));
    const tsr_tensor* idx[] = {a.h};
    return tsr_index_put(x.h, 1, idx, v.h, false, o);
  });
  expect_same_error([](Dev dev, tsr_tensor** o) {  // a mask of the wrong shape
    H x(on(dev, values_cpu({3, 4}, TSR_FLOAT32))), m(on(dev, mask_cpu({3, 5})));
    const tsr_tensor* idx[] = {m.h};
    return tsr_index(x.h, 1, idx, o);
  });
  expect_same_error([](Dev dev, tsr_tensor** o) {  // indices that do not broadcast
    H x(on(dev, values_cpu({3, 4}, TSR_FLOAT32))), a(on(dev, ints_cpu({0, 1}, {2}))), b(on(dev, ints_cpu({0, 1, 2}, {3})));
    const tsr_tensor* idx[] = {a.h, b.h};
    return tsr_index(x.h, 2, idx, o);
  });
  expect_same_error([](Dev dev, tsr_tensor** o) {  // a float index
    H x(on(dev, values_cpu({3, 4}, TSR_FLOAT32))), a(on(dev, values_cpu({2}, TSR_FLOAT32)));
    const tsr_tensor* idx[] = {a.h};
    return tsr_index(x.h, 1, idx, o);
  });
  expect_same_error([](Dev dev, tsr_tensor** o) {  // a float mask
    H x(on(dev, values_cpu({3}, TSR_FLOAT32))), m(on(dev, values_cpu({3}, TSR_FLOAT32)));
    return tsr_masked_fill(x.h, m.h, 1.0, o);
  });
  expect_same_error([](Dev dev, tsr_tensor** o) {
    H x(on(dev, values_cpu({3}, TSR_FLOAT32))), m(on(dev, ints_cpu({1, 0}, {2}, TSR_BOOL)));
    return tsr_masked_select(x.h, m.h, o);
  });
  expect_same_error([](Dev dev, tsr_tensor** o) {  // scatter with an int32 index
    H x(on(dev, values_cpu({3}, TSR_FLOAT32))), i(on(dev, ints_cpu({0}, {1}, TSR_INT32)));
    return tsr_scatter_value(x.h, 0, i.h, 1.0, o);
  });
  expect_same_error([](Dev dev, tsr_tensor** o) {  // index_copy: source of another dtype
    H x(on(dev, values_cpu({3}, TSR_FLOAT32))), i(on(dev, ints_cpu({0}, {1}))), s(on(dev, values_cpu({1}, TSR_FLOAT64)));
    return tsr_index_copy(x.h, 0, i.h, s.h, o);
  });
  expect_same_error([](Dev dev, tsr_tensor** o) {  // index_add: wrong number of indices
    H x(on(dev, values_cpu({3, 2}, TSR_FLOAT32))), i(on(dev, ints_cpu({0, 1}, {2}))), s(on(dev, values_cpu({3, 2}, TSR_FLOAT32)));
    return tsr_index_add(x.h, 0, i.h, s.h, 1.0, o);
  });
  expect_same_error([](Dev dev, tsr_tensor** o) {  // flip: a dim twice
    H x(on(dev, values_cpu({3, 2}, TSR_FLOAT32)));
    const int64_t dims[] = {1, -1};
    return tsr_flip(x.h, 2, dims, o);
  });
}

// In-place writes keep torch's aliasing and version rules on CUDA: the same
// refusals, and a saved tensor written in place fails the backward alike.
void expect_same_failure(const std::function<tsr_status(Dev)>& op) {
  const tsr_status s_cpu = op(kCpuDev);
  const std::string m_cpu = tsr_last_error_message();
  const tsr_status s_cuda = op(kCudaDev);
  EXPECT_NE(s_cpu, TSR_OK);
  EXPECT_EQ(s_cpu, s_cuda);
  EXPECT_EQ(m_cpu, tsr_last_error_message());
}

TEST_F(CudaOpSweep, IndexFamilyInPlaceRulesAreTheCpus) {
  expect_same_failure([](Dev dev) {  // source aliasing self
    H x(on(dev, values_cpu({3, 3}, TSR_FLOAT32))), i(on(dev, ints_cpu({0, 1, 2}, {3})));
    return tsr_index_copy_(x.h, 0, i.h, x.h);
  });
  expect_same_failure([](Dev dev) {  // a mask sharing self's memory
    H x(on(dev, ints_cpu({1, 0, 1}, {3}, TSR_BOOL)));
    return tsr_masked_fill_(x.h, x.h, 0.0);
  });
  expect_same_failure([](Dev dev) {  // writing an expanded tensor
    H x(on(dev, values_cpu({1, 3}, TSR_FLOAT32))), e, m(on(dev, mask_cpu({2, 3})));
    const int64_t sizes[] = {2, 3};
    if (tsr_expand(x.h, 2, sizes, &e.h) != TSR_OK) return TSR_OK;
    return tsr_masked_fill_(e.h, m.h, 1.0);
  });
  expect_same_failure([](Dev dev) {  // a leaf that requires grad
    H x(on(dev, values_cpu({4}, TSR_FLOAT32))), i(on(dev, ints_cpu({1}, {1})));
    tsr_set_requires_grad(x.h, true);
    return tsr_index_fill_(x.h, 0, i.h, 0.0);
  });
  expect_same_failure([](Dev dev) {  // a saved tensor modified: backward refuses
    H x(on(dev, values_cpu({4}, TSR_FLOAT32))), a, b, i(on(dev, ints_cpu({2, 0}, {2})));
    tsr_set_requires_grad(x.h, true);
    if (tsr_clone(x.h, TSR_PRESERVE_FORMAT, &a.h) != TSR_OK || tsr_mul(a.h, a.h, &b.h) != TSR_OK) return TSR_OK;
    const tsr_tensor* idx[] = {i.h};
    H v(on(dev, values_cpu({}, TSR_FLOAT32)));
    if (tsr_index_put_(a.h, 1, idx, v.h, false) != TSR_OK) return TSR_OK;
    H g(on(dev, values_cpu({4}, TSR_FLOAT32)));
    return tsr_backward(b.h, g.h, false);
  });
}

// torch's cuda_x[cpu_index] and masked_fill with a 0-dim CPU value: the
// index moves to the tensor's device, the value joins it (its gradient
// returns to the CPU); a CPU mask is still refused (torch's masked_fill
// wants self and mask on one device).
TEST_F(CudaOpSweep, CpuIndicesAndCpuScalarValuesJoinTheCudaTensor) {
  H x_cpu(values_cpu({4, 3}, TSR_FLOAT32)), x(on(kCudaDev, values_cpu({4, 3}, TSR_FLOAT32)));
  H idx(ints_cpu({2, -1, 0}, {3}));
  const tsr_tensor* ix[] = {idx.h};
  H want, got;
  ASSERT_OK(tsr_index(x_cpu.h, 1, ix, &want.h));
  ASSERT_OK(tsr_index(x.h, 1, ix, &got.h));
  expect_close("cuda_x[cpu_index]", want.h, got.h, 0, 0);
  H m(mask_cpu({4}, 0.1)), v(values_cpu({}, TSR_FLOAT32, 0.0, 7.0));
  const tsr_tensor* im[] = {m.h};
  H want2, got2;
  ASSERT_OK(tsr_index_put(x_cpu.h, 1, im, v.h, false, &want2.h));
  H v_dev(on(kCudaDev, values_cpu({}, TSR_FLOAT32, 0.0, 7.0)));
  ASSERT_OK(tsr_index_put(x.h, 1, im, v_dev.h, false, &got2.h));
  expect_close("cuda_x[cpu_mask] = v", want2.h, got2.h, 0, 0);
  // masked_fill with a CPU value that requires grad
  H mask_dev(on(kCudaDev, mask_cpu({4, 3}, 0.2))), mask_host(mask_cpu({4, 3}, 0.2));
  H val(values_cpu({}, TSR_FLOAT32, 0.0, 3.0)), val2(values_cpu({}, TSR_FLOAT32, 0.0, 3.0));
  ASSERT_OK(tsr_set_requires_grad(val.h, true));
  ASSERT_OK(tsr_set_requires_grad(val2.h, true));
  H y_cpu, y;
  ASSERT_OK(tsr_masked_fill_tensor(x_cpu.h, mask_host.h, val.h, &y_cpu.h));
  ASSERT_OK(tsr_masked_fill_tensor(x.h, mask_dev.h, val2.h, &y.h));
  expect_close("masked_fill(cpu value)", y_cpu.h, y.h, 0, 0);
  H seed_cpu(values_cpu({4, 3}, TSR_FLOAT32, 1.0, 0.5)), seed(on(kCudaDev, values_cpu({4, 3}, TSR_FLOAT32, 1.0, 0.5)));
  ASSERT_OK(tsr_backward(y_cpu.h, seed_cpu.h, false));
  ASSERT_OK(tsr_backward(y.h, seed.h, false));
  H g_cpu, g;
  ASSERT_OK(tsr_grad(val.h, &g_cpu.h));
  ASSERT_OK(tsr_grad(val2.h, &g.h));
  ASSERT_NE(g.h, nullptr);
  EXPECT_EQ(tsr_tensor_device_type(g.h), TSR_DEVICE_CPU);
  const std::vector<double> a = host_values(g_cpu.h), b = host_values(g.h);
  EXPECT_NEAR(a[0], b[0], 1e-5);
  // a CPU mask for a CUDA tensor: refused
  H refused;
  EXPECT_EQ(tsr_masked_fill(x.h, mask_host.h, 1.0, &refused.h), TSR_ERR_DEVICE_MISMATCH) << tsr_last_error_message();
  EXPECT_EQ(refused.h, nullptr);
}

}  // namespace

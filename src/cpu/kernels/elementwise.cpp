#include "cpu/kernels/elementwise.h"

#include <cmath>

#include "core/factory.h"
#include "cpu/kernels/empty_cpu.h"
#include "core/layout.h"
#include "cpu/kernels/copy.h"
#include "cpu/kernels/elementwise_simd.h"
#include "cpu/kernels/integer_simd.h"
#include "cpu/kernels/parallel_for.h"
#include "cpu/kernels/strided_split.h"
#include "cpu/kernels/transposed_binary.h"

namespace tsr::kernels {

Tensor zeros(const Shape& sizes, tsr_dtype dtype) {
  Tensor t = empty_cpu(sizes, dtype);
  fill(t, 0.0);
  return t;
}

namespace {

// Strides of `t` broadcast to `shape`: 0 where t's dim was size 1 (or absent)
// and the output's is not (TensorIterator's compute_strides).
Shape broadcast_strides(const Tensor& t, const Shape& shape) {
  Shape st(shape.size(), 0);
  size_t off = shape.size() - size_t(t.ndim());
  for (size_t i = 0; i < size_t(t.ndim()); ++i)
    st[off + i] = (t.sizes()[i] == 1 && shape[off + i] != 1) ? 0 : t.strides()[i];
  return st;
}

}  // namespace

Shape output_strides(const Shape& shape, const TensorRefs& inputs) {
  const size_t n = shape.size();
  // Fast setup: same shapes and all contiguous / all channels_last / all
  // the same dense strides.
  bool same_shape = true;
  for (auto* t : inputs) same_shape &= t->sizes() == shape;
  if (same_shape && !inputs.empty()) {
    auto all = [&](auto pred) {
      for (auto* t : inputs)
        if (!pred(*t)) return false;
      return true;
    };
    if (all([](const Tensor& t) { return is_contiguous_strides(t.sizes(), t.strides()); }))
      return contiguous_strides(shape);
    if (all([](const Tensor& t) { return is_channels_last_contiguous(t.sizes(), t.strides()); }))
      return strides_for_format(shape, TSR_CHANNELS_LAST);
    const Shape& s0 = inputs[0]->strides();
    if (all([&](const Tensor& t) {
          return t.strides() == s0 && is_non_overlapping_and_dense(t.sizes(), t.strides());
        }))
      return s0;
  }
  OperandStrides strides;
  for (auto* t : inputs) strides.push_back(broadcast_strides(*t, shape));
  const auto perm = dim_order(shape, strides);
  Shape out(n);
  int64_t next = 1;
  for (size_t i = 0; i < n; ++i) {  // compatible_stride over the permuted shape
    out[perm[i]] = next;
    next *= shape[perm[i]];
  }
  return out;
}

namespace {

// The floating dtypes the SIMD kernels (elementwise_simd.h) take.
template <typename T>
constexpr bool simd_type = std::is_same_v<T, float> || std::is_same_v<T, double> ||
                           std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;
template <typename T>
constexpr tsr_dtype simd_dtype() {
  if constexpr (std::is_same_v<T, float>) return TSR_FLOAT32;
  else if constexpr (std::is_same_v<T, double>) return TSR_FLOAT64;
  else if constexpr (std::is_same_v<T, Half>) return TSR_FLOAT16;
  else return TSR_BFLOAT16;
}

// The integer and bool dtypes the integer SIMD kernels (integer_simd.h) take.
template <typename T>
constexpr tsr_dtype int_dtype() {
  if constexpr (std::is_same_v<T, bool>) return TSR_BOOL;
  else if constexpr (std::is_same_v<T, uint8_t>) return TSR_UINT8;
  else if constexpr (std::is_same_v<T, int8_t>) return TSR_INT8;
  else if constexpr (std::is_same_v<T, int16_t>) return TSR_INT16;
  else if constexpr (std::is_same_v<T, int32_t>) return TSR_INT32;
  else return TSR_INT64;
}

// No SIMD kernel for the op (integers, bool, ops without one).
constexpr int kNoSimd = -1;

// A 2-D geometry whose output and one input run unit-stride inner while the
// other input is transposed (unit stride on the outer dim, e.g. a + b.t()):
// float32/float64 arithmetic goes to transposed_binary.h's fused register
// tiles; for other ops and dtypes, TB x TB tiles of the transposed input are
// transposed into an L1 buffer
// with copy.h's register micro-tiles (8x8 AVX for 4-byte elements; an
// element-by-element gather took half the time of the whole op) and each
// tile row goes through the SIMD kernel, so both inputs are read with
// locality. Bands of TB output rows (of every plane, for a batch of planes)
// are split over threads. False when the geometry is not of that form.
template <typename T>
bool run_binary_transposed(simd::Bin op, const LoopGeometry<3>& g, char* const base[3]) {
  constexpr int64_t E = sizeof(T), TB = 64;
  // 2-D, or a batch of 2-D planes (a channels_last operand with a
  // contiguous one: planes C x HW per image).
  const size_t nd = g.sizes.size();
  if ((nd != 2 && nd != 3) || g.strides[0][0] != E) return false;
  int t = 0;  // the transposed operand (1 or 2)
  for (int k = 1; k <= 2; ++k)
    if (g.strides[k][0] != E && g.strides[k][1] == E && g.strides[k][0] != 0) t = k;
  if (t == 0 || g.strides[3 - t][0] != E) return false;
  const int u = 3 - t;
  const int64_t n0 = g.sizes[0], n1 = g.sizes[1], st0 = g.strides[t][0];
  const int64_t bands = (n1 + TB - 1) / TB, planes = nd == 3 ? g.sizes[2] : 1;
  // Work items: (plane, band of TB rows), plane-major.
  parallel_for(planes * bands, std::max<int64_t>(1, kGrainSize / (TB * n0)), [&](int64_t item_begin, int64_t item_end) {
    alignas(64) T buf[TB * TB];
    for (int64_t item = item_begin; item < item_end;) {
      const int64_t plane = item / bands, band_begin = item % bands;
      const int64_t band_end = std::min(bands, band_begin + (item_end - item));
      item += band_end - band_begin;
      char* const p[3] = {base[0] + (nd == 3 ? plane * g.strides[0][2] : 0),
                          base[1] + (nd == 3 ? plane * g.strides[1][2] : 0),
                          base[2] + (nd == 3 ? plane * g.strides[2][2] : 0)};
      const int64_t row_begin = band_begin * TB, row_end = std::min(n1, band_end * TB);
      // float32/float64 add, sub, mul, div: transposed in registers on the way.
      if (fused_transposed_binary(op, E, p[0] + row_begin * g.strides[0][1], g.strides[0][1],
                                  p[u] + row_begin * g.strides[u][1], g.strides[u][1], p[t] + row_begin * E, st0,
                                  n0, row_end - row_begin, t == 2))
        continue;
      for (int64_t i1 = row_begin; i1 < row_end; i1 += TB) {
        const int64_t m1 = std::min(TB, n1 - i1);
        for (int64_t i0 = 0; i0 < n0; i0 += TB) {
          const int64_t m0 = std::min(TB, n0 - i0);
          // buf[r * TB + c] = transposed operand at (row i1 + r, column i0 + c).
          transpose_block(reinterpret_cast<char*>(buf), p[t] + i1 * E + i0 * st0, m0, m1, TB * E, st0, E);
          for (int64_t r = 0; r < m1; ++r) {
            char* o = p[0] + (i1 + r) * g.strides[0][1] + i0 * E;
            const char* un = p[u] + (i1 + r) * g.strides[u][1] + i0 * E;
            const T* tr = buf + r * TB;
            if (t == 2) simd::binary(op, simd_dtype<T>(), o, un, tr, m0, simd::Bcast::None);
            else simd::binary(op, simd_dtype<T>(), o, tr, un, m0, simd::Bcast::None);
          }
        }
      }
    }
  });
  return true;
}

// `simd_op`: the simd::Bin computing f, or kNoSimd. Floating runs that are
// unit-stride (or a stride-0 broadcast of one input) go through the SIMD
// kernel, which gives f's bits (elementwise_simd.h); the rest stay scalar.
template <typename T, typename F>
void run_binary(const Tensor& out, const Tensor& a, const Tensor& b, F f, int simd_op = kNoSimd) {
  // a and b read through their broadcast strides (0 on broadcast dims):
  // the geometry of expand(a, shape) without building the view.
  const Shape& shape = out.sizes();
  auto g = make_geometry<3>(shape, {byte_strides(out),
                                    scaled_strides(broadcast_strides(a, shape), a.element_size()),
                                    scaled_strides(broadcast_strides(b, shape), b.element_size())});
  char* const base[3] = {static_cast<char*>(out.data_ptr()), static_cast<char*>(a.data_ptr()),
                         static_cast<char*>(b.data_ptr())};
  constexpr bool vec = simd_type<T>;
  if constexpr (vec) {
    if (simd_op != kNoSimd && run_binary_transposed<T>(simd::Bin(simd_op), g, base)) return;
  }
  parallel_for_each_run<3>(g, {base[0], base[1], base[2]}, out.numel(),
                  [&](char** p, const int64_t* s, int64_t n) {
                    T* o = reinterpret_cast<T*>(p[0]);
                    const T* x = reinterpret_cast<const T*>(p[1]);
                    const T* y = reinterpret_cast<const T*>(p[2]);
                    const int64_t so = s[0] / int64_t(sizeof(T)), sx = s[1] / int64_t(sizeof(T)),
                                  sy = s[2] / int64_t(sizeof(T));
                    using C = compute_t<T>;
                    if constexpr (vec) {
                      if (simd_op != kNoSimd && so == 1 && (sx == 1 || sy == 1) && sx <= 1 && sy <= 1 &&
                          sx >= 0 && sy >= 0) {
                        const auto bc = sx == 0 ? simd::Bcast::A : sy == 0 ? simd::Bcast::B : simd::Bcast::None;
                        simd::binary(simd::Bin(simd_op), simd_dtype<T>(), o, x, y, n, bc);
                        return;
                      }
                    }
                    if constexpr (std::is_integral_v<T>) {
                      // integer/bool runs: the same unit-stride or broadcast shapes
                      if (simd_op != kNoSimd && so == 1 && (sx == 1 || sy == 1) && sx <= 1 && sy <= 1 &&
                          sx >= 0 && sy >= 0) {
                        const auto bc = sx == 0 ? simd::Bcast::A : sy == 0 ? simd::Bcast::B : simd::Bcast::None;
                        if (simd::int_binary(simd::Bin(simd_op), int_dtype<T>(), o, x, y, n, bc)) return;
                      }
                    }
                    if (so == 1 && sx == 1 && sy == 1) {
                      for (int64_t i = 0; i < n; ++i) o[i] = T(f(C(x[i]), C(y[i])));
                    } else if (so == 1 && sx == 1 && sy == 0) {
                      const C yv = C(y[0]);
                      for (int64_t i = 0; i < n; ++i) o[i] = T(f(C(x[i]), yv));
                    } else {
                      for (int64_t i = 0; i < n; ++i) o[i * so] = T(f(C(x[i * sx]), C(y[i * sy])));
                    }
                  });
}

// `simd_op`: the simd::Un computing f, or kNoSimd; `k`/`simd_bin`: f is
// simd_bin(x, k) with k in the compute type (the scalar ops).
template <typename T, typename F>
void run_unary(const Tensor& out, const Tensor& a, F f, int simd_op = kNoSimd, int simd_bin = kNoSimd,
               double k = 0) {
  auto g = make_geometry<2>(out.sizes(), {byte_strides(out), byte_strides(a)});
  parallel_for_each_run<2>(g, {static_cast<char*>(out.data_ptr()), static_cast<char*>(a.data_ptr())},
                           out.numel(), [&](char** p, const int64_t* s, int64_t n) {
                    T* o = reinterpret_cast<T*>(p[0]);
                    const T* x = reinterpret_cast<const T*>(p[1]);
                    const int64_t so = s[0] / int64_t(sizeof(T)), sx = s[1] / int64_t(sizeof(T));
                    using C = compute_t<T>;
                    if constexpr (simd_type<T>) {
                      if (so == 1 && sx == 1) {
                        if (simd_op != kNoSimd) {
                          simd::unary(simd::Un(simd_op), simd_dtype<T>(), o, x, n);
                          return;
                        }
                        if (simd_bin != kNoSimd) {
                          simd::binary_scalar(simd::Bin(simd_bin), simd_dtype<T>(), o, x, k, n);
                          return;
                        }
                      }
                    }
                    if constexpr (std::is_integral_v<T>) {
                      if (so == 1 && sx == 1 && simd_op != kNoSimd &&
                          simd::int_unary(simd::Un(simd_op), int_dtype<T>(), o, x, n))
                        return;
                    }
                    if (so == 1 && sx == 1)
                      for (int64_t i = 0; i < n; ++i) o[i] = T(f(C(x[i])));
                    else
                      for (int64_t i = 0; i < n; ++i) o[i * so] = T(f(C(x[i * sx])));
                  });
}

Tensor as_dtype(const Tensor& t, tsr_dtype d) {
  if (t.dtype() == d) return t;
  Tensor out = empty_like(t, d, TSR_PRESERVE_FORMAT);
  copy_strided(out, t);
  return out;
}

Tensor new_output(const Shape& shape, const TensorRefs& inputs, tsr_dtype d) {
  // The output lives where the inputs do (run() has checked they agree).
  return empty_strided(shape, output_strides(shape, inputs), d, inputs.at(0)->device());
}

}  // namespace

namespace {

// torch.result_type for two tensors: a 0-dim operand only takes part when
// its category (bool < integer < floating) is above the dimensioned
// operands' (ATen's ResultTypeState / combine_categories), so
// float32[3] + float64[] is float32 but int32[3] + float64[] is float64.
tsr_dtype result_type(const Tensor& a, const Tensor& b) {
  if ((a.ndim() == 0) == (b.ndim() == 0)) return promote_types(a.dtype(), b.dtype());
  const tsr_dtype dim = a.ndim() ? a.dtype() : b.dtype();
  const tsr_dtype zero = a.ndim() ? b.dtype() : a.dtype();
  if (is_floating(dim)) return dim;
  if (dim == TSR_BOOL || is_floating(zero)) return promote_types(dim, zero);
  return dim;
}

// Integer add/sub/mul/neg wrap modulo 2^bits as in torch; done in the
// unsigned type so that int32/int64 overflow is defined behaviour.
template <typename C>
C wrap_add(C x, C y) {
  if constexpr (std::is_integral_v<C>) {
    using U = std::make_unsigned_t<C>;
    return C(U(U(x) + U(y)));
  } else {
    return C(x + y);
  }
}
template <typename C>
C wrap_sub(C x, C y) {
  if constexpr (std::is_integral_v<C>) {
    using U = std::make_unsigned_t<C>;
    return C(U(U(x) - U(y)));
  } else {
    return C(x - y);
  }
}
template <typename C>
C wrap_neg(C x) {
  if constexpr (std::is_integral_v<C>) return wrap_sub(C(0), x);
  else return C(-x);  // keeps -0.0
}
template <typename C>
C wrap_mul(C x, C y) {
  if constexpr (std::is_integral_v<C>) {
    // Through uint64_t: U(x) * U(y) for 8/16-bit U would promote to int
    // and could overflow it.
    return C(std::make_unsigned_t<C>(uint64_t(std::make_unsigned_t<C>(x)) *
                                     uint64_t(std::make_unsigned_t<C>(y))));
  } else {
    return C(x * y);
  }
}

}  // namespace

tsr_dtype binary_result_dtype(BinaryOp op, const Tensor& a, const Tensor& b) {
  tsr_dtype d = result_type(a, b);
  TSR_CHECK(!(op == BinaryOp::Sub && d == TSR_BOOL), TSR_ERR_DTYPE_MISMATCH,
            "Subtraction, the `-` operator, with two bool tensors is not supported. Use the "
            "`^` or `logical_xor()` operator instead.");
  TSR_CHECK(!(op == BinaryOp::Sub && (a.dtype() == TSR_BOOL || b.dtype() == TSR_BOOL)),
            TSR_ERR_DTYPE_MISMATCH,
            "Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
            "trying to invert a mask, use the `~` or `logical_not()` operator instead.");
  return op == BinaryOp::Div && is_integral(d, true) ? TSR_FLOAT32 : d;
}

tsr_dtype unary_result_dtype(UnaryOp op, tsr_dtype d) {
  TSR_CHECK(!(op == UnaryOp::Neg && d == TSR_BOOL), TSR_ERR_DTYPE_MISMATCH,
            "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
            "invert a mask, use the `~` or `logical_not()` operator instead.");
  TSR_CHECK(!(op == UnaryOp::Relu && d == TSR_BOOL), TSR_ERR_DTYPE_MISMATCH,
            "Boolean inputs not supported for relu");
  return (op == UnaryOp::Exp || op == UnaryOp::Log) && !is_floating(d) ? TSR_FLOAT32 : d;
}

Tensor binary(BinaryOp op, const Tensor& a0, const Tensor& b0) {
  TSR_CHECK(a0.device() == b0.device(), TSR_ERR_DEVICE_MISMATCH,
            "Expected all tensors to be on the same device");
  const tsr_dtype d = binary_result_dtype(op, a0, b0);
  Shape shape = broadcast_shapes(a0.sizes(), b0.sizes());
  Tensor a = as_dtype(a0, d), b = as_dtype(b0, d);
  Tensor out = new_output(shape, {&a0, &b0}, d);
  if (out.numel() == 0) return out;
  dispatch_all(d, [&]<typename T>() {
    using C = compute_t<T>;
    if constexpr (std::is_same_v<T, bool>) {
      switch (op) {  // bool arithmetic as PyTorch: add = or, mul = and
        case BinaryOp::Add: run_binary<T>(out, a, b, [](C x, C y) { return x || y; }, int(simd::Bin::Add)); break;
        case BinaryOp::Mul: run_binary<T>(out, a, b, [](C x, C y) { return x && y; }, int(simd::Bin::Mul)); break;
        default: fail(TSR_ERR_INTERNAL, "unreachable bool op");
      }
    } else {
      switch (op) {
        case BinaryOp::Add: run_binary<T>(out, a, b, [](C x, C y) { return wrap_add(x, y); }, int(simd::Bin::Add)); break;
        case BinaryOp::Sub: run_binary<T>(out, a, b, [](C x, C y) { return wrap_sub(x, y); }, int(simd::Bin::Sub)); break;
        case BinaryOp::Mul: run_binary<T>(out, a, b, [](C x, C y) { return wrap_mul(x, y); }, int(simd::Bin::Mul)); break;
        case BinaryOp::Div: run_binary<T>(out, a, b, [](C x, C y) { return C(x / y); }, int(simd::Bin::Div)); break;
      }
    }
  });
  return out;
}

Tensor mul_scalar(const Tensor& a, double s) {
  Tensor out = new_output(a.sizes(), {&a}, a.dtype());
  if (out.numel() == 0) return out;
  dispatch_floating(a.dtype(), "mul(scalar)", [&]<typename T>() {
    using C = compute_t<T>;
    const C k = C(s);
    run_unary<T>(out, a, [k](C x) { return C(x * k); }, kNoSimd, int(simd::Bin::Mul), s);
  });
  return out;
}

Tensor add_scalar(const Tensor& a, double s) {
  Tensor out = new_output(a.sizes(), {&a}, a.dtype());
  if (out.numel() == 0) return out;
  dispatch_floating(a.dtype(), "add(scalar)", [&]<typename T>() {
    using C = compute_t<T>;
    const C k = C(s);
    run_unary<T>(out, a, [k](C x) { return C(x + k); }, kNoSimd, int(simd::Bin::Add), s);
  });
  return out;
}

Tensor unary(UnaryOp op, const Tensor& a0) {
  const tsr_dtype d = unary_result_dtype(op, a0.dtype());
  Tensor a = as_dtype(a0, d);
  Tensor out = new_output(a.sizes(), {&a0}, d);
  if (out.numel() == 0) return out;
  dispatch_all(d, [&]<typename T>() {
    using C = compute_t<T>;
    if constexpr (std::is_same_v<T, bool>) {
      fail(TSR_ERR_INTERNAL, "unreachable bool unary op");  // exp/log went to float32
    } else {
      switch (op) {
        // NaN propagates (torch's clamp_min): only x <= 0 becomes 0.
        case UnaryOp::Relu: run_unary<T>(out, a, [](C x) { return x <= C(0) ? C(0) : x; }, int(simd::Un::Relu)); break;
        case UnaryOp::Neg: run_unary<T>(out, a, [](C x) { return wrap_neg(x); }, int(simd::Un::Neg)); break;
        case UnaryOp::Exp:
          if constexpr (std::is_floating_point_v<C>) run_unary<T>(out, a, [](C x) { return C(std::exp(x)); }, int(simd::Un::Exp));
          break;
        case UnaryOp::Log:
          if constexpr (std::is_floating_point_v<C>) run_unary<T>(out, a, [](C x) { return C(std::log(x)); }, int(simd::Un::Log));
          break;
      }
    }
  });
  return out;
}

Tensor relu_backward(const Tensor& grad, const Tensor& result) {
  Tensor r = as_dtype(result, grad.dtype());
  Shape shape = broadcast_shapes(grad.sizes(), r.sizes());
  Tensor out = new_output(shape, {&grad, &r}, grad.dtype());
  if (out.numel() == 0) return out;
  dispatch_floating(grad.dtype(), "relu backward", [&]<typename T>() {
    using C = compute_t<T>;
    // threshold_backward: zero where result <= 0; a NaN result passes g.
    run_binary<T>(out, grad, r, [](C g, C x) { return x <= C(0) ? C(0) : g; },
                  int(simd::Bin::ReluBackward));
  });
  return out;
}

void add_into(const Tensor& dst, const Tensor& src0, double alpha) {
  if (dst.numel() == 0) return;
  Tensor src = as_dtype(src0, dst.dtype());
  auto g = make_geometry<2>(dst.sizes(), {byte_strides(dst), byte_strides(src)});
  dispatch_all(dst.dtype(), [&]<typename T>() {
    using C = compute_t<T>;
    if constexpr (simd_type<T>) {
      if (alpha == 1) {  // dst + 1 * x == dst + x: the SIMD runs, tiled for a transposed src
        run_binary<T>(dst, dst, src, [](C o, C x) { return C(o + x); }, int(simd::Bin::Add));
        return;
      }
    }
    parallel_for_each_run<2>(g, {static_cast<char*>(dst.data_ptr()), static_cast<char*>(src.data_ptr())},
                             dst.numel(), [&](char** p, const int64_t* s, int64_t n) {
                      T* o = reinterpret_cast<T*>(p[0]);
                      const T* x = reinterpret_cast<const T*>(p[1]);
                      const int64_t so = s[0] / int64_t(sizeof(T)), sx = s[1] / int64_t(sizeof(T));
                      if constexpr (std::is_same_v<T, bool>) {
                        for (int64_t i = 0; i < n; ++i) o[i * so] = o[i * so] || (alpha != 0 && x[i * sx]);
                      } else {
                        // The optimizers' p.add_(g, alpha=...): dense runs vectorized.
                        if constexpr (simd_type<T>)
                          if (so == 1 && sx == 1 && simd::add_scaled(simd_dtype<T>(), o, o, x, alpha, n)) return;
                        const C k = convert<C>(alpha);
                        for (int64_t i = 0; i < n; ++i)
                          o[i * so] = T(wrap_add(C(o[i * so]), wrap_mul(k, C(x[i * sx]))));
                      }
                    });
  });
}

void scale_inplace(const Tensor& dst, double s) {
  if (dst.numel() == 0) return;
  auto g = make_geometry<1>(dst.sizes(), {byte_strides(dst)});
  dispatch_all(dst.dtype(), [&]<typename T>() {
    using C = compute_t<T>;
    parallel_for_each_run<1>(g, {static_cast<char*>(dst.data_ptr())}, dst.numel(),
                             [&](char** p, const int64_t* st, int64_t n) {
      T* o = reinterpret_cast<T*>(p[0]);
      const int64_t so = st[0] / int64_t(sizeof(T));
      if constexpr (std::is_same_v<T, bool>) {
        for (int64_t i = 0; i < n; ++i) o[i * so] = o[i * so] && s != 0;
      } else {
        // Floating dense runs (the optimizers' mul_): the SIMD loop, k in
        // the compute type as below.
        if constexpr (simd_type<T>)
          if (so == 1 && simd::binary_scalar(simd::Bin::Mul, simd_dtype<T>(), o, o, s, n)) return;
        const C k = convert<C>(s);
        for (int64_t i = 0; i < n; ++i) o[i * so] = T(wrap_mul(C(o[i * so]), k));
      }
    });
  });
}

}  // namespace tsr::kernels

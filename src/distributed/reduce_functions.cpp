#include "distributed/reduce_functions.h"

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "core/dtype.h"
#include "core/error.h"
#include "core/half.h"
#include "cpu/kernels/elementwise_simd.h"

namespace tsr::distributed {
namespace {

struct Sum {
  template <typename T> static T apply(T a, T b) { return a + b; }
};
struct Product {
  template <typename T> static T apply(T a, T b) { return a * b; }
};
// NaN propagates, as torch's min/max reductions.
struct Min {
  template <typename T> static T apply(T a, T b) { return (a != a || a < b) ? a : b; }
};
struct Max {
  template <typename T> static T apply(T a, T b) { return (a != a || a > b) ? a : b; }
};

// The bitwise reductions (torch's ReduceOp.BAND, BOR, BXOR): integers only.
struct BitAnd {
  template <typename T> static T apply(T a, T b) { return a & b; }
};
struct BitOr {
  template <typename T> static T apply(T a, T b) { return a | b; }
};
struct BitXor {
  template <typename T> static T apply(T a, T b) { return a ^ b; }
};

template <typename T, typename Op>
void plain(void* c, const void* a, const void* b, size_t n) {
  auto* pc = static_cast<T*>(c);
  auto* pa = static_cast<const T*>(a);
  auto* pb = static_cast<const T*>(b);
  for (size_t i = 0; i < n; ++i) pc[i] = T(Op::apply(pa[i], pb[i]));
}

// 16-bit floats: widen, reduce, round once.
template <float (*Widen)(uint16_t), uint16_t (*Round)(float), typename Op>
void narrow(void* c, const void* a, const void* b, size_t n) {
  auto* pc = static_cast<uint16_t*>(c);
  auto* pa = static_cast<const uint16_t*>(a);
  auto* pb = static_cast<const uint16_t*>(b);
  for (size_t i = 0; i < n; ++i) pc[i] = Round(Op::apply(Widen(pa[i]), Widen(pb[i])));
}

// SUM and PRODUCT of the floating dtypes: the elementwise kernels' SIMD
// loop (Highway, AVX2 on x86), one IEEE operation per element as the
// scalar loops, so the bits are theirs (float16/bfloat16: widened,
// reduced, rounded once, as `narrow`). Gloo calls it on segments of at
// most 1 MiB, mostly in place (c == a), which the kernel allows. The
// scalar loops (and gloo::sum<T>, the same loop in Gloo's header) are
// not vectorized at -O2: at this project's RelWithDebInfo and under the
// sanitizers they ran at 6-8 GB/s against 45-60 for this kernel, in the
// critical path of every ring step.
template <tsr_dtype D, kernels::simd::Bin Op>
void vectorized(void* c, const void* a, const void* b, size_t n) {
  if (n == 0) return;  // empty segments may come with null pointers
  kernels::simd::binary(Op, D, c, a, b, int64_t(n), kernels::simd::Bcast::None);
}

void bool_or(void* c, const void* a, const void* b, size_t n) {
  auto* pc = static_cast<uint8_t*>(c);
  auto* pa = static_cast<const uint8_t*>(a);
  auto* pb = static_cast<const uint8_t*>(b);
  for (size_t i = 0; i < n; ++i) pc[i] = uint8_t((pa[i] | pb[i]) != 0);
}
void bool_and(void* c, const void* a, const void* b, size_t n) {
  auto* pc = static_cast<uint8_t*>(c);
  auto* pa = static_cast<const uint8_t*>(a);
  auto* pb = static_cast<const uint8_t*>(b);
  for (size_t i = 0; i < n; ++i) pc[i] = uint8_t(pa[i] != 0 && pb[i] != 0);
}
// BXOR of bools: torch.bitwise_xor's bool (true when exactly one is).
void bool_xor(void* c, const void* a, const void* b, size_t n) {
  auto* pc = static_cast<uint8_t*>(c);
  auto* pa = static_cast<const uint8_t*>(a);
  auto* pb = static_cast<const uint8_t*>(b);
  for (size_t i = 0; i < n; ++i) pc[i] = uint8_t((pa[i] != 0) != (pb[i] != 0));
}

// The vectorized form of Op for a floating dtype, or nullptr.
template <typename Op>
ReduceFn vectorized_for(tsr_dtype dtype) {
  using kernels::simd::Bin;
  constexpr bool sum = std::is_same_v<Op, Sum>, product = std::is_same_v<Op, Product>;
  if constexpr (sum || product) {
    constexpr Bin op = sum ? Bin::Add : Bin::Mul;
    switch (dtype) {
      case TSR_FLOAT32: return vectorized<TSR_FLOAT32, op>;
      case TSR_FLOAT64: return vectorized<TSR_FLOAT64, op>;
      case TSR_FLOAT16: return vectorized<TSR_FLOAT16, op>;
      case TSR_BFLOAT16: return vectorized<TSR_BFLOAT16, op>;
      default: break;
    }
  }
  return nullptr;
}

template <typename Op>
ReduceFn for_dtype(tsr_dtype dtype) {
  if (ReduceFn f = vectorized_for<Op>(dtype)) return f;
  switch (dtype) {
    case TSR_UINT8: return plain<uint8_t, Op>;
    case TSR_INT8: return plain<int8_t, Op>;
    case TSR_INT16: return plain<int16_t, Op>;
    case TSR_INT32: return plain<int32_t, Op>;
    case TSR_INT64: return plain<int64_t, Op>;
    case TSR_FLOAT32: return plain<float, Op>;
    case TSR_FLOAT64: return plain<double, Op>;
    case TSR_FLOAT16: return narrow<half_to_float, float_to_half, Op>;
    case TSR_BFLOAT16: return narrow<bf16_to_float, float_to_bf16, Op>;
    default:
      fail(TSR_ERR_UNSUPPORTED, "collectives do not reduce ", dtype_name(dtype),
           " tensors (a storage-only dtype)");
  }
}

template <typename Op>
ReduceFn bitwise_for(tsr_dtype dtype, tsr_reduce_op op) {
  switch (dtype) {
    case TSR_UINT8: return plain<uint8_t, Op>;
    case TSR_INT8: return plain<int8_t, Op>;
    case TSR_INT16: return plain<int16_t, Op>;
    case TSR_INT32: return plain<int32_t, Op>;
    case TSR_INT64: return plain<int64_t, Op>;
    default:
      // torch's check (ProcessGroupGloo), with the dtype named.
      fail(TSR_ERR_DTYPE_MISMATCH, "Cannot use ReduceOp.", reduce_op_name(op), " with non-integral dtype (got ",
           dtype_name(dtype), ")");
  }
}

}  // namespace

ReduceFn reduce_function(tsr_dtype dtype, tsr_reduce_op op) {
  if (dtype == TSR_BOOL) {
    switch (op) {
      case TSR_REDUCE_PRODUCT:
      case TSR_REDUCE_MIN:
      case TSR_REDUCE_BAND: return bool_and;
      case TSR_REDUCE_BXOR: return bool_xor;
      default: return bool_or;
    }
  }
  switch (op) {
    case TSR_REDUCE_BAND: return bitwise_for<BitAnd>(dtype, op);
    case TSR_REDUCE_BOR: return bitwise_for<BitOr>(dtype, op);
    case TSR_REDUCE_BXOR: return bitwise_for<BitXor>(dtype, op);
    case TSR_REDUCE_SUM:
    case TSR_REDUCE_AVG: return for_dtype<Sum>(dtype);
    case TSR_REDUCE_PRODUCT: return for_dtype<Product>(dtype);
    case TSR_REDUCE_MIN: return for_dtype<Min>(dtype);
    case TSR_REDUCE_MAX: return for_dtype<Max>(dtype);
  }
  fail(TSR_ERR_INVALID_ARGUMENT, "unknown reduce op ", int(op));
}

const char* reduce_op_name(tsr_reduce_op op) {
  switch (op) {
    case TSR_REDUCE_SUM: return "SUM";
    case TSR_REDUCE_AVG: return "AVG";
    case TSR_REDUCE_PRODUCT: return "PRODUCT";
    case TSR_REDUCE_MIN: return "MIN";
    case TSR_REDUCE_MAX: return "MAX";
    case TSR_REDUCE_BAND: return "BAND";
    case TSR_REDUCE_BOR: return "BOR";
    case TSR_REDUCE_BXOR: return "BXOR";
  }
  return "?";
}

void divide_in_place(const Tensor& buffer, int world) {
  if (buffer.dtype() == TSR_BOOL) return;
  dispatch_all(buffer.dtype(), [&]<typename T>() {
    T* p = buffer.data<T>();
    const int64_t n = buffer.numel();
    if constexpr (std::is_integral_v<T>) {
      for (int64_t i = 0; i < n; ++i) p[i] = T(p[i] / T(world));
    } else {
      // float16 and bfloat16 divide in float32: one rounding.
      using Compute = std::conditional_t<std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>, float, T>;
      for (int64_t i = 0; i < n; ++i) p[i] = T(Compute(p[i]) / Compute(world));
    }
  });
}

}  // namespace tsr::distributed

// Softplus and the elementwise losses (DeviceKernels::loss_map, issue 32):
// one element per call, the CPU kernels' formulas branch for branch
// (src/cpu/kernels/pointwise.cpp's softplus, loss.cpp's pointwise_loss,
// abs_below, div_scalar, binary_cross_entropy, bce_with_logits) in the
// compute type C (float for the 16-bit floats and float32, double for
// float64). std::max(x, y) is written as x < y ? y : x so that a NaN in x
// survives, as it does on the CPU.
#pragma once

#include <cstdint>

#include "core/device_kernels.h"
#include "core/host_device.h"
#include "kernels/dtype_access.cuh"
#include "kernels/element_math.cuh"
#include "kernels/offset_calc.cuh"

namespace tsr::gpu {

TSR_HOST_DEVICE inline float m_log1p(float x) { return ::log1pf(x); }
TSR_HOST_DEVICE inline double m_log1p(double x) { return ::log1p(x); }

template <typename C>
TSR_HOST_DEVICE inline C std_max(C x, C y) {
  return x < y ? y : x;
}

// out[i] = op(a[i], b[i], c[i], d[i]); operands 1..4 in calc's order.
template <typename C, typename Index>
struct LossMapFn {
  OffsetCalc<5, Index> calc;
  LossKernel op;
  void* out;
  tsr_dtype out_dtype;
  const void *a, *b, *c, *d;
  tsr_dtype compute;  // the operands' dtype
  C p, q;             // the op's parameters as its formula takes them

  TSR_HOST_DEVICE C load(const void* base, Index off) const { return load_as<C>(base, int64_t(off), compute, compute); }

  TSR_HOST_DEVICE void operator()(int64_t i) const {
    const auto off = calc.get(i);
    const C x = load(a, off.v[1]);
    C r = C(0);
    switch (op) {
      case LossKernel::Softplus: r = x * p > q ? x : m_log1p(m_exp(x * p)) / p; break;
      case LossKernel::Mse: {
        const C dd = x - load(b, off.v[2]);
        r = dd * dd;
        break;
      }
      case LossKernel::SmoothL1: {
        const C z = m_abs(x - load(b, off.v[2]));
        r = z < p ? C(0.5) * z * z / p : z - C(0.5) * p;
        break;
      }
      case LossKernel::Huber: {
        const C z = m_abs(x - load(b, off.v[2]));
        r = z < p ? C(0.5) * z * z : p * (z - C(0.5) * p);
        break;
      }
      case LossKernel::AbsBelow: r = m_abs(x) < p ? C(1) : C(0); break;
      case LossKernel::AbsAtMost: r = m_abs(x) <= p ? C(1) : C(0); break;
      case LossKernel::DivScalar: r = x / p; break;
      case LossKernel::Bce: {
        const C t = load(b, off.v[2]), w = load(c, off.v[3]);
        const C la = std_max(m_log(x), C(-100)), lb = std_max(m_log(C(1) - x), C(-100));
        r = -w * (t * la + (C(1) - t) * lb);
        break;
      }
      case LossKernel::BceWithLogits: {
        const C t = load(b, off.v[2]), w = load(c, off.v[3]), pw = load(d, off.v[4]);
        const C m = std_max(-x, C(0));
        const C l = C(1) + (pw - C(1)) * t;
        r = w * ((C(1) - t) * x + l * (m_log(m_exp(-m) + m_exp(-x - m)) + m));
        break;
      }
    }
    store_as<C>(out, int64_t(off.v[0]), out_dtype, r);
  }
};

}  // namespace tsr::gpu

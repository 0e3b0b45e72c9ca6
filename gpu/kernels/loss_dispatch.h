// The host half of DeviceKernels::loss_map (softplus and the elementwise
// losses), shared by the CUDA launch (cuda_loss.cu) and the CPU grid
// emulator: checks, the parameters as the CPU kernels take them, the 32- or
// 64-bit index math, the launch. Host code only.
#pragma once

#include <cstdint>
#include <type_traits>

#include "kernels/kernel_dispatch.h"
#include "kernels/loss_functors.cuh"

namespace tsr::gpu {

template <typename Launcher>
void dispatch_loss_map(Launcher& l, LossKernel op, const LossMapArgs& a) {
  check_shape(a.shape, "loss_map");
  TSR_CHECK(int32_t(op) >= 0 && op <= LossKernel::BceWithLogits, TSR_ERR_INVALID_ARGUMENT, "loss_map: invalid op ",
            int32_t(op));
  check_floating(a.compute, "loss_map");
  check_dtype(a.out.dtype, "loss_map");
  const KernelOperand* const ops[5] = {&a.out, &a.a, &a.b, &a.c, &a.d};
  for (int k = 1; k < 5; ++k)
    TSR_CHECK(!ops[k]->data || ops[k]->dtype == a.compute, TSR_ERR_INVALID_ARGUMENT, "loss_map: operand ", k,
              " is ", dtype_name(ops[k]->dtype), ", not the compute dtype ", dtype_name(a.compute));
  with_compute_type(a.compute, [&](auto c) {
    using C = decltype(c);
    if constexpr (std::is_floating_point_v<C>) {  // check_floating: never int64_t
      // softplus rounds beta and threshold to the element dtype first
      // (Scalar::to<scalar_t>); the losses take theirs as C directly.
      const bool rounded = op == LossKernel::Softplus;
      const C p = rounded ? round16(C(a.p), a.compute) : C(a.p);
      const C q = rounded ? round16(C(a.q), a.compute) : C(a.q);
      launch_indexed<5>(l, "loss_map", a.shape, ops, [&](auto calc) {
        using Index = std::remove_cvref_t<decltype(calc.sizes[0])>;
        return LossMapFn<C, Index>{calc, op, a.out.data, a.out.dtype, a.a.data, a.b.data, a.c.data, a.d.data,
                                   a.compute, p, q};
      });
    }
  });
}

}  // namespace tsr::gpu

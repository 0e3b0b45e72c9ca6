// C API: losses (loss.h). Argument checks, then the differentiable op; out
// is written last, so a failing call leaves it untouched.
#include <tessera/loss.h>

#include "capi/barrier.h"
#include "capi/handles.h"
#include "ops/loss.h"

using namespace tsr;
using namespace tsr::capi;

// reduction reaches the ops as an int read through its bytes (enum_arg): a
// C caller may pass any int, and the ops check the range.
namespace {
template <typename Fn>
tsr_status loss_call(const tsr_tensor *input, const tsr_tensor *target,
                     tsr_tensor **out, Fn &&fn) {
  return guarded([&] {
    const Tensor &x = tensor_of(input, "input");
    const Tensor &y = tensor_of(target, "target");
    require(out, "out");
    emit(out, fn(x, y));
  });
}
} // namespace

TSR_EXTERN tsr_status tsr_mse_loss(const tsr_tensor *input,
                                   const tsr_tensor *target,
                                   tsr_loss_reduction reduction,
                                   tsr_tensor **out) {
  return loss_call(input, target, out, [&](const Tensor &x, const Tensor &y) {
    return ops::mse_loss(x, y, enum_arg(reduction));
  });
}

TSR_EXTERN tsr_status tsr_l1_loss(const tsr_tensor *input,
                                  const tsr_tensor *target,
                                  tsr_loss_reduction reduction,
                                  tsr_tensor **out) {
  return loss_call(input, target, out, [&](const Tensor &x, const Tensor &y) {
    return ops::l1_loss(x, y, enum_arg(reduction));
  });
}

TSR_EXTERN tsr_status tsr_smooth_l1_loss(const tsr_tensor *input,
                                         const tsr_tensor *target,
                                         tsr_loss_reduction reduction,
                                         double beta, tsr_tensor **out) {
  return loss_call(input, target, out, [&](const Tensor &x, const Tensor &y) {
    return ops::smooth_l1_loss(x, y, enum_arg(reduction), beta);
  });
}

TSR_EXTERN tsr_status tsr_huber_loss(const tsr_tensor *input,
                                     const tsr_tensor *target,
                                     tsr_loss_reduction reduction, double delta,
                                     tsr_tensor **out) {
  return loss_call(input, target, out, [&](const Tensor &x, const Tensor &y) {
    return ops::huber_loss(x, y, enum_arg(reduction), delta);
  });
}

TSR_EXTERN tsr_status tsr_kl_div(const tsr_tensor *input,
                                 const tsr_tensor *target,
                                 tsr_loss_reduction reduction, bool log_target,
                                 tsr_tensor **out) {
  return loss_call(input, target, out, [&](const Tensor &x, const Tensor &y) {
    return ops::kl_div(x, y, enum_arg(reduction), log_target);
  });
}

TSR_EXTERN tsr_status tsr_nll_loss(const tsr_tensor *input,
                                   const tsr_tensor *target,
                                   const tsr_tensor *weight,
                                   tsr_loss_reduction reduction,
                                   int64_t ignore_index, tsr_tensor **out) {
  return loss_call(input, target, out, [&](const Tensor &x, const Tensor &y) {
    return ops::nll_loss(x, y, weight ? weight->tensor : Tensor(),
                         enum_arg(reduction), ignore_index);
  });
}

TSR_EXTERN tsr_status tsr_cross_entropy_loss(
    const tsr_tensor *input, const tsr_tensor *target, const tsr_tensor *weight,
    tsr_loss_reduction reduction, int64_t ignore_index, double label_smoothing,
    tsr_tensor **out) {
  return loss_call(input, target, out, [&](const Tensor &x, const Tensor &y) {
    return ops::cross_entropy(x, y, weight ? weight->tensor : Tensor(),
                              enum_arg(reduction), ignore_index,
                              label_smoothing);
  });
}

TSR_EXTERN tsr_status tsr_binary_cross_entropy(const tsr_tensor *input,
                                               const tsr_tensor *target,
                                               const tsr_tensor *weight,
                                               tsr_loss_reduction reduction,
                                               tsr_tensor **out) {
  return loss_call(input, target, out, [&](const Tensor &x, const Tensor &y) {
    return ops::binary_cross_entropy(x, y, weight ? weight->tensor : Tensor(),
                                     enum_arg(reduction));
  });
}

TSR_EXTERN tsr_status tsr_binary_cross_entropy_with_logits(
    const tsr_tensor *input, const tsr_tensor *target, const tsr_tensor *weight,
    const tsr_tensor *pos_weight, tsr_loss_reduction reduction,
    tsr_tensor **out) {
  return loss_call(input, target, out, [&](const Tensor &x, const Tensor &y) {
    return ops::binary_cross_entropy_with_logits(
        x, y, weight ? weight->tensor : Tensor(),
        pos_weight ? pos_weight->tensor : Tensor(), enum_arg(reduction));
  });
}

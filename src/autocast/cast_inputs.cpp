#include "autocast/cast_inputs.h"

#include "autocast/cast_cache.h"
#include "autocast/policy.h"
#include "autocast/state.h"
#include "autograd/checkpoint.h"
#include "autograd/copy_primitive.h"
#include "autograd/grad_mode.h"
#include "autograd/node.h"
#include "core/dtype.h"
#include "core/error.h"

namespace tsr::autocast {

namespace {

using autograd::checkpoint::recording;
using autograd::is_grad_enabled;

// torch's is_eligible: a floating tensor of the autocast device type; float64
// is never cast.
bool eligible(const Tensor& t, tsr_device_type device_type) {
  return t.defined() && t.device().type == device_type && is_floating(t.dtype()) &&
         t.dtype() != TSR_FLOAT64;
}

// torch's promote rule (at::autocast::prioritize): float32 if any eligible
// input is float32, else the region's lower precision.
tsr_dtype promoted_dtype(const TensorList& inputs, tsr_device_type device_type,
                         tsr_dtype lower) {
  tsr_dtype widest = lower;
  for (const Tensor& t : inputs) {
    if (!eligible(t, device_type)) continue;
    if (t.dtype() == TSR_FLOAT32) widest = TSR_FLOAT32;
    else
      TSR_CHECK(t.dtype() == lower, TSR_ERR_DTYPE_MISMATCH,
                "Unexpected floating ScalarType in at::autocast::prioritize: ",
                dtype_name(t.dtype()), " inside a ", dtype_name(lower), " autocast region");
  }
  return widest;
}

// The weights torch caches: float32 leaves requiring grad, not views, cast
// down. Made while grad mode is on and no checkpoint region records (a cast
// made on a tape belongs to that region's replay), and looked up always.
bool cacheable(const Tensor& t, tsr_dtype to) {
  return cache_enabled() && to != TSR_FLOAT32 && t.dtype() == TSR_FLOAT32 &&
         autograd::requires_grad(t) && autograd::is_leaf(t) && !autograd::view_base(t);
}

Tensor cast(const Tensor& t, tsr_dtype to) {
  if (!cacheable(t, to)) return autograd::to_dtype(t, to);
  if (Tensor hit = cached_cast(t, to); hit.defined()) return hit;
  Tensor out = autograd::to_dtype(t, to);
  if (is_grad_enabled() && !recording()) remember_cast(t, out);
  return out;
}

}  // namespace

TensorList cast_inputs(std::string_view op, const TensorList& inputs) {
  if (!any_enabled()) return inputs;
  const Tensor* first = nullptr;
  for (const Tensor& t : inputs)
    if (t.defined()) {
      first = &t;
      break;
    }
  if (!first) return inputs;
  const tsr_device_type device_type = first->device().type;
  if (!enabled(device_type)) return inputs;
  const CastPolicy rule = policy(op, device_type);
  if (rule == CastPolicy::None) return inputs;
  TSR_CHECK(rule != CastPolicy::Banned, TSR_ERR_UNSUPPORTED,
            "torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe to autocast.\n"
            "Many models use a sigmoid layer right before the binary cross entropy layer.\n"
            "In this case, combine the two layers using "
            "torch.nn.functional.binary_cross_entropy_with_logits\n"
            "or torch.nn.BCEWithLogitsLoss.  binary_cross_entropy_with_logits and BCEWithLogits are\n"
            "safe to autocast.");

  const tsr_dtype lower = lower_precision(device_type);
  const tsr_dtype to = rule == CastPolicy::LowerPrecision ? lower
                       : rule == CastPolicy::Float32     ? TSR_FLOAT32
                                                           : promoted_dtype(inputs, device_type, lower);
  TensorList out;
  for (const Tensor& t : inputs) out.push_back(eligible(t, device_type) && t.dtype() != to ? cast(t, to) : t);
  return out;
}

}  // namespace tsr::autocast

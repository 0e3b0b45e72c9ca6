#include "device/unscale.h"

#include "core/error.h"
#include "core/layout.h"
#include "core/stream.h"

namespace tsr::device {

bool fusable_for_unscale(const Tensor& t) { return is_non_overlapping_and_dense(t.sizes(), t.strides()); }

void non_finite_check_and_unscale(DeviceKernels& k, const std::vector<Tensor>& grads, float inv_scale,
                                  const Tensor& found_inf) {
  TSR_CHECK(found_inf.dtype() == TSR_FLOAT32 && found_inf.numel() == 1, TSR_ERR_INVALID_ARGUMENT,
            "_amp_foreach_non_finite_check_and_unscale_: found_inf must be a one-element float32 tensor");
  const Stream s = current_stream(found_inf.device());
  UnscaleArgs args{};
  args.inv_scale = inv_scale;
  args.found_inf = static_cast<float*>(found_inf.data_ptr());
  int64_t end = 0;
  auto flush = [&] {
    if (args.count > 0) k.non_finite_check_and_unscale(args, s);
    args.count = 0;
    end = 0;
  };
  for (const Tensor& g : grads) {
    TSR_CHECK(g.device() == found_inf.device() && fusable_for_unscale(g), TSR_ERR_INVALID_ARGUMENT,
              "_amp_foreach_non_finite_check_and_unscale_: every gradient must be dense and on ",
              device_name(found_inf.device()));
    if (g.numel() == 0) continue;
    end += g.numel();
    args.data[args.count] = g.data_ptr();
    args.dtypes[args.count] = g.dtype();
    args.ends[args.count] = end;
    if (++args.count == kMaxUnscaleTensors) flush();
  }
  flush();
}

}  // namespace tsr::device

#include "device/accumulate.h"

#include "core/views.h"
#include "device/device_ops.h"

namespace tsr::device {

void accumulate_into(DeviceKernels& k, const Tensor& dst, const Tensor& src, double alpha) {
  std::vector<bool> repeated(size_t(dst.ndim()), false);
  bool any = false;
  for (int64_t d = 0; d < dst.ndim(); ++d)
    if (dst.sizes()[d] > 1 && dst.strides()[d] == 0) repeated[size_t(d)] = any = true;
  if (!any) return binary_into(k, BinaryKernel::Add, dst, dst, src, alpha);
  // Sum src over the stride-0 dims (kept as size 1, in src's dtype, as
  // sum_to_size gives expand's gradient), then add it through dst with
  // those dims of size 1: each element of dst is written once.
  const Tensor summed = reduce_sum(k, views::expand(src, dst.sizes()), repeated, /*keepdim=*/true,
                                   1.0, src.dtype());
  Shape sizes = dst.sizes();
  for (size_t d = 0; d < sizes.size(); ++d)
    if (repeated[d]) sizes[d] = 1;
  const Tensor once = make_view(dst, sizes, dst.strides(), dst.storage_offset());
  binary_into(k, BinaryKernel::Add, once, once, summed, alpha);
}

}  // namespace tsr::device

#include "distributed/ddp_buckets.h"

#include <algorithm>
#include <map>

#include "autograd/grad_mode.h"
#include "core/factory.h"
#include "core/layout.h"
#include "ops/inplace.h"

namespace tsr::distributed {

std::vector<std::vector<int64_t>> compute_bucket_assignment_by_size(const std::vector<Tensor>& tensors,
                                                                    const std::vector<int64_t>& limits,
                                                                    const std::vector<int64_t>& tensor_indices) {
  TSR_CHECK(!limits.empty(), TSR_ERR_INTERNAL, "bucket assignment without size limits");
  struct Open {
    std::vector<int64_t> indices;
    int64_t bytes = 0;
    size_t limit = 0;  // position in limits
  };
  // Keyed by dtype; std::map so the leftover buckets come out in a fixed
  // order (torch's unordered_map order is its own; with labels the order
  // matters, and every rank must compute the same one).
  std::map<int, Open> open;
  std::vector<std::vector<int64_t>> result;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    const int64_t index = tensor_indices.empty() ? int64_t(i) : tensor_indices[i];
    Open& b = open[int(t.dtype())];
    b.indices.push_back(index);
    b.bytes += t.nbytes();
    if (b.bytes >= limits[b.limit]) {
      result.push_back(std::move(b.indices));
      b.indices.clear();
      b.bytes = 0;
      if (b.limit + 1 < limits.size()) ++b.limit;
    }
  }
  for (auto& [dtype, b] : open)
    if (!b.indices.empty()) result.push_back(std::move(b.indices));
  if (tensor_indices.empty())
    std::sort(result.begin(), result.end(), [](const auto& a, const auto& b) {
      return *std::min_element(a.begin(), a.end()) < *std::min_element(b.begin(), b.end());
    });
  return result;
}

Bucket make_bucket(const std::vector<Tensor>& params, const std::vector<int64_t>& indices, int64_t tail_elements) {
  Bucket b;
  b.params = indices;
  int64_t numel = 0;
  for (int64_t i : indices) numel += params[size_t(i)].numel();
  const Tensor& first = params[size_t(indices.front())];
  b.tail_offset = numel;
  b.contents = empty(Shape{numel + tail_elements}, first.dtype(), TSR_CONTIGUOUS_FORMAT, first.device());
  {
    // Defined values from the start: a compress hook casts all of it, the
    // tail included, before the tail is written.
    autograd::NoGradGuard no_grad;
    ops::zero_(b.contents);
  }
  int64_t offset = 0;
  for (int64_t i : indices) {
    const Tensor& p = params[size_t(i)];
    // A dense parameter's gradient has its strides (AccumulateGrad's
    // layout); any other gets a C-contiguous gradient.
    const Shape strides = is_non_overlapping_and_dense(p.sizes(), p.strides())
                              ? p.strides()
                              : strides_like(p.sizes(), p.strides(), TSR_CONTIGUOUS_FORMAT);
    b.views.push_back(make_view(b.contents, p.sizes(), strides, offset));
    offset += p.numel();
  }
  return b;
}

}  // namespace tsr::distributed

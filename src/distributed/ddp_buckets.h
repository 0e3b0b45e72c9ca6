// DistributedDataParallel's buckets: which parameters' gradients are
// reduced together (torch's compute_bucket_assignment_by_size), and the
// flat tensor a bucket's gradients are copied into, with one view per
// parameter laid out as that parameter's gradient is (torch's "gradient
// layout contract").
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/tensor.h"
#include "distributed/work.h"

namespace tsr::distributed {

// torch's _DEFAULT_FIRST_BUCKET_BYTES.
constexpr int64_t kDefaultFirstBucketBytes = int64_t(1) << 20;
// torch's bucket_cap_mb default, 25 MiB.
constexpr int64_t kDefaultBucketCapBytes = int64_t(25) << 20;

// torch.distributed._compute_bucket_assignment_by_size: walks tensors in
// order, one open bucket per dtype; a bucket closes once its bytes reach
// its limit (limits[0] for a dtype's first bucket, then the next limit, the
// last one repeating). Open buckets close at the end. tensor_indices labels
// tensors[i] (empty: i); without labels the buckets are sorted by their
// smallest index.
std::vector<std::vector<int64_t>> compute_bucket_assignment_by_size(const std::vector<Tensor>& tensors,
                                                                    const std::vector<int64_t>& limits,
                                                                    const std::vector<int64_t>& tensor_indices);

// One bucket: its parameters' gradients in one flat tensor of their dtype,
// reduced by one collective.
struct Bucket {
  std::vector<int64_t> params;  // parameter indices, in the order laid out
  std::vector<Tensor> views;    // views[k]: params[k]'s place in contents
  Tensor contents;              // flat; the last bucket also holds the tail
  int64_t tail_offset = 0;      // where the tail starts (= the gradients' numel)
  // Per iteration:
  int64_t pending = 0;          // gradients not yet copied in
  std::shared_ptr<Work> work;   // its all-reduce, once started
  Tensor reduced;               // the tensor all-reduced (contents or a compressed copy)
};

// The bucket of `indices` (one dtype) over params, with tail_elements
// extra elements after the gradients.
Bucket make_bucket(const std::vector<Tensor>& params, const std::vector<int64_t>& indices, int64_t tail_elements);

}  // namespace tsr::distributed

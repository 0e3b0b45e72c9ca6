// DistributedDataParallel's gradient reducer (torch/csrc/distributed/c10d/
// reducer.cpp of torch 1.13): post-accumulate-grad hooks copy each
// parameter's gradient into its bucket; a full bucket starts its
// all-reduce in the background, in bucket order; a callback at the end of
// the backward pass waits for every bucket and writes the averages into
// .grad. distributed.h describes the behaviour callers see.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <tessera/distributed.h>

#include "core/tensor.h"
#include "distributed/ddp_buckets.h"
#include "distributed/process_group.h"

namespace tsr::distributed {

struct DdpOptions {
  int64_t bucket_cap_bytes = kDefaultBucketCapBytes;
  bool find_unused_parameters = false;
  bool gradient_as_bucket_view = false;
  tsr_ddp_comm_hook comm_hook = TSR_DDP_ALLREDUCE;
};

class Reducer : public std::enable_shared_from_this<Reducer> {
 public:
  // Collective: checks the parameters on this rank (throws before any
  // communication), verifies them across ranks, gives every rank rank 0's
  // values, assigns the buckets and registers the hooks.
  static std::shared_ptr<Reducer> create(std::shared_ptr<ProcessGroup> pg, std::vector<Tensor> params,
                                         const DdpOptions& options);
  // Removes the hooks.
  ~Reducer();
  Reducer(const Reducer&) = delete;
  Reducer& operator=(const Reducer&) = delete;

  void set_require_sync(bool require_sync);
  // torch's register_builtin_comm_hook: once, between iterations.
  void register_comm_hook(tsr_ddp_comm_hook hook);
  // names.size() must be the number of parameters.
  void set_param_names(std::vector<std::string> names);
  // Each bucket's parameter indices, in reduction order.
  std::vector<std::vector<int64_t>> bucket_indices() const;
  int64_t num_params() const { return int64_t(params_.size()); }

  // The post-accumulate-grad hook of parameter `index`.
  void grad_ready(size_t index);
  // The end-of-backward callback: the rest of the buckets, the wait, .grad.
  void finalize_backward();
  // The callback was dropped: the backward pass failed.
  void abandon_backward() noexcept;

 private:
  Reducer(std::shared_ptr<ProcessGroup> pg, std::vector<Tensor> params, const DdpOptions& options);
  void initialize_buckets(std::vector<std::vector<int64_t>> assignment);
  void start_iteration();
  void mark_ready(size_t index);
  void copy_grad_into_bucket(size_t index);
  void launch_ready_buckets();
  void write_tail(const Tensor& reduced, int64_t offset);
  void wait_for_buckets();
  void write_back(const std::vector<double>& tail);
  bool should_rebuild() const { return !options_.find_unused_parameters && !has_rebuilt_; }
  void rebuild_buckets();
  // Ends an iteration that failed; breaks the reducer when some bucket was
  // not sent (the ranks' collectives may be out of step).
  void end_failed_iteration();
  std::string param_label(size_t index) const;
  [[noreturn]] void fail_unused(const std::vector<int64_t>& unmarked, const std::vector<int>& ranks) const;

  std::shared_ptr<ProcessGroup> pg_;
  std::vector<Tensor> params_;
  DdpOptions options_;
  int world_;
  int64_t tail_elements_;  // world rank flags, then (find_unused) the used map
  std::vector<std::string> names_;
  std::vector<int64_t> hook_ids_;

  mutable std::mutex mutex_;  // guards what follows
  std::vector<Bucket> buckets_;
  struct Locator {
    size_t bucket;
    size_t slot;
  };
  std::vector<Locator> locators_;
  bool require_sync_ = true;
  bool hook_registered_ = false;
  bool in_backward_ = false;  // an iteration runs: hooks expected, callback queued
  std::thread::id backward_thread_;
  std::vector<char> ready_;  // this iteration
  std::vector<char> used_;   // got a gradient since the last synchronized backward
  size_t next_bucket_ = 0;   // the next bucket to send
  bool marked_at_end_ = false;  // some parameter got no gradient this iteration
  std::vector<int64_t> arrival_order_;  // for the rebuild
  bool has_rebuilt_ = false;
  std::string broken_;  // why further iterations are refused; empty while usable
};

}  // namespace tsr::distributed

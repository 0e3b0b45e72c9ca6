#include "distributed/ddp.h"

#include <algorithm>
#include <climits>
#include <cstring>

#include "autograd/grad_mode.h"
#include "autograd/hooks.h"
#include "autograd/node.h"
#include "core/dtype.h"
#include "core/factory.h"
#include "distributed/collectives.h"
#include "distributed/comm_hooks.h"
#include "distributed/ddp_verify.h"
#include "ops/inplace.h"
#include "ops/layout.h"
#include "ops/loss_util.h"
#include "ops/to_device.h"
#include "ops/views.h"

namespace tsr::distributed {
namespace {

// .grad under the leaf's lock (backward may run on another thread).
Tensor get_grad(const Tensor& p) {
  autograd::AutogradMeta& m = *p.impl()->autograd;
  std::lock_guard lock(m.mutex);
  return m.grad;
}

void set_grad(const Tensor& p, const Tensor& g) {
  autograd::AutogradMeta& m = *p.impl()->autograd;
  std::lock_guard lock(m.mutex);
  m.grad = g;
}

bool is_alias_of(const Tensor& a, const Tensor& b) { return a.storage() == b.storage(); }

class ReadyHook final : public autograd::PostAccumulateGradHook {
 public:
  ReadyHook(std::weak_ptr<Reducer> reducer, size_t index) : reducer_(std::move(reducer)), index_(index) {}
  void operator()(const Tensor&) override {
    if (auto r = reducer_.lock()) r->grad_ready(index_);
  }

 private:
  std::weak_ptr<Reducer> reducer_;  // weak: the reducer holds the parameters
  size_t index_;
};

class FinalizeCallback final : public autograd::BackwardCallback {
 public:
  explicit FinalizeCallback(std::shared_ptr<Reducer> r) : reducer_(std::move(r)) {}
  ~FinalizeCallback() override {
    if (armed_ && !ran_) reducer_->abandon_backward();
  }
  // Armed once queued: a callback the engine refused is destroyed while
  // the reducer's lock is held, and must not take it again.
  void arm() { armed_ = true; }
  void operator()() override {
    ran_ = true;
    reducer_->finalize_backward();
  }

 private:
  std::shared_ptr<Reducer> reducer_;
  bool armed_ = false;
  bool ran_ = false;
};

void check_param(const Tensor& p, size_t i) {
  TSR_CHECK(autograd::requires_grad(p) && autograd::is_leaf(p), TSR_ERR_INVALID_ARGUMENT, "params[", i,
            "] is not a leaf that requires grad: DistributedDataParallel reduces the gradients of parameters "
            "(tsr_set_requires_grad(t, true) on a tensor no op produced)");
  TSR_CHECK(is_floating(p.dtype()) && !is_storage_only(p.dtype()), TSR_ERR_INVALID_ARGUMENT, "params[", i,
            "] has dtype ", dtype_name(p.dtype()), "; DistributedDataParallel takes floating-point parameters");
}

std::string join(const std::vector<int64_t>& v, const char* sep) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + std::to_string(v[i]);
  return s;
}

}  // namespace

Reducer::Reducer(std::shared_ptr<ProcessGroup> pg, std::vector<Tensor> params, const DdpOptions& options)
    : pg_(std::move(pg)), params_(std::move(params)), options_(options), world_(pg_->size()) {
  tail_elements_ = world_ + (options_.find_unused_parameters ? int64_t(params_.size()) : 0);
  ready_.assign(params_.size(), 0);
  used_.assign(params_.size(), 0);
}

std::shared_ptr<Reducer> Reducer::create(std::shared_ptr<ProcessGroup> pg, std::vector<Tensor> params,
                                         const DdpOptions& options) {
  TSR_CHECK(!params.empty(), TSR_ERR_INVALID_ARGUMENT,
            "DistributedDataParallel is not needed when a module doesn't have any parameter that requires a "
            "gradient.");
  for (size_t i = 0; i < params.size(); ++i) {
    check_param(params[i], i);
    // One device, as torch's DDP module (device_ids: a single device):
    // every bucket is reduced by the group's backend for it (Gloo or MPI
    // on CPU, NCCL on CUDA).
    TSR_CHECK(params[i].device() == params[0].device(), TSR_ERR_INVALID_ARGUMENT, "params[0] is on ",
              device_name(params[0].device()), " and params[", i, "] on ", device_name(params[i].device()),
              "; DistributedDataParallel takes parameters on one device");
    for (size_t j = 0; j < i; ++j)
      TSR_CHECK(!params[j].is_same(params[i]), TSR_ERR_INVALID_ARGUMENT, "params[", j, "] and params[", i,
                "] are the same tensor; pass each parameter once (torch's DDP reduces a shared parameter once)");
  }
  pg->check_device(params[0].device().type, "DistributedDataParallel");
  verify_params_across_processes(*pg, params);
  broadcast_params(*pg, params);
  std::shared_ptr<Reducer> r(new Reducer(std::move(pg), std::move(params), options));
  r->hook_registered_ = options.comm_hook != TSR_DDP_ALLREDUCE;
  // torch 1.13's initial assignment: over the parameters in order, one
  // bucket per dtype unless unused parameters are expected (the order of
  // use is unknown until the first backward), reduced last to first.
  std::vector<int64_t> limits{INT64_MAX};
  if (options.find_unused_parameters) limits = {kDefaultFirstBucketBytes, options.bucket_cap_bytes};
  auto assignment = compute_bucket_assignment_by_size(r->params_, limits, {});
  std::reverse(assignment.begin(), assignment.end());
  {
    std::lock_guard lock(r->mutex_);
    r->initialize_buckets(std::move(assignment));
  }
  for (size_t i = 0; i < r->params_.size(); ++i)
    r->hook_ids_.push_back(
        autograd::register_post_accumulate_grad_hook(r->params_[i], std::make_shared<ReadyHook>(r, i)));
  return r;
}

Reducer::~Reducer() {
  for (size_t i = 0; i < hook_ids_.size(); ++i) autograd::remove_hook(params_[i], hook_ids_[i]);
}

void Reducer::set_require_sync(bool require_sync) {
  std::lock_guard lock(mutex_);
  require_sync_ = require_sync;
}

void Reducer::register_comm_hook(tsr_ddp_comm_hook hook) {
  std::lock_guard lock(mutex_);
  TSR_CHECK(!hook_registered_, TSR_ERR_INVALID_ARGUMENT,
            "register_comm_hook or register_builtin_comm_hook can only be called once.");
  TSR_CHECK(!in_backward_, TSR_ERR_AUTOGRAD,
            "DistributedDataParallel: a communication hook cannot be registered while a backward pass reduces "
            "gradients through this module");
  hook_registered_ = true;
  options_.comm_hook = hook;
}

void Reducer::set_param_names(std::vector<std::string> names) {
  TSR_CHECK(names.size() == params_.size(), TSR_ERR_INVALID_ARGUMENT, "got ", names.size(), " names for ",
            params_.size(), " parameters");
  std::lock_guard lock(mutex_);
  names_ = std::move(names);
}

std::vector<std::vector<int64_t>> Reducer::bucket_indices() const {
  std::lock_guard lock(mutex_);
  std::vector<std::vector<int64_t>> out;
  for (const Bucket& b : buckets_) out.push_back(b.params);
  return out;
}

// torch's initialize_buckets: the flat tensors and views; the last bucket
// carries the tail. With gradient_as_bucket_view an existing .grad moves
// into its new view (torch's initialize_bucket_views).
void Reducer::initialize_buckets(std::vector<std::vector<int64_t>> assignment) {
  std::vector<Bucket> buckets;
  std::vector<Locator> locators(params_.size());
  for (size_t b = 0; b < assignment.size(); ++b) {
    const int64_t tail = b + 1 == assignment.size() ? tail_elements_ : 0;
    buckets.push_back(make_bucket(params_, assignment[b], tail));
    for (size_t k = 0; k < assignment[b].size(); ++k) locators[size_t(assignment[b][k])] = {b, k};
  }
  if (options_.gradient_as_bucket_view) {
    autograd::NoGradGuard no_grad;
    for (Bucket& bucket : buckets)
      for (size_t k = 0; k < bucket.params.size(); ++k) {
        const Tensor& p = params_[size_t(bucket.params[k])];
        Tensor g = get_grad(p);
        if (g.defined() && !is_alias_of(g, bucket.views[k])) {
          ops::copy_(bucket.views[k], g);
          set_grad(p, bucket.views[k]);
        }
      }
  }
  buckets_ = std::move(buckets);
  locators_ = std::move(locators);
}

void Reducer::grad_ready(size_t index) {
  std::lock_guard lock(mutex_);
  if (!in_backward_) {
    if (!require_sync_) {
      // no_sync: local accumulation only; remembered as used, so that
      // find_unused_parameters counts what was accumulated.
      used_[index] = 1;
      return;
    }
    TSR_CHECK(broken_.empty(), TSR_ERR_DISTRIBUTED, broken_);
    start_iteration();
  } else {
    TSR_CHECK(backward_thread_ == std::this_thread::get_id(), TSR_ERR_AUTOGRAD,
              "DistributedDataParallel: a backward pass through these parameters is already running on another "
              "thread; run one backward pass at a time through a DistributedDataParallel module");
  }
  TSR_CHECK(!ready_[index], TSR_ERR_AUTOGRAD,
            "Expected to mark a variable ready only once. Parameter at index ", index, param_label(index),
            " has been marked as ready twice. This means that multiple autograd engine hooks have fired for this "
            "particular parameter during this iteration (a backward pass started inside a hook of this one "
            "reached it again).");
  used_[index] = 1;
  if (should_rebuild()) arrival_order_.push_back(int64_t(index));
  mark_ready(index);
}

void Reducer::start_iteration() {
  std::fill(ready_.begin(), ready_.end(), 0);
  for (Bucket& b : buckets_) {
    b.pending = int64_t(b.params.size());
    b.work.reset();
    b.reduced = Tensor();
  }
  next_bucket_ = 0;
  marked_at_end_ = false;
  arrival_order_.clear();
  auto callback = std::make_unique<FinalizeCallback>(shared_from_this());
  FinalizeCallback* queued = callback.get();
  autograd::queue_backward_callback(std::move(callback));
  queued->arm();
  in_backward_ = true;
  backward_thread_ = std::this_thread::get_id();
}

void Reducer::mark_ready(size_t index) {
  ready_[index] = 1;
  copy_grad_into_bucket(index);
  if (--buckets_[locators_[index].bucket].pending == 0) launch_ready_buckets();
}

// torch's mark_variable_ready_dense.
void Reducer::copy_grad_into_bucket(size_t index) {
  autograd::NoGradGuard no_grad;
  const Tensor& p = params_[index];
  const Locator loc = locators_[index];
  const Tensor& view = buckets_[loc.bucket].views[loc.slot];
  const bool divide = reducer_divides(options_.comm_hook);
  Tensor g = get_grad(p);
  if (!g.defined()) {
    ops::zero_(view);
    return;
  }
  TSR_CHECK(g.dtype() == view.dtype() && g.sizes() == view.sizes(), TSR_ERR_AUTOGRAD,
            "DistributedDataParallel: expected the gradient of parameter ", index, param_label(index), " to be ",
            dtype_name(view.dtype()), " of sizes ", view.sizes(), ", got ", dtype_name(g.dtype()), " of sizes ",
            g.sizes());
  if (!is_alias_of(g, view)) {
    ops::copy_(view, g);
    // torch multiplies by 1/world while copying (at::mul_out).
    if (divide) ops::mul_scalar_(view, 1.0 / world_);
    if (options_.gradient_as_bucket_view) set_grad(p, view);
  } else if (divide) {
    ops::copy_(view, ops::div_scalar(view, double(world_)));  // torch's bucket_view.div_(world)
  }
}

// Buckets start in order on every rank (torch's mark_bucket_ready), so
// the collectives of all ranks pair up.
void Reducer::launch_ready_buckets() {
  for (; next_bucket_ < buckets_.size() && buckets_[next_bucket_].pending == 0; ++next_bucket_) {
    Bucket& b = buckets_[next_bucket_];
    b.reduced = comm_hook_input(options_.comm_hook, b.contents, world_);
    if (next_bucket_ + 1 == buckets_.size()) write_tail(b.reduced, b.tail_offset);
    b.work = all_reduce(*pg_, b.reduced, TSR_REDUCE_SUM, /*async=*/true);
  }
}

// The tail of the last bucket, summed with the gradients at no extra
// collective: element r is 1 when rank r had parameters without a
// gradient; with find_unused_parameters, then 1 per parameter this rank
// used (torch's local_used_map, which torch reduces separately). Sums of
// ones stay positive in every floating dtype, which is all that is read.
void Reducer::write_tail(const Tensor& reduced, int64_t offset) {
  autograd::NoGradGuard no_grad;
  // Written on the host, copied (and converted) into the bucket's device.
  Tensor tail = empty(Shape{tail_elements_}, TSR_FLOAT64, TSR_CONTIGUOUS_FORMAT, Device{TSR_DEVICE_CPU, 0});
  double* t = tail.data<double>();
  std::fill(t, t + tail_elements_, 0.0);
  t[pg_->rank()] = marked_at_end_ ? 1.0 : 0.0;
  if (options_.find_unused_parameters)
    for (size_t i = 0; i < used_.size(); ++i) t[world_ + int64_t(i)] = used_[i] ? 1.0 : 0.0;
  ops::copy_(ops::narrow(reduced, 0, offset, tail_elements_), tail);
}

void Reducer::wait_for_buckets() {
  for (Bucket& b : buckets_) {
    // Buckets finish in order, and each collective fails on its own at the
    // group's timeout (naming the missing ranks); twice that is a safety
    // net, after which the collective may still write into the bucket, so
    // the reducer takes no more iterations.
    const Millis limit = 2 * pg_->timeout();
    if (!b.work->wait_for(limit)) {
      broken_ = "DistributedDataParallel: an earlier gradient all_reduce never finished";
      fail(TSR_ERR_DISTRIBUTED, "DistributedDataParallel: a gradient bucket's all_reduce: ", pg_->wait_timed_out(limit));
    }
    if (b.work->status() != TSR_OK) throw Error(b.work->status(), b.work->message());
  }
}

void Reducer::finalize_backward() {
  std::lock_guard lock(mutex_);
  try {
    std::vector<int64_t> unmarked;
    for (size_t i = 0; i < ready_.size(); ++i)
      if (!ready_[i]) unmarked.push_back(int64_t(i));
    // Parameters without a gradient: their part of the bucket is their
    // .grad if any (accumulated under no_sync, or left from an earlier
    // iteration, as torch), else zeros. They are sent even when that is an
    // error, so every rank completes the same collectives.
    marked_at_end_ = !unmarked.empty();
    for (int64_t i : unmarked) mark_ready(size_t(i));
    TSR_CHECK(next_bucket_ == buckets_.size(), TSR_ERR_INTERNAL, "DistributedDataParallel: ",
              buckets_.size() - next_bucket_, " bucket(s) not sent at the end of the backward pass");
    wait_for_buckets();
    for (Bucket& b : buckets_) comm_hook_output(options_.comm_hook, b.contents, b.reduced);
    std::vector<double> tail(static_cast<size_t>(tail_elements_));
    {
      autograd::NoGradGuard no_grad;
      const Bucket& last = buckets_.back();
      Tensor t = ops::to_dtype(ops::narrow(last.reduced, 0, last.tail_offset, tail_elements_), TSR_FLOAT64);
      t = ops::contiguous(ops::to_device(t, Device{TSR_DEVICE_CPU, 0}, false), TSR_CONTIGUOUS_FORMAT);
      std::memcpy(tail.data(), t.data_ptr(), tail.size() * sizeof(double));
    }
    if (!options_.find_unused_parameters) {
      std::vector<int> ranks;
      for (int r = 0; r < world_; ++r)
        if (tail[size_t(r)] > 0) ranks.push_back(r);
      if (!ranks.empty()) {
        in_backward_ = false;  // every rank sent every bucket: in step
        fail_unused(unmarked, ranks);
      }
    }
    write_back(tail);
    std::fill(used_.begin(), used_.end(), 0);
    in_backward_ = false;
    if (should_rebuild()) rebuild_buckets();
  } catch (...) {
    end_failed_iteration();
    throw;
  }
}

// torch's finalize_bucket_dense / copy_bucket_to_grad. A parameter no rank
// used keeps its .grad.
void Reducer::write_back(const std::vector<double>& tail) {
  autograd::NoGradGuard no_grad;
  for (Bucket& b : buckets_)
    for (size_t k = 0; k < b.params.size(); ++k) {
      const size_t i = size_t(b.params[k]);
      if (options_.find_unused_parameters && !(tail[size_t(world_) + i] > 0)) continue;
      const Tensor& p = params_[i];
      const Tensor& view = b.views[k];
      Tensor g = get_grad(p);
      if (options_.gradient_as_bucket_view) {
        if (!g.defined()) {
          set_grad(p, view);
        } else {
          TSR_CHECK(is_alias_of(g, view), TSR_ERR_AUTOGRAD,
                    "Detected at least one parameter gradient is not the expected DDP bucket view with "
                    "gradient_as_bucket_view=True. This may happen (for example) if multiple allreduce hooks were "
                    "registered onto the same parameter. (parameter ", i, param_label(i), ")");
        }
      } else if (!g.defined()) {
        Tensor fresh = empty_like(p);  // the layout AccumulateGrad gives
        ops::copy_(fresh, view);
        set_grad(p, fresh);
      } else {
        ops::copy_(g, view);
      }
    }
}

// torch's rebuild_buckets + sync_bucket_indices: the order the gradients
// arrived on rank 0 decides, for every rank.
void Reducer::rebuild_buckets() {
  has_rebuilt_ = true;
  std::vector<int64_t> order = std::move(arrival_order_);
  arrival_order_.clear();
  const int64_t n = int64_t(params_.size());
  if (int64_t(order.size()) != n) return;  // not every parameter reported: keep the buckets
  std::vector<Tensor> tensors;
  for (int64_t i : order) tensors.push_back(params_[size_t(i)]);
  auto assignment =
      compute_bucket_assignment_by_size(tensors, {kDefaultFirstBucketBytes, options_.bucket_cap_bytes}, order);
  // [indices of bucket 0, bucket 1, ...; the size of each bucket, padded
  // to n; the number of buckets], one broadcast from rank 0.
  Tensor msg = empty(Shape{2 * n + 1}, TSR_INT64, TSR_CONTIGUOUS_FORMAT, Device{TSR_DEVICE_CPU, 0});
  int64_t* m = msg.data<int64_t>();
  std::fill(m, m + 2 * n + 1, 0);
  int64_t k = 0;
  for (size_t b = 0; b < assignment.size(); ++b) {
    for (int64_t i : assignment[b]) m[k++] = i;
    m[n + int64_t(b)] = int64_t(assignment[b].size());
  }
  m[2 * n] = int64_t(assignment.size());
  {
    // Sent on the parameters' device (their backend: NCCL for CUDA), read
    // on the host.
    autograd::NoGradGuard no_grad;
    Tensor sent = ops::to_device(msg, params_[0].device(), false);
    broadcast(*pg_, sent, 0, false);
    if (!sent.is_same(msg)) ops::copy_(msg, sent);
  }
  const int64_t count = m[2 * n];
  TSR_CHECK(count >= 1 && count <= n, TSR_ERR_INTERNAL, "DistributedDataParallel: rank 0 sent ", count,
            " buckets for ", n, " parameters");
  assignment.assign(size_t(count), {});
  k = 0;
  for (int64_t b = 0; b < count; ++b)
    for (int64_t j = 0; j < m[n + b]; ++j) {
      TSR_CHECK(k < n && m[k] >= 0 && m[k] < n, TSR_ERR_INTERNAL, "DistributedDataParallel: bad bucket message");
      assignment[size_t(b)].push_back(m[k++]);
    }
  initialize_buckets(std::move(assignment));
}

void Reducer::end_failed_iteration() {
  if (!in_backward_) return;
  in_backward_ = false;
  if (next_bucket_ < buckets_.size() && broken_.empty())
    broken_ = str("DistributedDataParallel: an earlier backward pass failed after its gradient reduction had "
                  "started (", next_bucket_, " of ", buckets_.size(),
                  " buckets sent), so the ranks' collectives may be out of step; this module cannot synchronize "
                  "gradients any more: recreate the process group and DistributedDataParallel");
}

void Reducer::abandon_backward() noexcept {
  std::lock_guard lock(mutex_);
  end_failed_iteration();
}

std::string Reducer::param_label(size_t index) const {
  return names_.empty() ? std::string() : " with name " + names_[index];
}

void Reducer::fail_unused(const std::vector<int64_t>& unmarked, const std::vector<int>& ranks) const {
  const int rank = pg_->rank();
  std::string msg =
      "DistributedDataParallel: this backward pass ended before every parameter received a gradient (torch raises "
      "this at the next iteration: \"Expected to have finished reduction in the prior iteration before starting a "
      "new one.\"). This error indicates that your module has parameters that were not used in producing loss. "
      "You can enable unused parameter detection by setting find_unused_parameters (torch's keyword argument "
      "`find_unused_parameters=True` to `torch.nn.parallel.DistributedDataParallel`), and by \nmaking sure all "
      "`forward` function outputs participate in calculating loss.";
  if (!unmarked.empty()) {
    if (!names_.empty()) {
      msg += str("\nParameters which did not receive grad for rank ", rank, ": ");
      for (size_t k = 0; k < unmarked.size(); ++k) msg += (k ? ", " : "") + names_[size_t(unmarked[k])];
    }
    msg += str("\nParameter indices which did not receive grad for rank ", rank, ": ", join(unmarked, " "));
    if (names_.empty()) msg += "\n Name the parameters (tsr_ddp_set_param_names) to have them listed here.";
  }
  std::vector<int64_t> others;
  for (int r : ranks)
    if (r != rank) others.push_back(r);
  if (!others.empty())
    msg += str("\nRank(s) ", join(others, ", "), " also had parameters which did not receive grad (their error "
               "lists them).");
  fail(TSR_ERR_AUTOGRAD, msg);
}

}  // namespace tsr::distributed

// C API: DistributedDataParallel (distributed.h) over
// src/distributed/ddp.h. A tsr_ddp owns the reducer; the reducer keeps its
// process group and parameters alive.
#include <tessera/distributed.h>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "capi/barrier.h"
#include "capi/handles.h"
#include "capi/process_group_handle.h"
#include "capi/struct_size.h"
#include "distributed/ddp.h"

using namespace tsr;
using namespace tsr::capi;

struct tsr_ddp {
  explicit tsr_ddp(std::shared_ptr<distributed::Reducer> r) : impl(std::move(r)) {}
  std::atomic<int64_t> refs{1};
  std::shared_ptr<distributed::Reducer> impl;
};

TSR_EXTERN tsr_status tsr_ddp_create(tsr_process_group* pg, int64_t n_params, tsr_tensor* const* params,
                                     const tsr_ddp_options* options, tsr_ddp** out) {
  return guarded([&] {
    require(pg, "pg");
    require(out, "out");
    TSR_CHECK(n_params >= 1, TSR_ERR_INVALID_ARGUMENT, "n_params must be >= 1, got ", n_params,
              " (DistributedDataParallel is not needed when a module doesn't have any parameter that requires a "
              "gradient.)");
    require(params, "params");
    const tsr_ddp_options defaults = TSR_DDP_OPTIONS_INIT;
    tsr_ddp_options o = defaults;
    if (options)
      o = read_struct(options, defaults, TSR_FIRST_VERSION_SIZE(tsr_ddp_options, bucket_cap_bytes), "options",
                      "tsr_ddp_options");
    TSR_CHECK(o.bucket_cap_bytes >= 0, TSR_ERR_INVALID_ARGUMENT,
              "options.bucket_cap_bytes must be >= 0 (0: 25 MiB), got ", o.bucket_cap_bytes);
    const int hook = enum_arg(o.comm_hook);
    TSR_CHECK(hook >= TSR_DDP_ALLREDUCE && hook <= TSR_DDP_BF16_COMPRESS, TSR_ERR_INVALID_ARGUMENT,
              "options.comm_hook: unknown communication hook ", hook, " (TSR_DDP_ALLREDUCE..TSR_DDP_BF16_COMPRESS)");
    std::vector<Tensor> ps;
    ps.reserve(size_t(n_params));
    for (int64_t i = 0; i < n_params; ++i) {
      TSR_CHECK(params[i] != nullptr, TSR_ERR_INVALID_ARGUMENT, "params[", i, "] is NULL");
      ps.push_back(params[i]->tensor);
    }
    distributed::DdpOptions d;
    if (o.bucket_cap_bytes > 0) d.bucket_cap_bytes = o.bucket_cap_bytes;
    d.find_unused_parameters = o.find_unused_parameters;
    d.gradient_as_bucket_view = o.gradient_as_bucket_view;
    d.comm_hook = tsr_ddp_comm_hook(hook);
    auto reducer = distributed::Reducer::create(pg->impl, std::move(ps), d);
    *out = new tsr_ddp(std::move(reducer));
  });
}

TSR_EXTERN tsr_status tsr_ddp_set_require_sync(tsr_ddp* ddp, bool require_sync) {
  return guarded([&] { require(ddp, "ddp")->impl->set_require_sync(require_sync); });
}

TSR_EXTERN tsr_status tsr_ddp_register_comm_hook(tsr_ddp* ddp, tsr_ddp_comm_hook hook) {
  return guarded([&] {
    require(ddp, "ddp");
    const int h = enum_arg(hook);
    TSR_CHECK(h >= TSR_DDP_ALLREDUCE && h <= TSR_DDP_BF16_COMPRESS, TSR_ERR_INVALID_ARGUMENT,
              "hook: unknown communication hook ", h, " (TSR_DDP_ALLREDUCE..TSR_DDP_BF16_COMPRESS)");
    ddp->impl->register_comm_hook(tsr_ddp_comm_hook(h));
  });
}

TSR_EXTERN tsr_status tsr_ddp_set_param_names(tsr_ddp* ddp, int64_t n, const char* const* names) {
  return guarded([&] {
    require(ddp, "ddp");
    require(names, "names");
    TSR_CHECK(n == ddp->impl->num_params(), TSR_ERR_INVALID_ARGUMENT, "n is ", n, " but the module has ",
              ddp->impl->num_params(), " parameters");
    std::vector<std::string> v;
    for (int64_t i = 0; i < n; ++i) {
      TSR_CHECK(names[i] != nullptr, TSR_ERR_INVALID_ARGUMENT, "names[", i, "] is NULL");
      v.emplace_back(names[i]);
    }
    ddp->impl->set_param_names(std::move(v));
  });
}

TSR_EXTERN int64_t tsr_ddp_num_params(const tsr_ddp* ddp) {
  return guarded_value<int64_t>(-1, [&] { return require(ddp, "ddp")->impl->num_params(); });
}

TSR_EXTERN tsr_status tsr_ddp_bucket_indices(const tsr_ddp* ddp, int64_t capacity, int64_t* bucket_sizes,
                                             int64_t* param_indices, int64_t* n_buckets) {
  return guarded([&] {
    require(ddp, "ddp");
    require(n_buckets, "n_buckets");
    TSR_CHECK(capacity >= 0, TSR_ERR_INVALID_ARGUMENT, "capacity must be >= 0, got ", capacity);
    TSR_CHECK(capacity == 0 || (bucket_sizes && param_indices), TSR_ERR_INVALID_ARGUMENT,
              "bucket_sizes and param_indices must not be NULL when capacity > 0");
    const auto buckets = ddp->impl->bucket_indices();
    if (int64_t(buckets.size()) <= capacity) {
      int64_t k = 0;
      for (size_t b = 0; b < buckets.size(); ++b) {
        bucket_sizes[b] = int64_t(buckets[b].size());
        for (int64_t i : buckets[b]) param_indices[k++] = i;
      }
    }
    *n_buckets = int64_t(buckets.size());
  });
}

TSR_EXTERN void tsr_ddp_retain(tsr_ddp* ddp) { retain(ddp); }
TSR_EXTERN void tsr_ddp_release(tsr_ddp* ddp) { release(ddp); }

// C API: process groups and collectives (distributed.h) over
// src/distributed/. A tsr_work keeps its group alive, so a work handle
// outliving the group's last user handle still waits correctly.
#include <tessera/distributed.h>

#include <atomic>
#include <memory>

#include "capi/barrier.h"
#include "capi/handles.h"
#include "capi/process_group_handle.h"
#include "capi/struct_size.h"
#include "distributed/collectives.h"
#include "distributed/mpi_loader.h"
#include "distributed/nccl_backend.h"
#include "distributed/process_group.h"
#include "distributed/subgroups.h"

using namespace tsr;
using namespace tsr::capi;

struct tsr_work {
  tsr_work(std::shared_ptr<distributed::ProcessGroup> g, std::shared_ptr<distributed::Work> w)
      : group(std::move(g)), work(std::move(w)) {}
  std::shared_ptr<distributed::ProcessGroup> group;
  std::shared_ptr<distributed::Work> work;
};

namespace {

// Runs a collective: synchronously when work is NULL, else hands out the
// handle (*work is written last, only on success).
template <typename Fn>
tsr_status collective(tsr_process_group* pg, tsr_work** work, Fn&& issue) {
  return guarded([&] {
    distributed::ProcessGroup& g = group_of(pg);
    std::shared_ptr<distributed::Work> w = issue(g, work != nullptr);
    if (work) *work = new tsr_work(pg->impl, std::move(w));
  });
}

tsr_reduce_op reduce_op_arg(const tsr_reduce_op& op) {
  const int v = enum_arg(op);
  TSR_CHECK(v >= TSR_REDUCE_SUM && v <= TSR_REDUCE_BXOR, TSR_ERR_INVALID_ARGUMENT, "op: unknown reduce op ", v,
            " (TSR_REDUCE_SUM..TSR_REDUCE_BXOR)");
  return tsr_reduce_op(v);
}

// The timeout of a subgroup: options' (0: the parent's). Only struct_size,
// backend and timeout_ms are read.
distributed::Millis subgroup_timeout(const distributed::ProcessGroup& parent,
                                     const tsr_process_group_options* options) {
  if (!options) return parent.timeout();
  const tsr_process_group_options defaults = TSR_PROCESS_GROUP_OPTIONS_INIT;
  const tsr_process_group_options o = read_struct(
      options, defaults, TSR_FIRST_VERSION_SIZE(tsr_process_group_options, timeout_ms), "options",
      "tsr_process_group_options");
  const int backend = enum_arg(o.backend);
  TSR_CHECK(backend == TSR_DIST_DEFAULT || backend == TSR_DIST_GLOO, TSR_ERR_UNSUPPORTED, "options.backend: ",
            backend, ": a subgroup takes its parent's backend (TSR_DIST_DEFAULT or TSR_DIST_GLOO)");
  TSR_CHECK(o.timeout_ms >= 0, TSR_ERR_INVALID_ARGUMENT, "options.timeout_ms must be >= 0 (0: the parent's), got ",
            o.timeout_ms);
  return o.timeout_ms > 0 ? distributed::Millis(o.timeout_ms) : parent.timeout();
}

// *out = the subgroup's handle, or NULL on a rank outside it.
void emit_group(std::shared_ptr<distributed::ProcessGroup> g, tsr_process_group** out) {
  *out = g ? new tsr_process_group(std::move(g)) : nullptr;
}

}  // namespace

TSR_EXTERN tsr_status tsr_process_group_init(const tsr_process_group_options* options, tsr_process_group** out) {
  return guarded([&] {
    require(out, "out");
    const tsr_process_group_options defaults = TSR_PROCESS_GROUP_OPTIONS_INIT;
    tsr_process_group_options o = defaults;
    if (options)
      o = read_struct(options, defaults, TSR_FIRST_VERSION_SIZE(tsr_process_group_options, timeout_ms), "options",
                      "tsr_process_group_options");
    const int backend = enum_arg(o.backend);
    TSR_CHECK(backend >= TSR_DIST_DEFAULT && backend <= TSR_DIST_MPI, TSR_ERR_INVALID_ARGUMENT,
              "options.backend: unknown backend ", backend, " (TSR_DIST_DEFAULT..TSR_DIST_MPI)");
    TSR_CHECK(o.timeout_ms >= 0, TSR_ERR_INVALID_ARGUMENT, "options.timeout_ms must be >= 0 (0: 30 minutes), got ",
              o.timeout_ms);
    TSR_CHECK(o.rank >= -1, TSR_ERR_INVALID_ARGUMENT, "options.rank must be >= 0, or -1 for the environment, got ",
              o.rank);
    TSR_CHECK(o.world_size >= -1 && o.world_size != 0, TSR_ERR_INVALID_ARGUMENT,
              "options.world_size must be >= 1, or -1 for the environment, got ", o.world_size);
    distributed::GroupOptions g;
    g.init_method = o.init_method ? o.init_method : "";
    g.rank = o.rank;
    g.world_size = o.world_size;
    g.backend = tsr_dist_backend(backend);
    if (o.timeout_ms > 0) g.timeout = distributed::Millis(o.timeout_ms);
    g.mpi = backend == TSR_DIST_MPI;  // rank and world size from MPI; init_method unused
    auto group = std::make_shared<distributed::ProcessGroup>(g);
    *out = new tsr_process_group(std::move(group));
  });
}

TSR_EXTERN int32_t tsr_process_group_rank(const tsr_process_group* pg) {
  return guarded_value<int32_t>(-1, [&] { return require(pg, "pg")->impl->rank(); });
}

TSR_EXTERN int32_t tsr_process_group_size(const tsr_process_group* pg) {
  return guarded_value<int32_t>(-1, [&] { return require(pg, "pg")->impl->size(); });
}

TSR_EXTERN bool tsr_dist_backend_is_available(tsr_dist_backend backend) {
  switch (int(backend)) {
    case TSR_DIST_DEFAULT:
    case TSR_DIST_GLOO: return true;
    case TSR_DIST_NCCL:
      try {
        distributed::NcclBackend::check_available();
        return true;
      } catch (const std::exception&) {
        return false;
      }
    case TSR_DIST_MPI:
      try {
        distributed::mpi_module();
        return true;
      } catch (const std::exception&) {
        return false;
      }
    default: return false;
  }
}

TSR_EXTERN const char* tsr_process_group_backend(const tsr_process_group* pg) {
  return guarded_value<const char*>(nullptr, [&] {
    return require(pg, "pg")->impl->backend_name();
  });
}

TSR_EXTERN void tsr_process_group_retain(tsr_process_group* pg) { retain(pg); }
TSR_EXTERN void tsr_process_group_release(tsr_process_group* pg) { release(pg); }

TSR_EXTERN tsr_status tsr_all_reduce(tsr_process_group* pg, tsr_tensor* tensor, tsr_reduce_op op, tsr_work** work) {
  return collective(pg, work, [&](distributed::ProcessGroup& g, bool async) {
    return distributed::all_reduce(g, tensor_of(tensor, "tensor"), reduce_op_arg(op), async);
  });
}

TSR_EXTERN tsr_status tsr_broadcast(tsr_process_group* pg, tsr_tensor* tensor, int32_t root, tsr_work** work) {
  return collective(pg, work, [&](distributed::ProcessGroup& g, bool async) {
    return distributed::broadcast(g, tensor_of(tensor, "tensor"), root, async);
  });
}

TSR_EXTERN tsr_status tsr_all_gather_into_tensor(tsr_process_group* pg, tsr_tensor* output, const tsr_tensor* input,
                                                 tsr_work** work) {
  return collective(pg, work, [&](distributed::ProcessGroup& g, bool async) {
    return distributed::all_gather_into_tensor(g, tensor_of(output, "output"), tensor_of(input, "input"), async);
  });
}

TSR_EXTERN tsr_status tsr_reduce_scatter_tensor(tsr_process_group* pg, tsr_tensor* output, const tsr_tensor* input,
                                                tsr_reduce_op op, tsr_work** work) {
  return collective(pg, work, [&](distributed::ProcessGroup& g, bool async) {
    return distributed::reduce_scatter_tensor(g, tensor_of(output, "output"), tensor_of(input, "input"),
                                              reduce_op_arg(op), async);
  });
}

TSR_EXTERN tsr_status tsr_barrier(tsr_process_group* pg, tsr_work** work) {
  return collective(pg, work, [&](distributed::ProcessGroup& g, bool async) { return distributed::barrier(g, async); });
}

TSR_EXTERN tsr_status tsr_monitored_barrier(tsr_process_group* pg, int64_t timeout_ms, bool wait_all_ranks) {
  return guarded([&] {
    distributed::ProcessGroup& g = group_of(pg);
    g.monitored_barrier(timeout_ms > 0 ? distributed::Millis(timeout_ms) : g.timeout(), wait_all_ranks);
  });
}

TSR_EXTERN tsr_status tsr_work_wait(tsr_work* work, int64_t timeout_ms) {
  return guarded([&] {
    require(work, "work");
    const distributed::Millis limit = timeout_ms < 0 ? work->group->timeout() : distributed::Millis(timeout_ms);
    if (!work->work->wait_for(limit)) throw Error(TSR_ERR_DISTRIBUTED, work->group->wait_timed_out(limit));
    if (work->work->status() != TSR_OK) throw Error(work->work->status(), work->work->message());
  });
}

TSR_EXTERN bool tsr_work_is_completed(const tsr_work* work) { return work && work->work->done(); }

TSR_EXTERN void tsr_work_release(tsr_work* work) { delete work; }

TSR_EXTERN tsr_status tsr_new_group(tsr_process_group* pg, int64_t n, const int32_t* ranks,
                                    const tsr_process_group_options* options, tsr_process_group** out) {
  return guarded([&] {
    distributed::ProcessGroup& parent = group_of(pg);
    require(out, "out");
    TSR_CHECK(n >= 0, TSR_ERR_INVALID_ARGUMENT, "n must be >= 0 (0 with ranks NULL: every rank), got ", n);
    TSR_CHECK(ranks || n == 0, TSR_ERR_INVALID_ARGUMENT, "ranks is NULL with n = ", n);
    TSR_CHECK(n > 0 || !ranks, TSR_ERR_INVALID_ARGUMENT, "n is 0: pass ranks NULL for every rank of pg");
    TSR_CHECK(n <= parent.size(), TSR_ERR_INVALID_ARGUMENT,
              "the new group's world size should be less or equal to the world size set by init_process_group (",
              n, " ranks, the group has ", parent.size(), ")");
    const distributed::Millis timeout = subgroup_timeout(parent, options);
    std::vector<int> members;
    if (ranks) members.assign(ranks, ranks + n);
    else for (int r = 0; r < parent.size(); ++r) members.push_back(r);
    emit_group(distributed::new_group(parent, std::move(members), timeout), out);
  });
}

TSR_EXTERN tsr_status tsr_process_group_split(tsr_process_group* pg, int32_t color, int32_t key,
                                              const tsr_process_group_options* options, tsr_process_group** out) {
  return guarded([&] {
    distributed::ProcessGroup& parent = group_of(pg);
    require(out, "out");
    const distributed::Millis timeout = subgroup_timeout(parent, options);
    emit_group(distributed::split(parent, color, key, timeout), out);
  });
}

TSR_EXTERN int32_t tsr_process_group_global_rank(const tsr_process_group* pg, int32_t group_rank) {
  return guarded_value<int32_t>(-1, [&] {
    const distributed::ProcessGroup& g = *require(pg, "pg")->impl;
    TSR_CHECK(group_rank >= 0 && group_rank < g.size(), TSR_ERR_INVALID_ARGUMENT, "Group rank ", group_rank,
              " is not part of group (of size ", g.size(), ")");
    return g.global_rank(group_rank);
  });
}

TSR_EXTERN int32_t tsr_process_group_group_rank(const tsr_process_group* pg, int32_t global_rank) {
  return guarded_value<int32_t>(-1, [&] {
    const distributed::ProcessGroup& g = *require(pg, "pg")->impl;
    const int r = g.group_rank(global_rank);
    TSR_CHECK(r >= 0, TSR_ERR_INVALID_ARGUMENT, "Global rank ", global_rank, " is not part of group");
    return r;
  });
}

TSR_EXTERN tsr_status tsr_send(tsr_process_group* pg, const tsr_tensor* tensor, int32_t dst, int32_t tag,
                               tsr_work** work) {
  return collective(pg, work, [&](distributed::ProcessGroup& g, bool async) {
    return distributed::send(g, tensor_of(tensor, "tensor"), dst, tag, async);
  });
}

TSR_EXTERN tsr_status tsr_recv(tsr_process_group* pg, tsr_tensor* tensor, int32_t src, int32_t tag, int32_t* source,
                               tsr_work** work) {
  return collective(pg, work, [&](distributed::ProcessGroup& g, bool async) {
    std::shared_ptr<distributed::Work> w = distributed::recv(g, tensor_of(tensor, "tensor"), src, tag, async);
    if (source) *source = async ? -1 : w->peer();
    return w;
  });
}

TSR_EXTERN int32_t tsr_work_source_rank(const tsr_work* work) {
  return guarded_value<int32_t>(-1, [&] {
    require(work, "work");
    TSR_CHECK(work->work->done(), TSR_ERR_INVALID_ARGUMENT, "_source_rank: the work is not complete (wait for it)");
    TSR_CHECK(work->work->status() == TSR_OK, TSR_ERR_INVALID_ARGUMENT, "_source_rank: the work failed");
    const int peer = work->work->peer();
    TSR_CHECK(peer >= 0, TSR_ERR_INVALID_ARGUMENT, "_source_rank: the work is not a receive");
    return peer;
  });
}

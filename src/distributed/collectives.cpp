#include "distributed/collectives.h"

#include <chrono>
#include <optional>

#include "autograd/grad_mode.h"
#include "core/error.h"
#include "core/factory.h"
#include "core/layout.h"
#include "core/stream.h"
#include "cpu/kernels/copy.h"
#include "distributed/reduce_functions.h"
#include "core/dtype.h"
#include "ops/layout.h"

namespace tsr::distributed {
namespace {

bool c_contiguous(const Tensor& t) { return is_contiguous_strides(t.sizes(), t.strides()); }

// A tensor whose memory the collective writes: the tensor itself when
// C-contiguous, else a contiguous copy written back at the end.
struct Staged {
  Tensor user;
  Tensor buffer;
  explicit Staged(const Tensor& t, bool needs_input) : user(t) {
    autograd::NoGradGuard no_grad;
    if (c_contiguous(t)) buffer = t;
    else buffer = needs_input ? ops::contiguous(t, TSR_CONTIGUOUS_FORMAT) : empty(t.sizes(), t.dtype(), TSR_CONTIGUOUS_FORMAT, t.device());
  }
  void finish() const {
    autograd::NoGradGuard no_grad;
    if (buffer.is_same(user)) user.bump_version();
    else ops::copy_(user, buffer);
  }
};

// A device collective runs after the work the caller queued on its
// current stream of the tensors' device, whichever thread runs it (the
// group's worker has its own current streams): that stream is made current
// there for the collective, staging copies included (c10d's
// ProcessGroupNCCL orders after the issuing thread's current stream).
std::function<void(Backend&, const CallOptions&)> on_caller_stream(
    const Tensor& t, std::function<void(Backend&, const CallOptions&)> run) {
  if (t.device().type == TSR_DEVICE_CPU) return run;
  const Stream caller = current_stream(t.device());
  return [caller, run = std::move(run)](Backend& b, const CallOptions& o) {
    struct Restore {
      Stream previous;
      ~Restore() { set_current_stream(previous); }
    } restore{current_stream(caller.device)};
    set_current_stream(caller);
    run(b, o);
  };
}

// An input the collective only reads, C-contiguous.
Tensor contiguous_input(const Tensor& t) {
  if (c_contiguous(t)) return t;
  autograd::NoGradGuard no_grad;
  return ops::contiguous(t, TSR_CONTIGUOUS_FORMAT);
}

void check_tensor(const ProcessGroup& pg, const Tensor& t, const char* op, const char* what, bool written) {
  pg.check_device(t.device().type, op);
  TSR_CHECK(!is_storage_only(t.dtype()), TSR_ERR_UNSUPPORTED, op, ": collectives do not take ",
            dtype_name(t.dtype()), " tensors (a storage-only dtype)");
  if (!written) return;
  TSR_CHECK(!t.storage()->read_only(), TSR_ERR_INVALID_ARGUMENT, op, ": ", what,
            " is a read-only view of a memory-mapped file; clone() it first");
  TSR_CHECK(!kernels::has_internal_overlap(t), TSR_ERR_INVALID_ARGUMENT, op, ": more than one element of ", what,
            " refers to a single memory location (an expanded tensor); clone() it first");
}

int check_op(tsr_reduce_op op) {
  const int v = int(op);
  TSR_CHECK(v >= TSR_REDUCE_SUM && v <= TSR_REDUCE_BXOR, TSR_ERR_INVALID_ARGUMENT, "unknown reduce op ", v,
            " (TSR_REDUCE_SUM..TSR_REDUCE_BXOR)");
  return v;
}

std::string describe(const Tensor& t) { return str("dtype=", dtype_name(t.dtype()), ", sizes=", t.sizes()); }

}  // namespace

std::shared_ptr<Work> all_reduce(ProcessGroup& pg, const Tensor& tensor, tsr_reduce_op op, bool async) {
  check_op(op);
  check_tensor(pg, tensor, "all_reduce", "tensor", true);
  // Refuses what cannot be reduced, now (Gloo's reductions; NCCL refuses
  // its own before queueing anything).
  if (tensor.device().type == TSR_DEVICE_CPU) reduce_function(tensor.dtype(), op);
  Collective c;
  c.op = "all_reduce";
  c.signature = describe(tensor) + ", op=" + reduce_op_name(op);
  c.device = tensor.device().type;
  c.device_index = tensor.device().index;
  c.run = on_caller_stream(tensor, [tensor, op](Backend& b, const CallOptions& o) {
    Staged s(tensor, true);
    b.all_reduce(s.buffer, op, o);
    s.finish();
  });
  return pg.submit(std::move(c), async);
}

std::shared_ptr<Work> broadcast(ProcessGroup& pg, const Tensor& tensor, int root, bool async) {
  check_tensor(pg, tensor, "broadcast", "tensor", true);
  TSR_CHECK(root >= 0 && root < pg.size(), TSR_ERR_INVALID_ARGUMENT, "ProcessGroupGloo::broadcast: invalid root rank: ",
            root);
  Collective c;
  c.op = "broadcast";
  c.signature = describe(tensor) + ", root=" + std::to_string(root);
  c.device = tensor.device().type;
  c.device_index = tensor.device().index;
  const bool is_root = pg.rank() == root;
  c.run = on_caller_stream(tensor, [tensor, root, is_root](Backend& b, const CallOptions& o) {
    Staged s(tensor, is_root);
    b.broadcast(s.buffer, root, o);
    s.finish();
  });
  return pg.submit(std::move(c), async);
}

std::shared_ptr<Work> all_gather_into_tensor(ProcessGroup& pg, const Tensor& output, const Tensor& input,
                                             bool async) {
  check_tensor(pg, output, "all_gather_into_tensor", "output", true);
  check_tensor(pg, input, "all_gather_into_tensor", "input", false);
  TSR_CHECK(output.device() == input.device(), TSR_ERR_DEVICE_MISMATCH, "all_gather_into_tensor: output is on ",
            device_name(output.device()), " but input is on ", device_name(input.device()));
  TSR_CHECK(output.dtype() == input.dtype(), TSR_ERR_DTYPE_MISMATCH,
            "all_gather_into_tensor: output and input must have the same dtype, got ", dtype_name(output.dtype()),
            " and ", dtype_name(input.dtype()));
  TSR_CHECK(output.numel() == input.numel() * pg.size(), TSR_ERR_SHAPE_MISMATCH,
            "all_gather_into_tensor: output tensor size must be equal to world_size times input tensor size "
            "(output has ", output.numel(), " elements, input ", input.numel(), ", world size ", pg.size(), ")");
  TSR_CHECK(!kernels::may_overlap(output, input), TSR_ERR_INVALID_ARGUMENT,
            "all_gather_into_tensor: output and input overlap");
  Collective c;
  c.op = "all_gather_into_tensor";
  c.signature = describe(input) + ", output sizes=" + str(output.sizes());
  c.device = input.device().type;
  c.device_index = input.device().index;
  c.run = on_caller_stream(output, [output, input](Backend& b, const CallOptions& o) {
    Staged out(output, false);
    b.all_gather(out.buffer, contiguous_input(input), o);
    out.finish();
  });
  return pg.submit(std::move(c), async);
}

std::shared_ptr<Work> reduce_scatter_tensor(ProcessGroup& pg, const Tensor& output, const Tensor& input,
                                            tsr_reduce_op op, bool async) {
  check_op(op);
  check_tensor(pg, output, "reduce_scatter_tensor", "output", true);
  check_tensor(pg, input, "reduce_scatter_tensor", "input", false);
  TSR_CHECK(output.device() == input.device(), TSR_ERR_DEVICE_MISMATCH, "reduce_scatter_tensor: output is on ",
            device_name(output.device()), " but input is on ", device_name(input.device()));
  TSR_CHECK(output.dtype() == input.dtype(), TSR_ERR_DTYPE_MISMATCH,
            "reduce_scatter_tensor: output and input must have the same dtype, got ", dtype_name(output.dtype()),
            " and ", dtype_name(input.dtype()));
  TSR_CHECK(input.numel() == output.numel() * pg.size(), TSR_ERR_SHAPE_MISMATCH,
            "reduce_scatter_tensor: input tensor size must be equal to world_size times output tensor size "
            "(input has ", input.numel(), " elements, output ", output.numel(), ", world size ", pg.size(), ")");
  if (input.device().type == TSR_DEVICE_CPU) reduce_function(input.dtype(), op);
  Collective c;
  c.op = "reduce_scatter_tensor";
  c.signature = describe(input) + ", op=" + reduce_op_name(op);
  c.device = input.device().type;
  c.device_index = input.device().index;
  c.run = on_caller_stream(output, [output, input, op](Backend& b, const CallOptions& o) {
    Staged out(output, false);
    b.reduce_scatter(out.buffer, contiguous_input(input), op, o);
    out.finish();
  });
  return pg.submit(std::move(c), async);
}

std::shared_ptr<Work> barrier(ProcessGroup& pg, bool async) {
  Collective c;
  c.op = "barrier";
  c.device = pg.barrier_device();
  c.run = [](Backend& b, const CallOptions& o) { b.barrier(o); };
  return pg.submit(std::move(c), async);
}

namespace {

void check_peer(const ProcessGroup& pg, int peer, bool any_allowed, const char* what, int tag) {
  TSR_CHECK(tag >= 0, TSR_ERR_INVALID_ARGUMENT, "Tag must be nonnegative (got ", tag, ")");
  if (any_allowed && peer == -1) return;
  TSR_CHECK(peer >= 0 && peer < pg.size(), TSR_ERR_INVALID_ARGUMENT, "Invalid ", what, " rank: ", peer,
            " is outside [0, ", pg.size(), ")", any_allowed ? " (-1: any source)" : "");
  TSR_CHECK(peer != pg.rank(), TSR_ERR_INVALID_ARGUMENT, "Invalid ", what,
            " rank: should not be the same as the rank of the current process (", peer, ")");
}

// A send or receive from its call to its completion. The group's worker
// (or the caller) posts it; the caller (blocking) or a thread of its own
// (isend, irecv) waits for it. It keeps the memory Gloo reads or writes
// alive until then.
struct PendingTransfer {
  Tensor buffer;                      // contiguous: the tensor or its copy
  std::optional<Staged> received;     // a receive: written back at the end
  std::unique_ptr<Transfer> transfer; // set once posted
};

// Waits for a posted transfer, then writes a staged receive back; returns
// the peer. A failure of the transfer fails the group, as a failed
// collective does (throws TSR_ERR_DISTRIBUTED).
int finish_transfer(ProcessGroup& pg, const Collective& info, PendingTransfer& p) {
  const auto start = Clock::now();
  int peer = -1;
  try {
    peer = p.transfer->wait();
  } catch (const BackendFailure& e) {
    pg.fail_transfer(info, e.what(), std::chrono::duration<double>(Clock::now() - start).count());
  }
  if (p.received) p.received->finish();
  return peer;
}

std::shared_ptr<Work> point_to_point(ProcessGroup& pg, const Tensor& tensor, int peer, int tag, bool receiving,
                                     bool async) {
  const char* op = receiving ? "recv" : "send";
  check_tensor(pg, tensor, op, "tensor", receiving);
  TSR_CHECK(tensor.device().type == TSR_DEVICE_CPU, TSR_ERR_UNSUPPORTED, op,
            ": point to point on CUDA tensors (NCCL's send/recv) is not supported yet; send a CPU copy (Gloo)");
  check_peer(pg, peer, receiving, receiving ? "source" : "destination", tag);
  // Staged now, on the caller's thread: a send reads the tensor's values
  // as they are at the call.
  auto pending = std::make_shared<PendingTransfer>();
  if (receiving) {
    pending->received.emplace(tensor, false);
    pending->buffer = pending->received->buffer;
  } else {
    pending->buffer = contiguous_input(tensor);
  }
  Collective c;
  c.op = op;
  c.signature = describe(tensor) + (receiving ? ", src=" : ", dst=") + std::to_string(peer) + ", tag=" +
                std::to_string(tag);
  c.device = tensor.device().type;
  c.point_to_point = true;
  Collective info{c.op, c.signature, c.device, nullptr, true};
  // The worker drops its reference once posted, before the posting's Work
  // completes.
  c.run = [p = pending, peer, tag, receiving](Backend& b, const CallOptions& o) {
    const CallOptions options{uint32_t(tag), o.timeout};
    p->transfer = receiving ? b.recv(p->buffer, peer, options) : b.send(p->buffer, peer, options);
  };
  auto work = std::make_shared<Work>();
  if (!async) {
    pg.submit(std::move(c), false);  // posted (or throws)
    const int from = finish_transfer(pg, info, *pending);
    if (receiving) work->set_peer(from);
    work->complete(TSR_OK, "");
    return work;
  }
  std::shared_ptr<Work> posting = pg.submit(std::move(c), true);
  // Its own thread waits for the peer: the group's worker goes on posting
  // (c10d's Gloo send returns once posted).
  pg.run_in_background([&pg, info, posting, pending, work, receiving]() mutable {
    posting->wait_for(Millis(-1));
    RankOutcome outcome{posting->status(), posting->message()};
    int from = -1;
    if (outcome.status == TSR_OK) outcome = outcome_of([&] { from = finish_transfer(pg, info, *pending); });
    // Drop the tensors before waking the waiter, as the worker does: once
    // a wait returns, the group holds no reference to them.
    pending.reset();
    posting.reset();
    if (receiving && outcome.status == TSR_OK) work->set_peer(from);
    work->complete(outcome.status, std::move(outcome.message));
  });
  return work;
}

}  // namespace

std::shared_ptr<Work> send(ProcessGroup& pg, const Tensor& tensor, int dst, int tag, bool async) {
  return point_to_point(pg, tensor, dst, tag, false, async);
}

std::shared_ptr<Work> recv(ProcessGroup& pg, const Tensor& tensor, int src, int tag, bool async) {
  return point_to_point(pg, tensor, src, tag, true, async);
}

}  // namespace tsr::distributed

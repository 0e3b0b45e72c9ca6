#include "distributed/collectives.h"

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
  TSR_CHECK(v >= TSR_REDUCE_SUM && v <= TSR_REDUCE_MAX, TSR_ERR_INVALID_ARGUMENT, "unknown reduce op ", v,
            " (TSR_REDUCE_SUM..TSR_REDUCE_MAX)");
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

}  // namespace tsr::distributed

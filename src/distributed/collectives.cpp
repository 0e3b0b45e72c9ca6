#include "distributed/collectives.h"

#include <cstring>
#include <type_traits>

#include <gloo/allgather.h>
#include <gloo/allreduce.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>

#include "autograd/grad_mode.h"
#include "core/error.h"
#include "core/factory.h"
#include "core/layout.h"
#include "cpu/kernels/copy.h"
#include "distributed/reduce_functions.h"
#include "core/dtype.h"
#include "ops/layout.h"

namespace tsr::distributed {
namespace {

// The type 16-bit floats compute in.
template <typename T> struct FloatType { using type = T; };
template <> struct FloatType<Half> { using type = float; };
template <> struct FloatType<BFloat16> { using type = float; };
template <typename T> using float_type_t = typename FloatType<T>::type;

using Context = std::shared_ptr<gloo::Context>;

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
  char* bytes() const { return static_cast<char*>(buffer.data_ptr()); }
  void finish() const {
    autograd::NoGradGuard no_grad;
    if (buffer.is_same(user)) user.bump_version();
    else ops::copy_(user, buffer);
  }
};

void check_tensor(const ProcessGroup&, const Tensor& t, const char* op, const char* what, bool written) {
  TSR_CHECK(t.device().type == TSR_DEVICE_CPU, TSR_ERR_UNSUPPORTED, op, ": ", what, " is on ",
            device_type_name(t.device().type),
            "; this build's process groups reduce CPU tensors only (Gloo; the NCCL backend is not built yet)");
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

// AVG after SUM: floating types divide (float16/bfloat16 in float32, one
// rounding), integers truncate as NCCL's ncclAvg; bool stays the or.
void divide(const Tensor& buffer, int world) {
  if (buffer.dtype() == TSR_BOOL) return;
  dispatch_all(buffer.dtype(), [&]<typename T>() {
    T* p = buffer.data<T>();
    const int64_t n = buffer.numel();
    if constexpr (std::is_integral_v<T>) {
      for (int64_t i = 0; i < n; ++i) p[i] = T(p[i] / T(world));
    } else {
      for (int64_t i = 0; i < n; ++i) p[i] = T(float_type_t<T>(p[i]) / float_type_t<T>(world));
    }
  });
}

// Gloo's all-reduce of n elements in place, then AVG's division.
void reduce_in_place(const Context& ctx, uint32_t tag, Millis timeout, const Tensor& buffer, tsr_reduce_op op) {
  const size_t n = size_t(buffer.numel());
  if (n == 0) return;
  gloo::AllreduceOptions o(ctx);
  // The element type only sets the element size; the function does the math.
  void* p = buffer.data_ptr();
  switch (buffer.element_size()) {
    case 1: o.setOutput(static_cast<uint8_t*>(p), n); break;
    case 2: o.setOutput(static_cast<uint16_t*>(p), n); break;
    case 4: o.setOutput(static_cast<uint32_t*>(p), n); break;
    default: o.setOutput(static_cast<uint64_t*>(p), n); break;
  }
  o.setReduceFunction(gloo::AllreduceOptions::Func(reduce_function(buffer.dtype(), op)));
  o.setTag(tag);
  o.setTimeout(timeout);
  gloo::allreduce(o);
  if (op == TSR_REDUCE_AVG && ctx->size > 1) divide(buffer, ctx->size);
}

}  // namespace

std::shared_ptr<Work> all_reduce(ProcessGroup& pg, const Tensor& tensor, tsr_reduce_op op, bool async) {
  check_op(op);
  check_tensor(pg, tensor, "all_reduce", "tensor", true);
  reduce_function(tensor.dtype(), op);  // refuses what cannot be reduced, now
  Collective c;
  c.op = "all_reduce";
  c.signature = describe(tensor) + ", op=" + reduce_op_name(op);
  c.run = [tensor, op](const Context& ctx, uint32_t tag, Millis timeout) {
    Staged s(tensor, true);
    reduce_in_place(ctx, tag, timeout, s.buffer, op);
    s.finish();
  };
  return pg.submit(std::move(c), async);
}

std::shared_ptr<Work> broadcast(ProcessGroup& pg, const Tensor& tensor, int root, bool async) {
  check_tensor(pg, tensor, "broadcast", "tensor", true);
  TSR_CHECK(root >= 0 && root < pg.size(), TSR_ERR_INVALID_ARGUMENT, "ProcessGroupGloo::broadcast: invalid root rank: ",
            root);
  Collective c;
  c.op = "broadcast";
  c.signature = describe(tensor) + ", root=" + std::to_string(root);
  c.run = [tensor, root](const Context& ctx, uint32_t tag, Millis timeout) {
    Staged s(tensor, ctx->rank == root);
    if (tensor.numel() > 0) {
      gloo::BroadcastOptions o(ctx);
      // In place on every rank, root included: an input buffer object on
      // the root, even over the same memory, makes Gloo copy the buffer
      // onto itself while its send reads it.
      o.setOutput(s.bytes(), size_t(s.buffer.nbytes()));
      o.setRoot(root);
      o.setTag(tag);
      o.setTimeout(timeout);
      gloo::broadcast(o);
    }
    s.finish();
  };
  return pg.submit(std::move(c), async);
}

std::shared_ptr<Work> all_gather_into_tensor(ProcessGroup& pg, const Tensor& output, const Tensor& input,
                                             bool async) {
  check_tensor(pg, output, "all_gather_into_tensor", "output", true);
  check_tensor(pg, input, "all_gather_into_tensor", "input", false);
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
  c.run = [output, input](const Context& ctx, uint32_t tag, Millis timeout) {
    Staged out(output, false);
    Tensor in = input;
    if (!c_contiguous(in)) {
      autograd::NoGradGuard no_grad;
      in = ops::contiguous(in, TSR_CONTIGUOUS_FORMAT);
    }
    if (in.numel() > 0) {
      gloo::AllgatherOptions o(ctx);
      o.setInput(static_cast<char*>(in.data_ptr()), size_t(in.nbytes()));
      o.setOutput(out.bytes(), size_t(out.buffer.nbytes()));
      o.setTag(tag);
      o.setTimeout(timeout);
      gloo::allgather(o);
    }
    out.finish();
  };
  return pg.submit(std::move(c), async);
}

std::shared_ptr<Work> reduce_scatter_tensor(ProcessGroup& pg, const Tensor& output, const Tensor& input,
                                            tsr_reduce_op op, bool async) {
  check_op(op);
  check_tensor(pg, output, "reduce_scatter_tensor", "output", true);
  check_tensor(pg, input, "reduce_scatter_tensor", "input", false);
  TSR_CHECK(output.dtype() == input.dtype(), TSR_ERR_DTYPE_MISMATCH,
            "reduce_scatter_tensor: output and input must have the same dtype, got ", dtype_name(output.dtype()),
            " and ", dtype_name(input.dtype()));
  TSR_CHECK(input.numel() == output.numel() * pg.size(), TSR_ERR_SHAPE_MISMATCH,
            "reduce_scatter_tensor: input tensor size must be equal to world_size times output tensor size "
            "(input has ", input.numel(), " elements, output ", output.numel(), ", world size ", pg.size(), ")");
  reduce_function(input.dtype(), op);
  Collective c;
  c.op = "reduce_scatter_tensor";
  c.signature = describe(input) + ", op=" + reduce_op_name(op);
  c.run = [output, input, op](const Context& ctx, uint32_t tag, Millis timeout) {
    // Gloo 0.5 has no reduce-scatter for any dtype and reduction: reduce
    // all of it (a copy), keep this rank's chunk. Twice the traffic of a
    // ring reduce-scatter; correct for every op.
    Tensor whole;
    {
      autograd::NoGradGuard no_grad;
      whole = ops::clone(input, TSR_CONTIGUOUS_FORMAT);
    }
    reduce_in_place(ctx, tag, timeout, whole, op);
    Staged out(output, false);
    const size_t chunk = size_t(output.numel()) * size_t(whole.element_size());
    if (chunk > 0)  // an empty tensor may have no memory at all
      std::memcpy(out.bytes(), static_cast<char*>(whole.data_ptr()) + size_t(ctx->rank) * chunk, chunk);
    out.finish();
  };
  return pg.submit(std::move(c), async);
}

std::shared_ptr<Work> barrier(ProcessGroup& pg, bool async) {
  Collective c;
  c.op = "barrier";
  c.run = [](const Context& ctx, uint32_t tag, Millis timeout) {
    gloo::BarrierOptions o(ctx);
    o.setTag(tag);
    o.setTimeout(timeout);
    gloo::barrier(o);
  };
  return pg.submit(std::move(c), async);
}

}  // namespace tsr::distributed

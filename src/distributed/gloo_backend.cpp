#include "distributed/gloo_backend.h"

#include <cstring>

#include <gloo/allgather.h>
#include <gloo/allreduce.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/common/error.h>
#include <gloo/rendezvous/context.h>
#include <gloo/transport/unbound_buffer.h>
#include <gloo/transport/tcp/device.h>

#include "autograd/grad_mode.h"
#include "core/error.h"
#include "core/factory.h"
#include "distributed/reduce_functions.h"
#include "ops/layout.h"

namespace tsr::distributed {
namespace {

// Runs a Gloo call; Gloo's exceptions become BackendFailure (the group
// fails), tessera's own errors pass through.
template <typename Fn>
void gloo_call(Fn&& fn) {
  try {
    fn();
  } catch (const Error&) {
    throw;
  } catch (const gloo::Exception& e) {
    throw BackendFailure(e.what());
  }
}

}  // namespace

// Gloo 0.5's device thread may still lock a failed operation's unbound
// buffers after the operation threw (a peer died in the middle of it):
// destroying the options then frees a mutex that thread holds (TSan saw it
// in the killed-rank tests). A failed operation's options therefore stay
// alive until the context, and with it every pair that could touch them,
// is gone (failed_operations_ is declared before context_).
template <typename Options, typename Run>
void GlooBackend::run(Run&& run) {
  auto options = std::make_shared<Options>(context_);
  try {
    run(*options);
  } catch (const Error&) {
    failed_operations_.push_back(options);
    throw;
  } catch (const gloo::Exception& e) {
    failed_operations_.push_back(options);
    throw BackendFailure(e.what());
  }
}

GlooBackend::GlooBackend(Store& store, int rank, int size, const std::string& listen_host, Millis timeout) {
  try {
    gloo::transport::tcp::attr attr;
    attr.hostname = listen_host;
    std::shared_ptr<gloo::transport::Device> device = gloo::transport::tcp::CreateDevice(attr);
    auto context = std::make_shared<gloo::rendezvous::Context>(rank, size);
    context->setTimeout(timeout);
    context->connectFullMesh(store, device);
    context_ = context;
    // Every rank is connected before any returns: rank 0 may release the
    // store's server as soon as it returns.
    run<gloo::BarrierOptions>([&](gloo::BarrierOptions& o) {
      o.setTag(0);
      o.setTimeout(timeout);
      gloo::barrier(o);
    });
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    fail(TSR_ERR_DISTRIBUTED, "rank ", rank, " of world size ", size, " could not connect to its peers (listening on ",
         listen_host, "): ", e.what());
  }
}

void GlooBackend::all_reduce(const Tensor& buffer, tsr_reduce_op op, const CallOptions& o) {
  const size_t n = size_t(buffer.numel());
  if (n == 0) return;
  run<gloo::AllreduceOptions>([&](gloo::AllreduceOptions& a) {
    // The element type only sets the element size; the function does the math.
    void* p = buffer.data_ptr();
    switch (buffer.element_size()) {
      case 1: a.setOutput(static_cast<uint8_t*>(p), n); break;
      case 2: a.setOutput(static_cast<uint16_t*>(p), n); break;
      case 4: a.setOutput(static_cast<uint32_t*>(p), n); break;
      default: a.setOutput(static_cast<uint64_t*>(p), n); break;
    }
    a.setReduceFunction(gloo::AllreduceOptions::Func(reduce_function(buffer.dtype(), op)));
    a.setTag(o.tag);
    a.setTimeout(o.timeout);
    gloo::allreduce(a);
  });
  if (op == TSR_REDUCE_AVG && context_->size > 1) divide_in_place(buffer, context_->size);
}

void GlooBackend::broadcast(const Tensor& buffer, int root, const CallOptions& o) {
  if (buffer.numel() == 0) return;
  run<gloo::BroadcastOptions>([&](gloo::BroadcastOptions& b) {
    // In place on every rank, root included: an input buffer object on the
    // root, even over the same memory, makes Gloo copy the buffer onto
    // itself while its send reads it.
    b.setOutput(static_cast<char*>(buffer.data_ptr()), size_t(buffer.nbytes()));
    b.setRoot(root);
    b.setTag(o.tag);
    b.setTimeout(o.timeout);
    gloo::broadcast(b);
  });
}

void GlooBackend::all_gather(const Tensor& output, const Tensor& input, const CallOptions& o) {
  if (input.numel() == 0) return;
  all_gather_bytes(input.data_ptr(), output.data_ptr(), size_t(input.nbytes()), o);
}

void GlooBackend::reduce_scatter(const Tensor& output, const Tensor& input, tsr_reduce_op op, const CallOptions& o) {
  // Gloo 0.5 has no reduce-scatter for any dtype and reduction: reduce all
  // of it (a copy), keep this rank's chunk. Twice the traffic of a ring
  // reduce-scatter; correct for every op.
  Tensor whole;
  {
    autograd::NoGradGuard no_grad;
    whole = ops::clone(input, TSR_CONTIGUOUS_FORMAT);
  }
  all_reduce(whole, op, o);
  const size_t chunk = size_t(output.nbytes());
  if (chunk > 0)  // an empty tensor may have no memory at all
    std::memcpy(output.data_ptr(), static_cast<char*>(whole.data_ptr()) + size_t(context_->rank) * chunk, chunk);
}

void GlooBackend::barrier(const CallOptions& o) {
  run<gloo::BarrierOptions>([&](gloo::BarrierOptions& b) {
    b.setTag(o.tag);
    b.setTimeout(o.timeout);
    gloo::barrier(b);
  });
}

namespace {

// A posted Gloo send or receive: the unbound buffer over the tensor's
// memory, waited on once. The slot is the user's tag: Gloo's collectives
// build theirs with a non-zero prefix byte (gloo::Slot::build), so they
// never match a tag, as in c10d's ProcessGroupGloo.
class GlooTransfer final : public Transfer {
 public:
  GlooTransfer(std::unique_ptr<gloo::transport::UnboundBuffer> buffer, bool sending, Millis timeout)
      : buffer_(std::move(buffer)), sending_(sending), timeout_(timeout) {}
  int wait() override {
    int peer = -1;
    bool done = false;
    gloo_call([&] { done = sending_ ? buffer_->waitSend(&peer, timeout_) : buffer_->waitRecv(&peer, timeout_); });
    if (!done) throw BackendFailure(str(sending_ ? "send" : "recv", " was aborted"));
    return peer;
  }

 private:
  std::unique_ptr<gloo::transport::UnboundBuffer> buffer_;
  bool sending_;
  Millis timeout_;
};

// An empty tensor may have no memory: Gloo still wants a pointer.
void* bytes_of(const Tensor& t) {
  static char none;
  return t.nbytes() > 0 ? t.data_ptr() : &none;
}

}  // namespace

std::unique_ptr<Transfer> GlooBackend::send(const Tensor& buffer, int peer, const CallOptions& o) {
  std::unique_ptr<Transfer> transfer;
  gloo_call([&] {
    const size_t n = size_t(buffer.nbytes());
    auto ub = context_->createUnboundBuffer(bytes_of(buffer), n);
    ub->send(peer, uint64_t(o.tag), 0, n);
    transfer = std::make_unique<GlooTransfer>(std::move(ub), true, o.timeout);
  });
  return transfer;
}

std::unique_ptr<Transfer> GlooBackend::recv(const Tensor& buffer, int peer, const CallOptions& o) {
  std::unique_ptr<Transfer> transfer;
  gloo_call([&] {
    const size_t n = size_t(buffer.nbytes());
    auto ub = context_->createUnboundBuffer(bytes_of(buffer), n);
    if (peer >= 0) {
      ub->recv(peer, uint64_t(o.tag), 0, n);
    } else {
      std::vector<int> others;
      for (int r = 0; r < context_->size; ++r)
        if (r != context_->rank) others.push_back(r);
      // The byte count given: Gloo's default refuses an empty buffer here.
      ub->recv(others, uint64_t(o.tag), 0, n);
    }
    transfer = std::make_unique<GlooTransfer>(std::move(ub), false, o.timeout);
  });
  return transfer;
}

void GlooBackend::all_gather_bytes(const void* in, void* out, size_t bytes_per_rank, const CallOptions& o) {
  run<gloo::AllgatherOptions>([&](gloo::AllgatherOptions& g) {
    g.setInput(static_cast<char*>(const_cast<void*>(in)), bytes_per_rank);
    g.setOutput(static_cast<char*>(out), bytes_per_rank * size_t(context_->size));
    g.setTag(o.tag);
    g.setTimeout(o.timeout);
    gloo::allgather(g);
  });
}

void GlooBackend::abort() noexcept {
  try {
    context_->closeConnections();
  } catch (...) {
  }
}

}  // namespace tsr::distributed

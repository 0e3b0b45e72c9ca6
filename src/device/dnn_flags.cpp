#include "device/dnn_flags.h"

#include <atomic>

namespace tsr::device {
namespace {

// torch 1.13's defaults: benchmark off, deterministic off, TF32 allowed for
// cuDNN convolutions (torch.backends.cudnn.allow_tf32 = True).
std::atomic<bool> benchmark{false}, deterministic{false}, allow_tf32{true};

}  // namespace

DnnAlgoPolicy dnn_policy() {
  return {benchmark.load(std::memory_order_relaxed), deterministic.load(std::memory_order_relaxed),
          allow_tf32.load(std::memory_order_relaxed)};
}

bool set_dnn_benchmark(bool on) { return benchmark.exchange(on, std::memory_order_relaxed); }
bool set_dnn_deterministic(bool on) { return deterministic.exchange(on, std::memory_order_relaxed); }
bool set_dnn_allow_tf32(bool on) { return allow_tf32.exchange(on, std::memory_order_relaxed); }

}  // namespace tsr::device

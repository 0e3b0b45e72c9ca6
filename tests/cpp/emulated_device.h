// The CUDA kernels' functors (gpu/emulator's EmulatedKernels, run by the
// CPU grid emulator) queued on the simulated device's streams, with a check
// the emulator cannot make itself: whether a launch's threads would write
// one element twice (a race on a GPU, gpu/emulator/launch_writes.h).
#pragma once

#include <atomic>
#include <functional>

#include "device_test_util.h"
#include "emulator/launch_writes.h"
#include "emulator/queued_kernels.h"

namespace tsr::devtest {

// Each call runs on stream s's worker with the device's pages open, as a
// CUDA launch runs on its stream.
class EmulatedOnSimulatedDevice final : public gpu::QueuedEmulatedKernels {
 public:
  EmulatedOnSimulatedDevice() : QueuedEmulatedKernels(&queue_on_sim, &count_racy) {}
  // Launches run so far, once the device's queued work has finished.
  size_t launches() {
    sim().synchronize_device(0);
    return QueuedEmulatedKernels::launches();
  }
  size_t launches_of(std::string_view name) {
    sim().synchronize_device(0);
    return QueuedEmulatedKernels::launches_of(name);
  }
  // Elementwise launches so far whose output reached one element from two
  // threads.
  size_t racy_launches() const { return racy_; }

 private:
  static void queue_on_sim(Stream s, std::function<void()> item) {
    sim().launch_with_device_access(s, std::move(item));
  }
  static void count_racy(const KernelShape& sh, const KernelOperand& out) {
    if (gpu::writes_an_element_twice(sh, out)) ++racy_;
  }
  static inline std::atomic<size_t> racy_{0};
};

inline EmulatedOnSimulatedDevice& emulated() {
  static EmulatedOnSimulatedDevice k;
  return k;
}

}  // namespace tsr::devtest

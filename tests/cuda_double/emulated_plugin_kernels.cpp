// The emulated CUDA plugin's kernels: the CUDA kernels' functors run by the
// CPU grid emulator (gpu/emulator), each launch queued on the simulated
// stream behind the launch's cudaStream_t through the runtime double
// (tsr_double_launch), so it runs in stream order with the device's memory
// open, as a real launch would; each launch's output is checked first for
// elements two threads would write. With it, libtessera_cuda_emulated.so is the
// whole CUDA device without a GPU: the plugin's real host code (memory,
// streams, events, copies), the real functors, the double underneath. Any
// program can load it in place of libtessera_cuda.so through
// $TSR_CUDA_PLUGIN (the C API tests and `digits --device cuda` do).
#include "cuda_check.h"
#include "cuda_streams.h"
#include "emulator/launch_writes.h"
#include "emulator/queued_kernels.h"
#include "plugin_kernels.h"
#include "tsr_cuda_double.h"

namespace tsr::cuda {
namespace {

using Work = std::function<void()>;

void run_work(void* item) { (*static_cast<Work*>(item))(); }
void delete_work(void* item) { delete static_cast<Work*>(item); }

void launch(Stream s, Work work) {
  // As CudaLauncher: the legacy default stream is the current device's.
  DeviceGuard guard(s.device.index);
  const int rc = tsr_double_launch(native_stream(s), &run_work, new Work(std::move(work)), &delete_work);
  TSR_CHECK(rc == 0, TSR_ERR_INTERNAL, "emulated kernel launch on cuda:", s.device.index, " stream ",
            s.id, " failed: ", cudaGetErrorName(cudaError_t(rc)));
}

// A launch whose threads would write one element twice is a race on a GPU
// that the emulator, running threads one after another, would hide: refuse
// it, so every program run on this plugin checks the launches it makes.
void refuse_racy_launch(const KernelShape& shape, const KernelOperand& out) {
  TSR_CHECK(!gpu::writes_an_element_twice(shape, out), TSR_ERR_INTERNAL,
            "emulated CUDA launch writes an element twice (a race on a GPU)");
}

}  // namespace

DeviceKernels* plugin_kernels() {
  // Lives as the plugin does.
  static auto* kernels = new gpu::QueuedEmulatedKernels(&launch, &refuse_racy_launch);
  return kernels;
}

// cuDNN's entry points come from the cuDNN test double here
// (tests/cudnn_double), called by the real plugin's code (gpu/cudnn_conv.cpp),
// which defines plugin_dnn_kernels().

}  // namespace tsr::cuda

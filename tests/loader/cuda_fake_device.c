/* cuda_fake_device — the loader's success path, through the public C API,
 * with TSR_CUDA_PLUGIN naming the fake plugin whose two "CUDA" devices and
 * pinned memory are host memory (fake_plugin.cpp, FAKE_HOST_MEMORY).
 * Checks: CUDA is available with 2 devices; tensors are allocated on cuda:0,
 * cuda:1 and pinned memory through their caching allocators (statistics
 * per device); tsr_cuda_synchronize accepts -1, 0 and 1 and refuses 2 and
 * -2; a TSR_DIST_NCCL group is refused (the fake has no collectives).
 * Exits 0 when all hold, 1 naming the first that does not. */
#include <stdio.h>
#include <string.h>

#include <tessera/tessera.h>

static int failures = 0;

static void expect(int ok, const char* what) {
  if (!ok) {
    fprintf(stderr, "FAILED: %s (last error: %s)\n", what, tsr_last_error_message());
    ++failures;
  }
}

static int64_t allocated_on(tsr_device_type type, int32_t index) {
  int64_t bytes = -1;
  expect(tsr_memory_allocated(type, index, &bytes) == TSR_OK, "tsr_memory_allocated");
  return bytes;
}

int main(void) {
  expect(tsr_cuda_is_available() == 1, "tsr_cuda_is_available() == 1");
  expect(tsr_cuda_device_count() == 2, "tsr_cuda_device_count() == 2");
  expect(tsr_cuda_init() == TSR_OK, "tsr_cuda_init() == TSR_OK");

  const int64_t sizes[] = {4, 32}; /* 512 bytes of float32: one rounded block */
  tsr_tensor *a = NULL, *b = NULL, *pinned = NULL;
  expect(tsr_empty(2, sizes, TSR_FLOAT32, TSR_CONTIGUOUS_FORMAT, TSR_DEVICE_CUDA, 1, &a) == TSR_OK,
         "tsr_empty on cuda:1");
  expect(a && tsr_tensor_device_type(a) == TSR_DEVICE_CUDA && tsr_tensor_device_index(a) == 1,
         "the tensor is on cuda:1");
  expect(allocated_on(TSR_DEVICE_CUDA, 1) == 512, "cuda:1 has 512 bytes allocated");
  expect(allocated_on(TSR_DEVICE_CUDA, 0) == 0, "cuda:0 has nothing allocated");
  expect(tsr_empty(2, sizes, TSR_FLOAT32, TSR_CONTIGUOUS_FORMAT, TSR_DEVICE_CUDA, 0, &b) == TSR_OK,
         "tsr_empty on cuda:0");
  expect(tsr_empty(2, sizes, TSR_FLOAT32, TSR_CONTIGUOUS_FORMAT, TSR_DEVICE_CUDA_HOST, 0, &pinned) == TSR_OK,
         "tsr_empty on pinned host memory (registered by the same load)");
  expect(allocated_on(TSR_DEVICE_CUDA_HOST, 0) == 512, "pinned memory has 512 bytes allocated");

  tsr_tensor* t = NULL;
  expect(tsr_empty(2, sizes, TSR_FLOAT32, TSR_CONTIGUOUS_FORMAT, TSR_DEVICE_CUDA, 2, &t) == TSR_ERR_UNSUPPORTED &&
             strstr(tsr_last_error_message(), "device index 2 is out of range") && t == NULL,
         "cuda:2 does not exist");

  expect(tsr_cuda_synchronize(-1) == TSR_OK, "tsr_cuda_synchronize(-1)");
  expect(tsr_cuda_synchronize(0) == TSR_OK, "tsr_cuda_synchronize(0)");
  expect(tsr_cuda_synchronize(1) == TSR_OK, "tsr_cuda_synchronize(1)");
  expect(tsr_cuda_synchronize(2) == TSR_ERR_UNSUPPORTED &&
             strstr(tsr_last_error_message(), "out of range"),
         "tsr_cuda_synchronize(2) is out of range");
  expect(tsr_cuda_synchronize(-2) == TSR_ERR_INVALID_ARGUMENT &&
             strstr(tsr_last_error_message(), "got -2"),
         "tsr_cuda_synchronize(-2) is invalid");

  /* This fake plugin has no collectives: an NCCL group is refused before
   * any rendezvous, saying so. */
  tsr_process_group_options o = TSR_PROCESS_GROUP_OPTIONS_INIT;
  o.backend = TSR_DIST_NCCL;
  o.init_method = "tcp://127.0.0.1:1";
  o.rank = 0;
  o.world_size = 1;
  o.timeout_ms = 1000;
  tsr_process_group* pg = NULL;
  expect(tsr_process_group_init(&o, &pg) == TSR_ERR_UNSUPPORTED &&
             strstr(tsr_last_error_message(), "the NCCL backend needs CUDA devices and NCCL") &&
             strstr(tsr_last_error_message(), "device plugin provides no collectives between processes") &&
             pg == NULL,
         "an NCCL group without the plugin's collectives is refused");

  tsr_tensor_release(pinned);
  tsr_tensor_release(b);
  tsr_tensor_release(a);
  expect(allocated_on(TSR_DEVICE_CUDA, 1) == 0, "cuda:1 has nothing allocated after release");
  expect(allocated_on(TSR_DEVICE_CUDA_HOST, 0) == 0, "pinned memory freed after release");
  if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
  return failures ? 1 : 0;
}

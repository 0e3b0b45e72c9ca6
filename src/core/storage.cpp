#include "core/storage.h"

#include <new>

#include "alloc/cpu_allocator.h"
#include "core/error.h"

namespace tsr {

StoragePtr Storage::allocate(int64_t nbytes, tsr_device_type device) {
  TSR_CHECK(device == TSR_DEVICE_CPU, TSR_ERR_UNSUPPORTED,
            "device type ", int(device), " is not supported by this build (CPU only)");
  TSR_CHECK(nbytes >= 0, TSR_ERR_INVALID_ARGUMENT, "negative storage size ", nbytes);
  void* p = alloc::cpu_allocate(size_t(nbytes));
  try {
    return StoragePtr(new Storage(p, nbytes, device, /*from_allocator=*/true, nullptr, nullptr));
  } catch (...) {
    alloc::cpu_free(p);
    throw;
  }
}

StoragePtr Storage::wrap(void* data, int64_t nbytes, tsr_device_type device,
                         tsr_deleter deleter, void* ctx) {
  // shared_ptr's constructor may throw bad_alloc for its control block; it
  // then deletes the Storage, whose destructor runs the deleter: exactly once.
  Storage* raw;
  try {
    raw = new Storage(data, nbytes, device, /*from_allocator=*/false, deleter, ctx);
  } catch (...) {
    if (deleter) deleter(data, ctx);
    throw;
  }
  return StoragePtr(raw);
}

Storage::~Storage() {
  if (from_allocator_) alloc::cpu_free(data_);
  else if (deleter_) deleter_(data_, ctx_);
}

}  // namespace tsr

#include "core/storage.h"

#include <new>

#include "core/device_allocator.h"
#include "core/error.h"

namespace tsr {

StoragePtr Storage::allocate(int64_t nbytes, Device device) {
  TSR_CHECK(nbytes >= 0, TSR_ERR_INVALID_ARGUMENT, "negative storage size ", nbytes);
  DeviceAllocator& allocator = allocator_for(device);
  void* p = allocator.allocate(size_t(nbytes));
  try {
    return std::make_shared<Storage>(Key{}, p, nbytes, device, &allocator, nullptr, nullptr);
  } catch (...) {
    allocator.free(p);
    throw;
  }
}

StoragePtr Storage::wrap(void* data, int64_t nbytes, Device device,
                         tsr_deleter deleter, void* ctx) {
  // shared_ptr's constructor may throw bad_alloc for its control block; it
  // then deletes the Storage, whose destructor runs the deleter: exactly once.
  Storage* raw;
  try {
    raw = new Storage(data, nbytes, device, /*allocator=*/nullptr, deleter, ctx);
  } catch (...) {
    if (deleter) deleter(data, ctx);
    throw;
  }
  return StoragePtr(raw);
}

Storage::~Storage() {
  if (allocator_) allocator_->free(data_);
  else if (deleter_) deleter_(data_, ctx_);
}

}  // namespace tsr

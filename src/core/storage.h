// Storage: a block of bytes on a device that tensors view. Owned through
// shared_ptr by every tensor using it (and by tsr_storage handles); the
// memory goes back to its owner (the caching allocator, or the caller's
// deleter for from_blob) when the last owner drops it.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include <tessera/types.h>

#include "core/device.h"

namespace tsr {

class DeviceAllocator;

// Counts in-place writes; shared by a tensor and all its views. Inference
// tensors (core/inference_mode.h) have none: their writes are not counted.
// Defined here because a storage carries one for its first tensor
// (Storage::take_version_counter).
struct VersionCounter {
  std::atomic<int64_t> version{0};
  bool inference = false;
};

class Storage {
  // Lets make_shared reach the constructor (one allocation for the storage
  // and its control block) while only Storage can make a key.
  class Key {
    friend class Storage;
    Key() = default;
  };

 public:
  Storage(Key, void* data, int64_t nbytes, Device device, DeviceAllocator* allocator,
          tsr_deleter deleter, void* ctx)
      : Storage(data, nbytes, device, allocator, deleter, ctx) {}
  // nbytes of fresh memory from the device's registered allocator (the
  // caching allocator), for the calling thread's current stream.
  static std::shared_ptr<Storage> allocate(int64_t nbytes, Device device);
  // Wraps caller memory; deleter(data, ctx) runs exactly once when the last
  // owner drops it. Constructing cannot throw after ownership is taken.
  static std::shared_ptr<Storage> wrap(void* data, int64_t nbytes, Device device,
                                       tsr_deleter deleter, void* ctx);

  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  void* data() const { return data_; }
  int64_t nbytes() const { return nbytes_; }
  // Only for from_blob, which takes ownership before it has validated sizes.
  void set_nbytes(int64_t n) { nbytes_ = n; }
  Device device() const { return device_; }
  // The memory came from the device's allocator (not from_blob's caller).
  bool from_allocator() const { return allocator_ != nullptr; }
  // Memory tessera must not write: a view of a memory-mapped file
  // (tsr_file_get). In-place ops refuse tensors on such storage
  // (ops::check_inplace_allowed); clone() gives a writable copy.
  bool read_only() const { return read_only_; }
  void set_read_only() { read_only_ = true; }
  // Number of tensors (TensorImpls) using this storage.
  int64_t use_count() const { return users_.load(std::memory_order_relaxed); }
  void add_user() { users_.fetch_add(1, std::memory_order_relaxed); }
  void remove_user() { users_.fetch_sub(1, std::memory_order_relaxed); }

  // The version counter kept inside `self`'s allocation, for the first
  // tensor made over a fresh storage (empty_strided): that tensor and its
  // views, which all own the storage, then share it without a heap block of
  // its own. It is given once; later callers get nullptr (and make their
  // own). The returned pointer shares ownership of the storage.
  static std::shared_ptr<VersionCounter> take_version_counter(const std::shared_ptr<Storage>& self) {
    if (self->counter_taken_) return nullptr;
    self->counter_taken_ = true;
    return std::shared_ptr<VersionCounter>(self, &self->counter_);
  }

 private:
  Storage(void* data, int64_t nbytes, Device device, DeviceAllocator* allocator,
          tsr_deleter deleter, void* ctx)
      : data_(data), nbytes_(nbytes), device_(device), allocator_(allocator),
        deleter_(deleter), ctx_(ctx) {}

  void* data_;
  int64_t nbytes_;
  Device device_;
  // Who gets the memory back: the allocator it came from, or (allocator_
  // null) the caller's deleter, which may be NULL: caller memory tessera
  // must never free.
  DeviceAllocator* allocator_;
  tsr_deleter deleter_;
  void* ctx_;
  std::atomic<int64_t> users_{0};
  bool read_only_ = false;
  bool counter_taken_ = false;
  VersionCounter counter_;
};

using StoragePtr = std::shared_ptr<Storage>;

}  // namespace tsr

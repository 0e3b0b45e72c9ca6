#include "core/factory.h"

#include "core/device_allocator.h"
#include "core/inference_mode.h"
#include "core/layout.h"

namespace tsr {

Device checked_device(int device_type, int32_t device_index) {
  // TSR_DEVICE_EXT: DLPack's extension device (the simulated test device);
  // usable only where a backend registered it.
  TSR_CHECK(device_type == TSR_DEVICE_CPU || device_type == TSR_DEVICE_CUDA ||
                device_type == TSR_DEVICE_CUDA_HOST || device_type == TSR_DEVICE_EXT,
            TSR_ERR_INVALID_ARGUMENT, "invalid device type ", device_type);
  const Device d{tsr_device_type(device_type), device_index};
  backend_for(d);  // throws TSR_ERR_UNSUPPORTED for a type or index not here
  return d;
}

namespace {
int64_t storage_bytes(const Shape& sizes, const Shape& strides, tsr_dtype dtype) {
  return checked_mul(storage_extent(sizes, strides), element_size(dtype), "storage bytes");
}
}  // namespace

Tensor empty_strided(const Shape& sizes, const Shape& strides, tsr_dtype dtype,
                     Device device) {
  check_dtype(dtype);
  TSR_CHECK(sizes.size() == strides.size(), TSR_ERR_INVALID_ARGUMENT,
            "empty_strided: sizes ", sizes, " and strides ", strides, " differ in length");
  for (int64_t s : strides)
    TSR_CHECK(s >= 0, TSR_ERR_INVALID_ARGUMENT, "empty_strided: negative strides ", strides,
              " are not supported");
  checked_numel(sizes);
  auto storage = Storage::allocate(storage_bytes(sizes, strides, dtype), device);
  // The counter inside the fresh storage's allocation: one heap block less.
  auto version = Storage::take_version_counter(storage);
  version->inference = is_inference_mode_enabled();
  return Tensor(std::make_shared<TensorImpl>(std::move(storage), 0, sizes, strides, dtype,
                                             std::move(version)));
}

Tensor empty(const Shape& sizes, tsr_dtype dtype, tsr_memory_format fmt, Device device) {
  checked_numel(sizes);
  check_memory_format(fmt);
  return empty_strided(sizes, strides_for_format(sizes, fmt), dtype, device);
}

Tensor empty_like(const Tensor& t, tsr_dtype dtype, tsr_memory_format fmt) {
  check_memory_format(fmt);
  return empty_strided(t.sizes(), strides_like(t.sizes(), t.strides(), fmt), dtype, t.device());
}

Tensor empty_like(const Tensor& t, tsr_memory_format fmt) { return empty_like(t, t.dtype(), fmt); }

Tensor from_blob(void* data, const Shape& sizes, const Shape* strides_in, tsr_dtype dtype,
                 Device device, tsr_deleter deleter, void* ctx) {
  // Own the memory first, so every failure below releases it exactly once
  // through the storage's destructor.
  auto storage = Storage::wrap(data, 0, device, deleter, ctx);
  check_dtype(dtype);
  checked_device(int(device.type), device.index);
  checked_numel(sizes);
  Shape strides = strides_in ? *strides_in : contiguous_strides(sizes);
  TSR_CHECK(strides.size() == sizes.size(), TSR_ERR_INVALID_ARGUMENT, "from_blob: sizes ", sizes,
            " and strides ", strides, " differ in length");
  for (int64_t s : strides)
    TSR_CHECK(s >= 0, TSR_ERR_INVALID_ARGUMENT, "from_blob: negative strides ", strides,
              " are not supported");
  int64_t nbytes = storage_bytes(sizes, strides, dtype);
  TSR_CHECK(data != nullptr || nbytes == 0, TSR_ERR_INVALID_ARGUMENT,
            "from_blob: data is NULL for ", nbytes, " bytes");
  storage->set_nbytes(nbytes);
  return Tensor(std::make_shared<TensorImpl>(std::move(storage), 0, sizes, strides, dtype, nullptr));
}

}  // namespace tsr

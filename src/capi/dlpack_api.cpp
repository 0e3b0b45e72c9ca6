// C API: DLPack export and import (dlpack.h), after at::toDLPack /
// at::fromDLPack (ATen's DLConvertor.cpp). The same code serves
// DLManagedTensor and, when the DLPack header has it, the versioned struct:
// both carry a DLTensor `dl_tensor`, `manager_ctx` and `deleter`.
#include <cstring>
#include <memory>

#include <tessera/dlpack.h>

#include "capi/barrier.h"
#include "capi/handles.h"
#include "core/device_allocator.h"
#include "core/factory.h"
#include "core/stream.h"

using namespace tsr;
using namespace tsr::capi;

namespace {

// kDLBool: added in DLPack 0.8; Debian's 0.6 header lacks the enumerator.
constexpr uint8_t kBoolCode = 6;
// kDLFloat8_e4m3fn and kDLFloat8_e5m2: added in DLPack 1.1 (the codes
// PyTorch 2.x exports float8_e4m3fn / float8_e5m2 with, bits 8); older
// headers lack the enumerators.
constexpr uint8_t kFloat8E4M3FNCode = 10;
constexpr uint8_t kFloat8E5M2Code = 12;

// ---- dtypes ---------------------------------------------------------------

DLDataType dl_dtype(tsr_dtype dtype) {
  DLDataType d{};
  d.bits = uint8_t(element_size(dtype) * 8);
  d.lanes = 1;
  switch (dtype) {
    case TSR_UINT8:
    case TSR_UINT16:
    case TSR_UINT32:
    case TSR_UINT64: d.code = kDLUInt; break;
    case TSR_FLOAT8_E4M3FN: d.code = kFloat8E4M3FNCode; break;
    case TSR_FLOAT8_E5M2: d.code = kFloat8E5M2Code; break;
    case TSR_INT8:
    case TSR_INT16:
    case TSR_INT32:
    case TSR_INT64: d.code = kDLInt; break;
    case TSR_FLOAT16:
    case TSR_FLOAT32:
    case TSR_FLOAT64: d.code = kDLFloat; break;
    case TSR_BFLOAT16: d.code = kDLBfloat; break;
    case TSR_BOOL: d.code = kBoolCode; break;
  }
  return d;
}

const char* code_name(uint8_t code) {
  switch (code) {
    case kDLInt: return "int";
    case kDLUInt: return "uint";
    case kDLFloat: return "float";
    case kDLOpaqueHandle: return "opaque handle";
    case kDLBfloat: return "bfloat";
    case kDLComplex: return "complex";
    case kBoolCode: return "bool";
    case kFloat8E4M3FNCode: return "float8_e4m3fn";
    case kFloat8E5M2Code: return "float8_e5m2";
    default: return "another float8/float6/float4 or unknown";
  }
}

// The tessera dtype for a DLPack dtype: the inverse of dl_dtype.
tsr_dtype dtype_from_dl(const DLDataType& d) {
  TSR_CHECK(d.lanes == 1, TSR_ERR_UNSUPPORTED, "DLPack dtype with lanes ", d.lanes,
            " (a vector type) is not supported; tessera needs lanes == 1");
  for (tsr_dtype t : {TSR_UINT8, TSR_INT8, TSR_INT16, TSR_INT32, TSR_INT64, TSR_FLOAT16,
                      TSR_FLOAT32, TSR_FLOAT64, TSR_BFLOAT16, TSR_BOOL, TSR_UINT16,
                      TSR_UINT32, TSR_UINT64, TSR_FLOAT8_E4M3FN, TSR_FLOAT8_E5M2}) {
    DLDataType mine = dl_dtype(t);
    if (mine.code == d.code && mine.bits == d.bits) return t;
  }
  fail(TSR_ERR_UNSUPPORTED, "DLPack dtype {code ", int(d.code), " (",
       code_name(d.code), "), bits ", int(d.bits), "} is not supported by tessera");
}

// ---- export ---------------------------------------------------------------

// What an exported DLManagedTensor(Versioned) owns. `view` is a tensor over
// the source's storage with the exported geometry: it keeps the memory alive
// until the consumer calls the deleter, and its sizes/strides vectors are
// the arrays the DLTensor points at.
template <typename Managed>
struct Export {
  Tensor view;
  int64_t no_dims[1] = {0};  // non-NULL shape/strides for a 0-dim tensor
  Managed managed{};
};

template <typename Managed>
void export_deleter(Managed* self) {
  delete static_cast<Export<Managed>*>(self->manager_ctx);
}

// at::toDLPack's strides: a dim of size 0 or 1 gets stride 1 (gh-83069: some
// consumers test compactness on strides alone). It changes no address.
Shape dlpack_strides(const Tensor& t) {
  Shape strides = t.strides();
  for (size_t d = 0; d < strides.size(); ++d)
    if (t.sizes()[d] < 2) strides[d] = 1;
  return strides;
}

// The DLPack device of t's memory: DLPack numbers its device types as
// tessera does (kDLCPU 1, kDLCUDA 2, kDLCUDAHost 3).
DLDevice dl_device(const Tensor& t) {
  const Device d = t.device();
  TSR_CHECK(d.type == TSR_DEVICE_CPU || d.type == TSR_DEVICE_CUDA || d.type == TSR_DEVICE_CUDA_HOST,
            TSR_ERR_UNSUPPORTED, "DLPack export of a tensor on ", device_name(d),
            " is not supported (CPU, CUDA and pinned host memory are)");
  DLDevice dl{};
  dl.device_type = static_cast<DLDeviceType>(d.type);
  dl.device_id = d.index;
  return dl;
}

template <typename Managed>
Managed* export_tensor(const Tensor& t) {
  auto ex = std::make_unique<Export<Managed>>();
  ex->view = make_view(t, t.sizes(), dlpack_strides(t), t.storage_offset());
  TensorImpl& v = *ex->view.impl();
  DLTensor& dl = ex->managed.dl_tensor;
  // Element [0,...,0] itself, byte_offset 0: torch 1.13 ignores byte_offset.
  // On a device this is a device address, as at::toDLPack's.
  dl.data = ex->view.data_ptr();
  dl.byte_offset = 0;
  dl.device = dl_device(t);
  dl.ndim = int32_t(v.sizes.size());
  dl.dtype = dl_dtype(t.dtype());
  dl.shape = v.sizes.empty() ? ex->no_dims : v.sizes.data();
  dl.strides = v.strides.empty() ? ex->no_dims : v.strides.data();
  ex->managed.manager_ctx = ex.get();
  ex->managed.deleter = &export_deleter<Managed>;
  return &ex.release()->managed;
}

// The producer's half of DLPack's exchange protocol (the Python array API's
// __dlpack__(stream=...)): the consumer will use t on its `stream`, so that
// stream must wait for the work tessera has queued on t so far (on the
// calling thread's current stream of t's device). -1: no synchronization.
void order_for_consumer(const Tensor& t, int64_t stream) {
  if (stream == -1) return;
  const Device d = t.device();
  TSR_CHECK(d.type == TSR_DEVICE_CUDA, TSR_ERR_INVALID_ARGUMENT, "to_dlpack: stream ", stream,
            " given for a tensor on ", device_name(d),
            ", whose memory the host reads directly; pass -1 (no synchronization)");
  TSR_CHECK(stream != 0, TSR_ERR_INVALID_ARGUMENT,
            "to_dlpack: stream 0 is ambiguous and disallowed for CUDA by the DLPack protocol; "
            "pass 1 for the legacy default stream, 2 for the per-thread default stream, or "
            "the cudaStream_t");
  TSR_CHECK(stream > 0, TSR_ERR_INVALID_ARGUMENT, "to_dlpack: stream must be -1, 1, 2 or a "
            "cudaStream_t, got ", stream);
  backend_for(d).external_stream_wait(current_stream(d), uintptr_t(stream));
}

template <typename Managed>
Managed* export_for_stream(const Tensor& t, int64_t stream) {
  Managed* m = export_tensor<Managed>(t);
  try {
    order_for_consumer(t, stream);
  } catch (...) {
    m->deleter(m);
    throw;
  }
  return m;
}

// ---- import ---------------------------------------------------------------

// A DLTensor read and validated, ready for from_blob.
struct Imported {
  void* data;  // element [0,...,0]
  Shape sizes;
  Shape strides;
  tsr_dtype dtype;
  Device device;
};

// The tessera device of a DLPack device: kDLCPU (id 0), kDLCUDA (the CUDA
// plugin is loaded, the id checked against its devices) and kDLCUDAHost
// (pinned host memory, id 0), as at::fromDLPack maps kDLCPU and kDLCUDA.
Device device_from_dl(const DLDevice& device) {
  // Any int may arrive as device_type: read it through its bytes (enum_arg).
  int type = enum_arg(device.device_type);
  TSR_CHECK(type == kDLCPU || type == kDLCUDA || type == kDLCUDAHost, TSR_ERR_UNSUPPORTED,
            "DLPack device type ", type,
            " is not supported by tessera (kDLCPU = 1, kDLCUDA = 2, kDLCUDAHost = 3 are)");
  if (type == kDLCPU || type == kDLCUDAHost)
    TSR_CHECK(device.device_id == 0, TSR_ERR_UNSUPPORTED, type == kDLCPU ? "CPU" : "CUDA host",
              " device id must be 0, got ", device.device_id);
  try {
    return checked_device(type, device.device_id);
  } catch (const Error& e) {
    fail(e.status(), "DLPack device type ", type, type == kDLCUDA ? " (CUDA)" : " (CUDA host)",
         " index ", device.device_id, ": ", e.what());
  }
}

Imported read_dl_tensor(const DLTensor& dl) {
  Imported in{};
  in.device = device_from_dl(dl.device);  // device, then dtype: at::fromDLPack's order
  in.dtype = dtype_from_dl(dl.dtype);
  TSR_CHECK(dl.ndim >= 0 && dl.ndim <= kMaxDims, TSR_ERR_INVALID_ARGUMENT,
            "ndim must be in [0, ", kMaxDims, "], got ", dl.ndim);
  in.sizes = shape_from(dl.ndim, dl.shape, "shape", false);
  int64_t numel = checked_numel(in.sizes);
  if (dl.strides) {
    in.strides = shape_from(dl.ndim, dl.strides, "strides", false);
    for (int64_t s : in.strides)
      TSR_CHECK(s >= 0, TSR_ERR_UNSUPPORTED, "negative strides ", in.strides,
                " are not supported by tessera (a view never has them)");
  } else {
    in.strides = contiguous_strides(in.sizes);  // DLPack <= 0.6: NULL = compact row-major
  }
  int64_t esize = element_size(in.dtype);
  checked_mul(storage_extent(in.sizes, in.strides), esize, "storage bytes");

  uintptr_t base = reinterpret_cast<uintptr_t>(dl.data), first;
  TSR_CHECK(!__builtin_add_overflow(base, dl.byte_offset, &first), TSR_ERR_INVALID_ARGUMENT,
            "data + byte_offset ", dl.byte_offset, " wraps around");
  if (numel > 0) {
    TSR_CHECK(dl.data != nullptr, TSR_ERR_INVALID_ARGUMENT, "data is NULL for ",
              numel, " elements");
    TSR_CHECK(first % uintptr_t(esize) == 0, TSR_ERR_INVALID_ARGUMENT,
              "data + byte_offset (byte_offset ", dl.byte_offset,
              ") is not aligned to the element size ", esize, " of ", dtype_name(in.dtype));
  }
  in.data = dl.data ? reinterpret_cast<void*>(first) : nullptr;
  return in;
}

// tsr_deleter that hands a DLManagedTensor(Versioned) back to its producer.
template <typename Managed>
void return_to_producer(void* /*data*/, void* ctx) {
  auto* m = static_cast<Managed*>(ctx);
  if (m->deleter) m->deleter(m);
}

// The one import path. `check` validates what only the versioned struct has.
// The producer's deleter runs exactly once: before the hand-over this
// function runs it on failure; after it, the storage owns src and runs it
// when it dies (also when from_blob or emit throws).
template <typename Managed, typename Check>
tsr_status import_tensor(Managed* src, tsr_tensor** out, Check&& check) {
  if (!src) {
    set_last_error(TSR_ERR_INVALID_ARGUMENT, "from_dlpack: src is NULL");
    return TSR_ERR_INVALID_ARGUMENT;
  }
  bool handed_over = false;
  tsr_status status = guarded([&] {
    try {
      require(out, "out");
      check(*src);
      Imported in = read_dl_tensor(src->dl_tensor);
      handed_over = true;
      emit(out, from_blob(in.data, in.sizes, &in.strides, in.dtype, in.device,
                          &return_to_producer<Managed>, src));
    } catch (const Error& e) {
      fail(e.status(), "from_dlpack: ", e.what());  // core messages name no caller
    }
  });
  if (!handed_over && src->deleter) src->deleter(src);
  return status;
}

}  // namespace

TSR_EXTERN tsr_status tsr_to_dlpack(const tsr_tensor* t, DLManagedTensor** out) {
  return guarded([&] {
    const Tensor& x = tensor_of(t);
    require(out, "out");
    *out = export_tensor<DLManagedTensor>(x);
  });
}

TSR_EXTERN tsr_status tsr_to_dlpack_for_stream(const tsr_tensor* t, int64_t stream,
                                               DLManagedTensor** out) {
  return guarded([&] {
    const Tensor& x = tensor_of(t);
    require(out, "out");
    *out = export_for_stream<DLManagedTensor>(x, stream);
  });
}

TSR_EXTERN tsr_status tsr_from_dlpack(DLManagedTensor* src, tsr_tensor** out) {
  return import_tensor(src, out, [](const DLManagedTensor&) {});
}

#if TSR_HAS_DLPACK_VERSIONED
TSR_EXTERN tsr_status tsr_to_dlpack_versioned(const tsr_tensor* t,
                                              DLManagedTensorVersioned** out) {
  return guarded([&] {
    const Tensor& x = tensor_of(t);
    require(out, "out");
    DLManagedTensorVersioned* m = export_tensor<DLManagedTensorVersioned>(x);
    m->version.major = DLPACK_MAJOR_VERSION;
    m->version.minor = DLPACK_MINOR_VERSION;
    m->flags = 0;
    *out = m;
  });
}

TSR_EXTERN tsr_status tsr_from_dlpack_versioned(DLManagedTensorVersioned* src,
                                                tsr_tensor** out) {
  return import_tensor(src, out, [](const DLManagedTensorVersioned& m) {
    // A different major version may lay the struct out differently: only
    // the deleter (which the spec keeps in place) may be used.
    TSR_CHECK(m.version.major == DLPACK_MAJOR_VERSION, TSR_ERR_UNSUPPORTED,
              "DLPack version ", m.version.major, ".", m.version.minor,
              " is not supported; tessera was built for major version ", DLPACK_MAJOR_VERSION);
    TSR_CHECK(!(m.flags & DLPACK_FLAG_BITMASK_READ_ONLY), TSR_ERR_UNSUPPORTED,
              "the tensor is read-only (DLPACK_FLAG_BITMASK_READ_ONLY) and tessera "
              "tensors are always writable");
  });
}
#endif

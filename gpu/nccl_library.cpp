#include "nccl_library.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>

#include "core/error.h"

namespace tsr::cuda {
namespace {

constexpr const char* kDefaultLibrary = "libnccl.so.2";
constexpr const char* kLibraryVariable = "TSR_NCCL_LIBRARY";

template <typename Fn>
void find(void* handle, const std::string& path, const char* name, Fn* out) {
  dlerror();
  void* symbol = dlsym(handle, name);
  TSR_CHECK(symbol, TSR_ERR_UNSUPPORTED, "NCCL library ", path, " lacks ", name,
            " (NCCL 2.14 or newer is needed for non-blocking communicators)");
  *out = reinterpret_cast<Fn>(symbol);
}

NcclLibrary load() {
  NcclLibrary lib{};
  const char* env = std::getenv(kLibraryVariable);
  const bool from_env = env && *env;
  lib.path = from_env ? env : kDefaultLibrary;
  // Never closed: communicators and their threads live until exit.
  void* handle = dlopen(lib.path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* e = dlerror();
    fail(TSR_ERR_UNSUPPORTED, "NCCL not found: could not load ", lib.path,
         from_env ? " (from $TSR_NCCL_LIBRARY)" : " (install NCCL, or set $TSR_NCCL_LIBRARY to its path)", ": ",
         e ? e : "no error reported by the dynamic loader",
         "; CUDA tensors need NCCL for collectives between processes");
  }
  find(handle, lib.path, "ncclGetVersion", &lib.GetVersion);
  find(handle, lib.path, "ncclGetUniqueId", &lib.GetUniqueId);
  find(handle, lib.path, "ncclCommInitRankConfig", &lib.CommInitRankConfig);
  find(handle, lib.path, "ncclCommGetAsyncError", &lib.CommGetAsyncError);
  find(handle, lib.path, "ncclCommAbort", &lib.CommAbort);
  find(handle, lib.path, "ncclCommDestroy", &lib.CommDestroy);
  lib.CommFinalize = reinterpret_cast<decltype(lib.CommFinalize)>(dlsym(handle, "ncclCommFinalize"));
  find(handle, lib.path, "ncclGetErrorString", &lib.GetErrorString);
  find(handle, lib.path, "ncclGetLastError", &lib.GetLastError);
  find(handle, lib.path, "ncclAllReduce", &lib.AllReduce);
  find(handle, lib.path, "ncclBroadcast", &lib.Broadcast);
  find(handle, lib.path, "ncclAllGather", &lib.AllGather);
  find(handle, lib.path, "ncclReduceScatter", &lib.ReduceScatter);
  const ncclResult_t r = lib.GetVersion(&lib.version);
  TSR_CHECK(r == ncclSuccess, TSR_ERR_UNSUPPORTED, "NCCL library ", lib.path, ": ncclGetVersion failed: ",
            lib.GetErrorString(r));
  // Non-blocking communicators (config.blocking) came with NCCL 2.14.
  TSR_CHECK(lib.version >= 21400, TSR_ERR_UNSUPPORTED, "NCCL library ", lib.path, " is version ", lib.version,
            "; tessera needs NCCL 2.14 or newer (non-blocking communicators)");
  return lib;
}

}  // namespace

const NcclLibrary& nccl() {
  static std::once_flag once;
  static NcclLibrary lib;
  static std::string failure;
  std::call_once(once, [] {
    try {
      lib = load();
    } catch (const std::exception& e) {
      failure = e.what();
    }
  });
  if (!failure.empty()) throw Error(TSR_ERR_UNSUPPORTED, failure);
  return lib;
}

std::string nccl_error_text(ncclResult_t r) {
  const char* name = "ncclUnknownResult";
  switch (r) {
    case ncclSuccess: name = "ncclSuccess"; break;
    case ncclUnhandledCudaError: name = "ncclUnhandledCudaError"; break;
    case ncclSystemError: name = "ncclSystemError"; break;
    case ncclInternalError: name = "ncclInternalError"; break;
    case ncclInvalidArgument: name = "ncclInvalidArgument"; break;
    case ncclInvalidUsage: name = "ncclInvalidUsage"; break;
    case ncclRemoteError: name = "ncclRemoteError"; break;
    case ncclInProgress: name = "ncclInProgress"; break;
    default: break;
  }
  return str(name, " (", nccl().GetErrorString(r), ")");
}

}  // namespace tsr::cuda

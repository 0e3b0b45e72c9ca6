// NCCL's entry points, found at run time: the plugin never links NCCL, so
// a machine without it still gets CUDA devices, and only a collective on
// them fails, saying NCCL is missing. $TSR_NCCL_LIBRARY names another
// library to load (the tests' double of NCCL, tests/nccl_double).
#pragma once

#include <nccl.h>

#include <string>

namespace tsr::cuda {

struct NcclLibrary {
  ncclResult_t (*GetVersion)(int*);
  ncclResult_t (*GetUniqueId)(ncclUniqueId*);
  ncclResult_t (*CommInitRankConfig)(ncclComm_t*, int, ncclUniqueId, int, ncclConfig_t*);
  ncclResult_t (*CommGetAsyncError)(ncclComm_t, ncclResult_t*);
  ncclResult_t (*CommAbort)(ncclComm_t);
  ncclResult_t (*CommDestroy)(ncclComm_t);
  ncclResult_t (*CommFinalize)(ncclComm_t);  // nullptr before NCCL 2.14's
  const char* (*GetErrorString)(ncclResult_t);
  const char* (*GetLastError)(ncclComm_t);
  ncclResult_t (*AllReduce)(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t, cudaStream_t);
  ncclResult_t (*Broadcast)(const void*, void*, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t);
  ncclResult_t (*AllGather)(const void*, void*, size_t, ncclDataType_t, ncclComm_t, cudaStream_t);
  ncclResult_t (*ReduceScatter)(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t,
                                cudaStream_t);
  int version;       // NCCL_VERSION_CODE of the loaded library
  std::string path;  // what was loaded
};

// Loads the library once ($TSR_NCCL_LIBRARY, else libnccl.so.2) and keeps
// it; throws tsr::Error(TSR_ERR_UNSUPPORTED) saying why it cannot, every
// time it is asked after a failure.
const NcclLibrary& nccl();

// "ncclRemoteError (remote process exited or there was a network error)".
std::string nccl_error_text(ncclResult_t r);

}  // namespace tsr::cuda

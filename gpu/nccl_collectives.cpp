#include "nccl_collectives.h"

#include <atomic>
#include <chrono>
#include <thread>
#include <cstring>
#include <mutex>

#include "cuda_check.h"
#include "cuda_streams.h"
#include "nccl_library.h"

namespace tsr::cuda {
namespace {

// NCCL's type for a dtype; bool travels as uint8 (torch's ProcessGroupNCCL).
ncclDataType_t nccl_type(tsr_dtype d, const char* call) {
  switch (d) {
    case TSR_UINT8: return ncclUint8;
    case TSR_BOOL: return ncclUint8;
    case TSR_INT8: return ncclInt8;
    case TSR_INT32: return ncclInt32;
    case TSR_INT64: return ncclInt64;
    case TSR_FLOAT16: return ncclFloat16;
    case TSR_FLOAT32: return ncclFloat32;
    case TSR_FLOAT64: return ncclFloat64;
    case TSR_BFLOAT16: return ncclBfloat16;
    default:
      fail(TSR_ERR_UNSUPPORTED, call, ": NCCL has no type for dtype ", int(d),
           " (it reduces uint8, int8, int32, int64, float16, bfloat16, float32, float64 and bool)");
  }
}

// NCCL's reduction; on bool, SUM is a logical or (max) and PRODUCT an and
// (min), as torch's ProcessGroupNCCL.
ncclRedOp_t nccl_op(tsr_reduce_op op, tsr_dtype d, const char* call) {
  if (d == TSR_BOOL) {
    TSR_CHECK(op != TSR_REDUCE_AVG, TSR_ERR_UNSUPPORTED, call, ": Cannot use ReduceOp.AVG with boolean inputs");
    if (op == TSR_REDUCE_SUM) return ncclMax;
    if (op == TSR_REDUCE_PRODUCT) return ncclMin;
  }
  switch (op) {
    case TSR_REDUCE_SUM: return ncclSum;
    case TSR_REDUCE_AVG: return ncclAvg;
    case TSR_REDUCE_PRODUCT: return ncclProd;
    case TSR_REDUCE_MIN: return ncclMin;
    case TSR_REDUCE_MAX: return ncclMax;
    // torch's ProcessGroupNCCL refuses the bitwise reductions too.
    case TSR_REDUCE_BAND: fail(TSR_ERR_UNSUPPORTED, call, ": Cannot use ReduceOp.BAND with NCCL");
    case TSR_REDUCE_BOR: fail(TSR_ERR_UNSUPPORTED, call, ": Cannot use ReduceOp.BOR with NCCL");
    case TSR_REDUCE_BXOR: fail(TSR_ERR_UNSUPPORTED, call, ": Cannot use ReduceOp.BXOR with NCCL");
  }
  fail(TSR_ERR_UNSUPPORTED, call, ": NCCL has no reduction ", int(op));
}

class NcclCommunicator final : public DeviceCommunicator {
 public:
  NcclCommunicator(ncclComm_t comm, int rank, int size, int device)
      : comm_(comm), rank_(rank), size_(size), device_(device) {}
  ~NcclCommunicator() override {
    // An aborted communicator is gone. A live one (its operations done:
    // the owner synchronized them) is finalized, which a non-blocking
    // communicator does in the background until ncclCommGetAsyncError
    // stops saying ncclInProgress, then destroyed.
    if (aborted_.exchange(true)) return;
    const NcclLibrary& lib = nccl();
    if (lib.CommFinalize && lib.CommFinalize(comm_) == ncclInProgress) {
      const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      ncclResult_t state = ncclInProgress;
      while (lib.CommGetAsyncError(comm_, &state) == ncclSuccess && state == ncclInProgress &&
             std::chrono::steady_clock::now() < give_up)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      if (state == ncclInProgress) {  // a peer never finalized: do not block the exit on it
        (void)lib.CommAbort(comm_);
        return;
      }
    }
    (void)lib.CommDestroy(comm_);
  }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int device_index() const override { return device_; }

  void all_reduce(const void* in, void* out, size_t count, tsr_dtype dtype, tsr_reduce_op op, Stream s) override {
    const ncclDataType_t t = nccl_type(dtype, "ncclAllReduce");
    const ncclRedOp_t o = nccl_op(op, dtype, "ncclAllReduce");
    issue("ncclAllReduce", s, [&](cudaStream_t st) { return nccl().AllReduce(in, out, count, t, o, comm_, st); });
  }
  void broadcast(const void* in, void* out, size_t count, tsr_dtype dtype, int root, Stream s) override {
    const ncclDataType_t t = nccl_type(dtype, "ncclBroadcast");
    issue("ncclBroadcast", s, [&](cudaStream_t st) { return nccl().Broadcast(in, out, count, t, root, comm_, st); });
  }
  void all_gather(const void* in, void* out, size_t count, tsr_dtype dtype, Stream s) override {
    const ncclDataType_t t = nccl_type(dtype, "ncclAllGather");
    issue("ncclAllGather", s, [&](cudaStream_t st) { return nccl().AllGather(in, out, count, t, comm_, st); });
  }
  void reduce_scatter(const void* in, void* out, size_t count, tsr_dtype dtype, tsr_reduce_op op,
                      Stream s) override {
    const ncclDataType_t t = nccl_type(dtype, "ncclReduceScatter");
    const ncclRedOp_t o = nccl_op(op, dtype, "ncclReduceScatter");
    issue("ncclReduceScatter", s,
          [&](cudaStream_t st) { return nccl().ReduceScatter(in, out, count, t, o, comm_, st); });
  }

  CommState poll(std::string* why) noexcept override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (aborted_.load()) {
      *why = "the communicator was aborted";
      return CommState::Failed;
    }
    ncclResult_t async = ncclSuccess;
    const ncclResult_t r = nccl().CommGetAsyncError(comm_, &async);
    if (r != ncclSuccess) async = r;
    if (async == ncclSuccess) return CommState::Ready;
    if (async == ncclInProgress) return CommState::InProgress;
    *why = describe(async);
    return CommState::Failed;
  }

  void abort() noexcept override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!aborted_.exchange(true)) (void)nccl().CommAbort(comm_);
  }

 private:
  // "ncclRemoteError (remote process exited or there was a network error):
  // <NCCL's last error text>".
  std::string describe(ncclResult_t r) const {
    std::string text = nccl_error_text(r);
    const char* last = nccl().GetLastError(comm_);
    if (last && *last) text += str(": ", last);
    return text;
  }

  template <typename Call>
  void issue(const char* name, Stream s, Call call) {
    std::lock_guard<std::mutex> lock(mutex_);
    TSR_CHECK(!aborted_.load(), TSR_ERR_DISTRIBUTED, name, " refused: the NCCL communicator was aborted");
    TSR_CHECK(s.device.type == TSR_DEVICE_CUDA && s.device.index == device_, TSR_ERR_INVALID_ARGUMENT, name,
              ": the stream is on cuda:", s.device.index, ", the communicator on cuda:", device_);
    DeviceGuard guard(device_);
    const ncclResult_t r = call(native_stream(s));
    // ncclInProgress: accepted, still being queued (non-blocking); poll() says when.
    if (r != ncclSuccess && r != ncclInProgress)
      fail(TSR_ERR_DISTRIBUTED, name, " failed on rank ", rank_, ": ", describe(r));
  }

  ncclComm_t comm_;
  int rank_, size_, device_;
  // ncclCommAbort frees the communicator: the watchdog's abort and the
  // caller's calls on it (all quick: it is non-blocking) take turns.
  std::mutex mutex_;
  std::atomic<bool> aborted_{false};
};

}  // namespace

void NcclCollectives::load() { (void)nccl(); }

std::string NcclCollectives::version() {
  const int v = nccl().version;
  // NCCL_VERSION(X,Y,Z): X*10000 + Y*100 + Z since 2.9 (X*1000 + Y*100 + Z before).
  return v >= 20900 ? str("NCCL ", v / 10000, ".", v / 100 % 100, ".", v % 100)
                    : str("NCCL ", v / 1000, ".", v / 100 % 10, ".", v % 100);
}

CollectiveId NcclCollectives::unique_id() {
  static_assert(sizeof(ncclUniqueId) == kCollectiveIdBytes);
  ncclUniqueId id{};
  const ncclResult_t r = nccl().GetUniqueId(&id);
  TSR_CHECK(r == ncclSuccess, TSR_ERR_DISTRIBUTED, "ncclGetUniqueId failed: ", nccl_error_text(r));
  CollectiveId out{};
  std::memcpy(out.bytes, id.internal, kCollectiveIdBytes);
  return out;
}

std::unique_ptr<DeviceCommunicator> NcclCollectives::create_communicator(const CollectiveId& id, int rank, int size,
                                                                         int device_index) {
  const NcclLibrary& lib = nccl();
  TSR_CHECK(size >= 1 && rank >= 0 && rank < size, TSR_ERR_INVALID_ARGUMENT, "NCCL communicator: rank ", rank,
            " is not in a world of size ", size);
  DeviceGuard guard(device_index);  // NCCL binds the communicator to the current device
  ncclUniqueId nid{};
  std::memcpy(nid.internal, id.bytes, kCollectiveIdBytes);
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;
  ncclComm_t comm = nullptr;
  const ncclResult_t r = lib.CommInitRankConfig(&comm, size, nid, rank, &config);
  if (r != ncclSuccess && r != ncclInProgress) {
    if (comm) (void)lib.CommAbort(comm);
    fail(TSR_ERR_DISTRIBUTED, "ncclCommInitRankConfig failed on rank ", rank, " of ", size, " (cuda:",
         device_index, "): ", nccl_error_text(r));
  }
  return std::make_unique<NcclCommunicator>(comm, rank, size, device_index);
}

}  // namespace tsr::cuda

// A test double of NCCL (libtessera_nccl_double.so): the entry points the
// CUDA plugin loads (gpu/nccl_library.h), with NCCL's C signatures from the
// toolkit's nccl.h, computing on the simulated device of the CUDA runtime's
// double (tests/cuda_double), so the plugin's NCCL code and tessera's NCCL
// backend run on machines without a GPU. The plugin loads it through
// $TSR_NCCL_LIBRARY.
//
// Ranks are processes (the tests fork them). They meet in POSIX shared
// memory named after the unique id: a header of per-rank counters, and per
// operation one segment per rank holding that rank's input. A collective is
// a work item on the CUDA stream (tsr_double_launch, device memory open):
// it publishes its input, waits until every rank has (sleeping, watching
// for ncclCommAbort, aborted peers and a deadline), computes its output
// from every rank's input as NCCL would, and waits until every rank is done
// reading before removing its segment. As NCCL, it never fails a call for
// what a peer does: a failure is an asynchronous error
// (ncclCommGetAsyncError), and a hang lasts until ncclCommAbort.
//
// Controls (environment, read at each call):
//   TSR_NCCL_DOUBLE_FAULT=remote_error  the next collective fails with
//       ncclRemoteError instead of running; =hang  it never finishes until
//       the communicator is aborted (a stalled peer).
//   TSR_NCCL_DOUBLE_VERSION  the NCCL_VERSION_CODE ncclGetVersion reports.
//   TSR_NCCL_DOUBLE_DEADLINE_MS  how long a collective waits for its peers
//       before failing with ncclSystemError (default 120000): a safety net
//       for tests, far above their timeouts.
#include <fcntl.h>
#include <nccl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "core/half.h"
#include "tsr_cuda_double.h"

namespace {

using Clock = std::chrono::steady_clock;
constexpr int kMaxRanks = 64;
constexpr const char* kIdMagic = "tsr-nccl-double:";

// The shared header every rank of a communicator maps.
struct Header {
  std::atomic<int> joined;
  std::atomic<int> refs;
  std::atomic<uint64_t> posted[kMaxRanks];    // the last operation whose input the rank published
  std::atomic<uint64_t> finished[kMaxRanks];  // the last operation the rank finished reading
  std::atomic<int> aborted[kMaxRanks];
};
static_assert(std::atomic<uint64_t>::is_always_lock_free && std::atomic<int>::is_always_lock_free);

struct State {
  std::string name;  // the header's shared memory name
  Header* hdr = nullptr;
  int rank = 0, nranks = 1, device = 0;
  uint64_t issued = 0;  // operations enqueued (the caller's thread)
  std::atomic<bool> aborted{false};
  std::atomic<bool> destroyed{false};
  std::atomic<int> error{ncclSuccess};
  std::mutex mu;
  std::string last_error;

  void set_error(ncclResult_t r, const std::string& why) {
    {
      std::lock_guard<std::mutex> g(mu);
      if (error.load() != ncclSuccess) return;  // the first error stays
      last_error = why;
    }
    error.store(r);
  }
  // The communicator is gone (destroyed or aborted): the last rank out
  // removes the header's name. The mapping stays until the last work item
  // holding this state is done (~State).
  void release() {
    if (hdr->refs.fetch_sub(1) == 1) shm_unlink(name.c_str());
  }
  ~State() {
    if (hdr) munmap(hdr, sizeof(Header));
  }
};

}  // namespace

struct ncclComm {
  std::shared_ptr<State> st;
};

namespace {

long env_long(const char* name, long fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtol(v, nullptr, 10) : fallback;
}

std::string fault() {
  const char* v = std::getenv("TSR_NCCL_DOUBLE_FAULT");
  return v ? v : "";
}

size_t element_size(ncclDataType_t t) {
  switch (t) {
    case ncclInt8: case ncclUint8: return 1;
    case ncclFloat16: case ncclBfloat16: return 2;
    case ncclInt32: case ncclUint32: case ncclFloat32: return 4;
    case ncclInt64: case ncclUint64: case ncclFloat64: return 8;
    default: return 0;
  }
}

// One pairwise step of op in T, rounding to T each time as NCCL's kernels.
template <typename T, typename A>
void combine(T* acc, const T* in, size_t n, ncclRedOp_t op) {
  for (size_t i = 0; i < n; ++i) {
    const A a = A(acc[i]), b = A(in[i]);
    A r = a;
    switch (op) {
      case ncclSum: case ncclAvg: r = a + b; break;
      case ncclProd: r = a * b; break;
      case ncclMax: r = b > a ? b : a; break;
      case ncclMin: r = b < a ? b : a; break;
      default: break;
    }
    acc[i] = T(r);
  }
}

template <typename T, typename A>
void divide(T* acc, size_t n, int nranks) {
  for (size_t i = 0; i < n; ++i) acc[i] = T(A(acc[i]) / A(nranks));
}

template <typename T, typename A>
void reduce_typed(void* out, const std::vector<const char*>& ins, size_t offset, size_t n, ncclRedOp_t op) {
  T* acc = static_cast<T*>(out);
  std::memcpy(acc, ins[0] + offset * sizeof(T), n * sizeof(T));
  for (size_t r = 1; r < ins.size(); ++r) combine<T, A>(acc, reinterpret_cast<const T*>(ins[r]) + offset, n, op);
  if (op == ncclAvg) divide<T, A>(acc, n, int(ins.size()));
}

// out[i] = op over ranks of ins[r][offset + i].
void reduce(void* out, const std::vector<const char*>& ins, size_t offset, size_t n, ncclDataType_t t,
            ncclRedOp_t op) {
  if (n == 0) return;
  switch (t) {
    case ncclInt8: reduce_typed<int8_t, int64_t>(out, ins, offset, n, op); break;
    case ncclUint8: reduce_typed<uint8_t, uint64_t>(out, ins, offset, n, op); break;
    case ncclInt32: reduce_typed<int32_t, int64_t>(out, ins, offset, n, op); break;
    case ncclUint32: reduce_typed<uint32_t, uint64_t>(out, ins, offset, n, op); break;
    case ncclInt64: reduce_typed<int64_t, int64_t>(out, ins, offset, n, op); break;
    case ncclUint64: reduce_typed<uint64_t, uint64_t>(out, ins, offset, n, op); break;
    case ncclFloat16: reduce_typed<tsr::Half, float>(out, ins, offset, n, op); break;
    case ncclBfloat16: reduce_typed<tsr::BFloat16, float>(out, ins, offset, n, op); break;
    case ncclFloat32: reduce_typed<float, float>(out, ins, offset, n, op); break;
    case ncclFloat64: reduce_typed<double, double>(out, ins, offset, n, op); break;
    default: break;
  }
}

enum class Kind { AllReduce, Broadcast, AllGather, ReduceScatter };

struct Op {
  std::shared_ptr<State> st;
  Kind kind;
  const void* in;
  void* out;
  size_t count;  // elements of the rank's input (reduce_scatter: of its output)
  ncclDataType_t type;
  ncclRedOp_t op;
  int root;
  uint64_t seq;
  std::string fault;
};

std::string segment_name(const State& st, uint64_t seq, int rank) {
  return st.name + "_" + std::to_string(seq) + "_" + std::to_string(rank);
}

// Waits until every rank's counter reaches seq; false (with the error set)
// on abort, an aborted peer or the deadline.
bool wait_all(State& st, std::atomic<uint64_t>* counters, uint64_t seq, const char* what) {
  const auto deadline = Clock::now() + std::chrono::milliseconds(env_long("TSR_NCCL_DOUBLE_DEADLINE_MS", 120000));
  for (;;) {
    if (st.aborted.load()) return false;
    int missing = -1;
    for (int r = 0; r < st.nranks; ++r) {
      // A rank that got here already and aborted later blocks nothing.
      if (counters[r].load(std::memory_order_acquire) >= seq) continue;
      if (st.hdr->aborted[r].load()) {
        st.set_error(ncclRemoteError, "NCCL double: rank " + std::to_string(r) +
                                          " aborted its communicator (a peer failed)");
        return false;
      }
      if (missing < 0) missing = r;
    }
    if (missing < 0) return true;
    if (Clock::now() >= deadline) {
      st.set_error(ncclSystemError, "NCCL double: rank " + std::to_string(missing) + " never " + what +
                                        " operation " + std::to_string(seq) + " (the double's deadline)");
      return false;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

// Maps a segment; bytes == 0 maps nothing.
struct Mapping {
  void* p = nullptr;
  size_t bytes = 0;
  ~Mapping() {
    if (p) munmap(p, bytes);
  }
};

bool map_segment(const std::string& name, bool create, size_t bytes, Mapping* m, State& st) {
  const int fd = create ? shm_open(name.c_str(), O_CREAT | O_RDWR | O_TRUNC, 0600) : shm_open(name.c_str(), O_RDONLY, 0);
  if (fd < 0) {
    st.set_error(ncclSystemError, "NCCL double: shm_open " + name + ": " + std::strerror(errno));
    return false;
  }
  if (create && ftruncate(fd, off_t(bytes)) != 0) {
    close(fd);
    st.set_error(ncclSystemError, "NCCL double: ftruncate " + name + ": " + std::strerror(errno));
    return false;
  }
  if (!create) {
    struct stat sb {};
    fstat(fd, &sb);
    bytes = size_t(sb.st_size);
  }
  m->bytes = bytes;
  if (bytes > 0) {
    m->p = mmap(nullptr, bytes, create ? PROT_READ | PROT_WRITE : PROT_READ, MAP_SHARED, fd, 0);
    if (m->p == MAP_FAILED) {
      m->p = nullptr;
      close(fd);
      st.set_error(ncclSystemError, "NCCL double: mmap " + name + ": " + std::strerror(errno));
      return false;
    }
  }
  close(fd);
  return true;
}

// The work item on the stream, with the simulated device's memory open.
void run(void* item) {
  Op& op = *static_cast<Op*>(item);
  State& st = *op.st;
  if (st.aborted.load() || st.error.load() != ncclSuccess) return;
  if (op.fault == "hang") {
    while (!st.aborted.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return;
  }
  const size_t es = element_size(op.type);
  size_t in_bytes = op.count * es;
  if (op.kind == Kind::ReduceScatter) in_bytes *= size_t(st.nranks);
  if (op.kind == Kind::Broadcast && st.rank != op.root) in_bytes = 0;
  const std::string own = segment_name(st, op.seq, st.rank);
  {
    Mapping m;
    if (!map_segment(own, true, in_bytes, &m, st)) return;
    if (in_bytes) std::memcpy(m.p, op.in, in_bytes);
  }
  st.hdr->posted[st.rank].store(op.seq, std::memory_order_release);
  bool ok = wait_all(st, st.hdr->posted, op.seq, "published its input for");
  if (ok) {
    std::vector<Mapping> maps(size_t(st.nranks));
    std::vector<const char*> ins;
    for (int r = 0; r < st.nranks && ok; ++r) {
      ok = map_segment(segment_name(st, op.seq, r), false, 0, &maps[size_t(r)], st);
      ins.push_back(static_cast<const char*>(maps[size_t(r)].p));
    }
    if (ok) {
      switch (op.kind) {
        case Kind::AllReduce: reduce(op.out, ins, 0, op.count, op.type, op.op); break;
        case Kind::ReduceScatter:
          reduce(op.out, ins, size_t(st.rank) * op.count, op.count, op.type, op.op);
          break;
        case Kind::Broadcast:
          if (op.count) std::memcpy(op.out, ins[size_t(op.root)], op.count * es);
          break;
        case Kind::AllGather:
          for (int r = 0; r < st.nranks && op.count; ++r)
            std::memcpy(static_cast<char*>(op.out) + size_t(r) * op.count * es, ins[size_t(r)], op.count * es);
          break;
      }
    }
  }
  st.hdr->finished[st.rank].store(op.seq, std::memory_order_release);
  if (ok) wait_all(st, st.hdr->finished, op.seq, "finished");
  shm_unlink(own.c_str());
}

void destroy_op(void* item) { delete static_cast<Op*>(item); }

ncclResult_t enqueue(ncclComm_t comm, Kind kind, const void* in, void* out, size_t count, ncclDataType_t type,
                     ncclRedOp_t op, int root, cudaStream_t stream) {
  if (comm == nullptr || comm->st->destroyed.load()) return ncclInvalidArgument;
  State& st = *comm->st;
  if (element_size(type) == 0 || int(op) < 0 || int(op) >= int(ncclNumOps)) return ncclInvalidArgument;
  if (kind == Kind::Broadcast && (root < 0 || root >= st.nranks)) return ncclInvalidArgument;
  if (st.aborted.load()) return ncclInvalidUsage;
  if (st.error.load() == ncclInProgress || st.hdr->joined.load() < st.nranks) return ncclInvalidUsage;
  const std::string f = fault();
  if (f == "remote_error") {
    st.set_error(ncclRemoteError, "NCCL double: injected remote error (TSR_NCCL_DOUBLE_FAULT=remote_error)");
    return ncclSuccess;  // asynchronous, as a network failure found by a kernel
  }
  auto* item = new Op{comm->st, kind, in, out, count, type, op, root, ++st.issued, f};
  const int rc = tsr_double_launch(stream, &run, item, &destroy_op);
  return rc == 0 ? ncclSuccess : ncclUnhandledCudaError;
}

}  // namespace

extern "C" {

ncclResult_t ncclGetVersion(int* version) {
  if (!version) return ncclInvalidArgument;
  *version = int(env_long("TSR_NCCL_DOUBLE_VERSION", NCCL_VERSION_CODE));
  return ncclSuccess;
}

ncclResult_t ncclGetUniqueId(ncclUniqueId* id) {
  if (!id) return ncclInvalidArgument;
  std::memset(id->internal, 0, NCCL_UNIQUE_ID_BYTES);
  std::random_device rd;
  std::snprintf(id->internal, NCCL_UNIQUE_ID_BYTES, "%s%08x%08x%08x", kIdMagic, rd(), rd(), unsigned(getpid()));
  return ncclSuccess;
}

ncclResult_t ncclCommInitRankConfig(ncclComm_t* out, int nranks, ncclUniqueId id, int rank, ncclConfig_t* config) {
  if (!out) return ncclInvalidArgument;
  *out = nullptr;
  if (nranks < 1 || nranks > kMaxRanks || rank < 0 || rank >= nranks) return ncclInvalidArgument;
  if (std::strncmp(id.internal, kIdMagic, std::strlen(kIdMagic)) != 0) return ncclInvalidArgument;
  auto st = std::make_shared<State>();
  st->name = std::string("/tsr_nccl_") + (id.internal + std::strlen(kIdMagic));
  st->rank = rank;
  st->nranks = nranks;
  if (cudaGetDevice(&st->device) != cudaSuccess) return ncclUnhandledCudaError;
  const int fd = shm_open(st->name.c_str(), O_CREAT | O_RDWR, 0600);
  if (fd < 0) return ncclSystemError;
  // Every rank sizes it; the same size leaves what another wrote intact.
  if (ftruncate(fd, sizeof(Header)) != 0) {
    close(fd);
    return ncclSystemError;
  }
  void* p = mmap(nullptr, sizeof(Header), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (p == MAP_FAILED) return ncclSystemError;
  st->hdr = static_cast<Header*>(p);  // zero-filled: every atomic starts at 0
  st->hdr->refs.fetch_add(1);
  st->hdr->joined.fetch_add(1);
  const bool blocking = config == nullptr || config->blocking != 0;
  if (blocking) {
    while (st->hdr->joined.load() < nranks) std::this_thread::sleep_for(std::chrono::microseconds(200));
    shm_unlink(st->name.c_str());  // every rank has mapped it
  } else {
    st->error.store(ncclInProgress);  // until every rank has joined (ncclCommGetAsyncError)
  }
  *out = new ncclComm{st};
  return blocking ? ncclSuccess : ncclInProgress;
}

ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t* async) {
  if (!comm || !async) return ncclInvalidArgument;
  State& st = *comm->st;
  if (st.error.load() == ncclInProgress && st.hdr->joined.load() >= st.nranks) {
    int expected = ncclInProgress;
    st.error.compare_exchange_strong(expected, ncclSuccess);
    // Every rank has mapped the header: its name is no longer needed, and
    // a rank that dies later leaves nothing behind in /dev/shm.
    shm_unlink(st.name.c_str());
  }
  *async = ncclResult_t(st.error.load());
  return ncclSuccess;
}

const char* ncclGetErrorString(ncclResult_t r) {
  switch (r) {
    case ncclSuccess: return "no error";
    case ncclUnhandledCudaError: return "unhandled cuda error (run with NCCL_DEBUG=INFO for details)";
    case ncclSystemError: return "unhandled system error (run with NCCL_DEBUG=INFO for details)";
    case ncclInternalError: return "internal error - please report this issue to the NCCL developers";
    case ncclInvalidArgument: return "invalid argument (run with NCCL_DEBUG=WARN for details)";
    case ncclInvalidUsage: return "invalid usage (run with NCCL_DEBUG=WARN for details)";
    case ncclRemoteError: return "remote process exited or there was a network error";
    case ncclInProgress: return "NCCL operation in progress";
    default: return "unknown result code";
  }
}

const char* ncclGetLastError(ncclComm_t comm) {
  if (!comm) return "";
  thread_local std::string text;
  std::lock_guard<std::mutex> g(comm->st->mu);
  text = comm->st->last_error;
  return text.c_str();
}

ncclResult_t ncclCommAbort(ncclComm_t comm) {
  if (!comm) return ncclSuccess;
  State& st = *comm->st;
  st.aborted.store(true);
  st.hdr->aborted[st.rank].store(1);
  // Work items still queued see `aborted` and return; they hold the state.
  st.destroyed.store(true);
  st.release();
  delete comm;
  return ncclSuccess;
}

// Nothing in flight to flush: the caller synchronized its streams.
ncclResult_t ncclCommFinalize(ncclComm_t comm) { return comm ? ncclSuccess : ncclInvalidArgument; }

ncclResult_t ncclCommDestroy(ncclComm_t comm) {
  if (!comm) return ncclSuccess;
  comm->st->destroyed.store(true);
  comm->st->release();
  delete comm;
  return ncclSuccess;
}

ncclResult_t ncclAllReduce(const void* in, void* out, size_t count, ncclDataType_t type, ncclRedOp_t op,
                           ncclComm_t comm, cudaStream_t stream) {
  return enqueue(comm, Kind::AllReduce, in, out, count, type, op, 0, stream);
}
ncclResult_t ncclBroadcast(const void* in, void* out, size_t count, ncclDataType_t type, int root, ncclComm_t comm,
                           cudaStream_t stream) {
  return enqueue(comm, Kind::Broadcast, in, out, count, type, ncclSum, root, stream);
}
ncclResult_t ncclAllGather(const void* in, void* out, size_t count, ncclDataType_t type, ncclComm_t comm,
                           cudaStream_t stream) {
  return enqueue(comm, Kind::AllGather, in, out, count, type, ncclSum, 0, stream);
}
ncclResult_t ncclReduceScatter(const void* in, void* out, size_t count, ncclDataType_t type, ncclRedOp_t op,
                               ncclComm_t comm, cudaStream_t stream) {
  return enqueue(comm, Kind::ReduceScatter, in, out, count, type, op, 0, stream);
}

}  // extern "C"

#include "mpi_comm.h"

#include <algorithm>
#include <climits>

#include "core/error.h"
#include "mpi_state.h"
#include "mpi_types.h"

namespace tsr::distributed::mpi {
namespace {

// MPI counts are int: larger buffers go in pieces of at most this many
// elements (all-reduce, broadcast, send/recv), each one MPI operation.
constexpr size_t kPiece = size_t(1) << 30;

// One operation's deadline, over all its pieces.
struct Deadline {
  Clock::time_point start = Clock::now();
  Clock::time_point end;
  explicit Deadline(MpiComm::Millis timeout) : end(start + timeout) {}
};

// Starts an operation under the mutex (start(&request) makes the MPI call
// and returns its code), then waits for it.
template <typename Start>
void run(const char* call, const Deadline& d, Start start) {
  MPI_Request request = MPI_REQUEST_NULL;
  {
    std::lock_guard<std::mutex> lock(mpi_mutex());
    check_usable();
    check_rc(start(&request), call);
    note_started();
  }
  wait(request, call, d.start, d.end);
}

int int_count(size_t n, const char* what) {
  TSR_CHECK(n <= size_t(INT_MAX), TSR_ERR_UNSUPPORTED, "the MPI backend's ", what, " takes at most ", INT_MAX,
            " elements per rank (MPI counts are int), got ", n);
  return int(n);
}

int type_size(MPI_Datatype t) {
  int size = 0;
  MPI_Type_size(t, &size);
  return size;
}

}  // namespace

Comm::Comm(MPI_Comm comm) : comm_(comm) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  void* ub = nullptr;
  int found = 0;
  MPI_Comm_get_attr(comm_, MPI_TAG_UB, &ub, &found);
  if (found && ub) tag_upper_bound_ = *static_cast<int*>(ub);
}

Comm::~Comm() {
  std::lock_guard<std::mutex> lock(mpi_mutex());
  int finalized = 0;
  MPI_Finalized(&finalized);
  try {
    check_usable();
  } catch (const Error&) {
    return;  // no MPI call after a failure: the communicator is left as it is
  }
  if (!finalized) MPI_Comm_free(&comm_);
}

void Comm::all_reduce(void* data, size_t count, tsr_dtype dtype, tsr_reduce_op op, MpiReduceFn fn,
                      Millis timeout) {
  const Deadline d(timeout);
  char* p = static_cast<char*>(data);
  for (size_t done = 0; done < count;) {
    const int n = int(std::min(count - done, kPiece));
    run("MPI_Iallreduce", d, [&](MPI_Request* r) {
      const MPI_Datatype type = datatype_of(dtype);
      const MPI_Op mpi_op = op_for(dtype, op, fn);
      return MPI_Iallreduce(MPI_IN_PLACE, p + done * size_t(type_size(type)), n, type, mpi_op, comm_, r);
    });
    done += size_t(n);
  }
}

void Comm::broadcast(void* data, size_t bytes, int root, Millis timeout) {
  const Deadline d(timeout);
  char* p = static_cast<char*>(data);
  for (size_t done = 0; done < bytes;) {
    const int n = int(std::min(bytes - done, kPiece));
    run("MPI_Ibcast", d, [&](MPI_Request* r) { return MPI_Ibcast(p + done, n, MPI_BYTE, root, comm_, r); });
    done += size_t(n);
  }
}

void Comm::all_gather(void* out, const void* in, size_t bytes_per_rank, Millis timeout) {
  if (bytes_per_rank == 0) return;
  const int n = int_count(bytes_per_rank, "all_gather (in bytes)");
  run("MPI_Iallgather", Deadline(timeout),
      [&](MPI_Request* r) { return MPI_Iallgather(in, n, MPI_BYTE, out, n, MPI_BYTE, comm_, r); });
}

void Comm::reduce_scatter(void* out, const void* in, size_t count_per_rank, tsr_dtype dtype, tsr_reduce_op op,
                          MpiReduceFn fn, Millis timeout) {
  if (count_per_rank == 0) return;
  const int n = int_count(count_per_rank, "reduce_scatter");
  run("MPI_Ireduce_scatter_block", Deadline(timeout), [&](MPI_Request* r) {
    return MPI_Ireduce_scatter_block(in, out, n, datatype_of(dtype), op_for(dtype, op, fn), comm_, r);
  });
}

void Comm::barrier(Millis timeout) {
  run("MPI_Ibarrier", Deadline(timeout), [&](MPI_Request* r) { return MPI_Ibarrier(comm_, r); });
}

void Comm::send(const void* data, size_t bytes, int peer, uint32_t tag, Millis timeout) {
  const Deadline d(timeout);
  const char* p = static_cast<const char*>(data);
  for (size_t done = 0; done < bytes;) {
    const int n = int(std::min(bytes - done, kPiece));
    run("MPI_Isend", d,
        [&](MPI_Request* r) { return MPI_Isend(p + done, n, MPI_BYTE, peer, mpi_tag(tag), comm_, r); });
    done += size_t(n);
  }
}

void Comm::recv(void* data, size_t bytes, int peer, uint32_t tag, Millis timeout) {
  const Deadline d(timeout);
  char* p = static_cast<char*>(data);
  for (size_t done = 0; done < bytes;) {
    const int n = int(std::min(bytes - done, kPiece));
    run("MPI_Irecv", d,
        [&](MPI_Request* r) { return MPI_Irecv(p + done, n, MPI_BYTE, peer, mpi_tag(tag), comm_, r); });
    done += size_t(n);
  }
}

void Comm::abort() noexcept {
  std::lock_guard<std::mutex> lock(mpi_mutex());
  mark_failed("the process group was aborted after a failure");
}

}  // namespace tsr::distributed::mpi

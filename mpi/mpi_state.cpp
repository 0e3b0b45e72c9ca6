#include "mpi_state.h"

#include <sched.h>

#include <cstdio>
#include <cstdlib>
#include <thread>

#include "core/error.h"
#include "distributed/mpi_module.h"

namespace tsr::distributed::mpi {
namespace {

bool g_started_here = false;  // MPI_Init_thread was ours: MPI_Finalize is too
bool g_failed = false;
std::string g_failure;
int g_in_flight = 0;  // operations started and not complete

void finalize_at_exit() {
  std::lock_guard<std::mutex> lock(mpi_mutex());
  int finalized = 0;
  MPI_Finalized(&finalized);
  // After a failure, or with an operation still in flight (the program
  // exits while a worker thread waits, e.g. on Ctrl-C), MPI_Finalize could
  // wait for a peer forever: this process leaves without it, and mpirun
  // ends the job. Either way no thread calls MPI after this.
  const bool clean = !g_failed && g_in_flight == 0;
  mark_failed("the process is exiting");
  if (!finalized && clean) MPI_Finalize();
}

}  // namespace

std::mutex& mpi_mutex() {
  static std::mutex m;
  return m;
}

std::string error_text(int rc) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  if (MPI_Error_string(rc, text, &length) != MPI_SUCCESS) return "MPI error code " + std::to_string(rc);
  return std::string(text, size_t(length));
}

void ensure_initialized() {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  TSR_CHECK(!finalized, TSR_ERR_DISTRIBUTED, "MPI was finalized already in this process (MPI_Finalize); it cannot be "
            "started again");
  int provided = MPI_THREAD_SINGLE;
  if (!initialized) {
    const int rc = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
    TSR_CHECK(rc == MPI_SUCCESS, TSR_ERR_DISTRIBUTED, "MPI_Init_thread failed: ", error_text(rc));
    g_started_here = true;
    // Errors come back as codes (turned into a failed group), not aborts.
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    std::atexit(finalize_at_exit);
  } else {
    MPI_Query_thread(&provided);
  }
  // torch's ProcessGroupMPI needs the same: the group's worker thread and
  // the caller's thread both call MPI, never at once.
  TSR_CHECK(provided >= MPI_THREAD_SERIALIZED, TSR_ERR_UNSUPPORTED, "MPI runs at thread level ", provided,
            (g_started_here ? " although MPI_THREAD_SERIALIZED was asked for" : " (the program called MPI_Init)"),
            "; the MPI backend needs MPI_THREAD_SERIALIZED (", int(MPI_THREAD_SERIALIZED), ") or higher");
}

void mark_failed(const std::string& why) {
  if (g_failed) return;
  g_failed = true;
  g_failure = why;
}

void check_usable() {
  TSR_CHECK(!g_failed, TSR_ERR_DISTRIBUTED, "the MPI backend makes no more MPI calls in this process: an operation "
            "failed earlier and cannot be cancelled (", g_failure, ")");
}

void check_rc(int rc, const char* call) {
  if (rc == MPI_SUCCESS) return;
  const std::string why = std::string(call) + " failed: " + error_text(rc);
  mark_failed(why);
  throw MpiFailure(why);
}

void note_started() { ++g_in_flight; }

void wait(MPI_Request& request, const char* call, Clock::time_point start, Clock::time_point deadline) {
  using std::chrono::duration_cast;
  using std::chrono::milliseconds;
  for (;;) {
    int done = 0;
    {
      std::lock_guard<std::mutex> lock(mpi_mutex());
      // Another group's failure (or an abort) stops this operation too: it
      // is abandoned in flight, a failure of this group as well.
      if (g_failed) throw MpiFailure(str(call, " was abandoned: MPI failed in this process (", g_failure, ")"));
      check_rc(MPI_Test(&request, &done, MPI_STATUS_IGNORE), call);
      if (done) {
        --g_in_flight;
        return;
      }
      const auto now = Clock::now();
      if (now >= deadline) {
        char waited[32];
        std::snprintf(waited, sizeof waited, "%.2f s", std::chrono::duration<double>(now - start).count());
        const std::string why = str(call, " did not complete after ", waited, " (the timeout is ",
                                    duration_cast<milliseconds>(deadline - start).count(),
                                    " ms): Timed out waiting for a peer");
        mark_failed(why);
        throw MpiFailure(why);
      }
    }
    const auto waited = Clock::now() - start;
    if (waited < milliseconds(10)) continue;  // spin, as MPI_Wait does
    if (waited < milliseconds(1000)) sched_yield();
    else std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
}

}  // namespace tsr::distributed::mpi

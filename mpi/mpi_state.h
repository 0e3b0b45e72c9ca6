// The module's process-wide state: the one mutex every MPI call holds
// (MPI_THREAD_SERIALIZED: one thread in MPI at a time, whichever thread it
// is), MPI's start, and the failure after which MPI is not called again.
#pragma once

#include <mpi.h>

#include <chrono>
#include <mutex>
#include <string>

namespace tsr::distributed::mpi {

using Clock = std::chrono::steady_clock;

// Held around every MPI call of the module.
std::mutex& mpi_mutex();

// Starts MPI once (MPI_Init_thread at MPI_THREAD_SERIALIZED) unless the
// program did; registers MPI_Finalize at exit when it started it. Caller
// holds mpi_mutex(). Throws tsr::Error when MPI cannot be used.
void ensure_initialized();

// A timed-out or failed operation cannot be cancelled and still owns its
// buffers: from then on the module makes no MPI call (any call would
// progress it), and MPI_Finalize is skipped at exit. Caller holds
// mpi_mutex() for both.
void mark_failed(const std::string& why);
// Throws tsr::Error (TSR_ERR_DISTRIBUTED) after mark_failed.
void check_usable();

// MPI_Error_string's text for an MPI return code.
std::string error_text(int rc);
// Throws MpiFailure "<call> failed: <error text>" unless rc is MPI_SUCCESS;
// marks the module failed first. Caller holds mpi_mutex().
void check_rc(int rc, const char* call);

// Counts an operation just started (caller holds mpi_mutex()); wait()
// counts it complete. MPI_Finalize at exit is skipped while any is in flight.
void note_started();

// Tests `request` until it completes or `deadline` passes (then throws
// MpiFailure naming `call` and the time waited), taking mpi_mutex() for
// each test only, so other groups' operations progress in between. MPI
// progresses an operation only inside its calls (Open MPI's non-blocking
// collectives, libnbc: one round per test), so the first 10 ms spin on
// MPI_Test as MPI_Wait does (a sched_yield between tests made a 1 MiB
// all_reduce 13x slower on a loaded machine: each yield can hand the core
// away for a scheduler slice), then poll with sched_yield up to 1 s, then
// (a hung peer, or a very large message) every 100 us.
void wait(MPI_Request& request, const char* call, Clock::time_point start, Clock::time_point deadline);

}  // namespace tsr::distributed::mpi

// Watching the workers of one node until they have all ended: relaying
// their captured output, forwarding the signals tessera-run receives, and,
// when a worker fails, stopping the others (their signal, then SIGKILL after
// the grace period), as torchrun's agent does.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "line_relay.h"
#include "spawn.h"

namespace tessera_run {

struct Worker {
  int local_rank = 0;
  int rank = 0;
  pid_t pid = -1;
  bool running = true;
  int wait_status = 0;  // waitpid's, once ended
  std::chrono::system_clock::time_point ended;
};

struct RunResult {
  int exit_status = 0;           // what tessera-run exits with (see kUsage)
  std::vector<Worker> failures;  // workers that failed on their own, first observed first
  int signal_received = 0;       // the first signal that stopped the run, or 0
};

// The exit status a shell would show for a wait status: the code, or 128+N.
int shell_status(int wait_status);

// "SIGTERM" for SIGTERM.
std::string signal_name(int sig);

class Supervisor {
 public:
  // signal_fd: a signalfd for SIGCHLD and the signals to forward (blocked).
  Supervisor(int signal_fd, double grace_period_s);

  // Takes a started worker; stdout_fd/stderr_fd (from spawn_process) are
  // relayed to tessera-run's stdout/stderr with prefix when not -1.
  void add(const Worker& worker, const SpawnedProcess& process, const std::string& prefix);

  // Stops every worker now (sig, then SIGKILL after the grace period): for a
  // worker that could not be started while others already run.
  void stop_all(int sig);

  // Runs until every worker has ended and its output is relayed.
  RunResult wait();

 private:
  struct Stream {
    int fd;
    LineRelay relay;
  };

  void reap();
  void on_signal(int sig);
  void signal_running(int sig);
  void kill_remaining();
  bool any_running() const;
  bool relay_ready(Stream& s);  // true when it relayed bytes; closes the stream at EOF
  void close_stream(Stream& s);
  void drain_and_close_streams();

  int signal_fd_;
  std::chrono::milliseconds grace_;
  std::vector<Worker> workers_;
  std::vector<std::unique_ptr<Stream>> streams_;
  bool stopping_ = false;
  bool killed_ = false;
  std::chrono::steady_clock::time_point kill_deadline_;
  RunResult result_;
};

}  // namespace tessera_run

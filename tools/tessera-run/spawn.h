// Starting one worker process: in a process group of its own (so a signal
// tessera-run forwards reaches whatever the worker started, and a terminal's
// Ctrl-C reaches the worker once, through tessera-run), stdin from
// /dev/null, killed if tessera-run dies (PR_SET_PDEATHSIG), and its
// stdout/stderr inherited, captured in pipes, or discarded.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace tessera_run {

enum class OutputMode { inherit, capture, discard };

struct SpawnedProcess {
  pid_t pid = -1;
  int stdout_fd = -1;  // read ends of the pipes with OutputMode::capture, else -1
  int stderr_fd = -1;
};

// The program could not be started; exit_status is the shell's: 127 not
// found, 126 found but not runnable.
struct SpawnError : std::runtime_error {
  SpawnError(const std::string& message, int status) : std::runtime_error(message), exit_status(status) {}
  int exit_status;
};

// Forks and execs argv (argv[0] looked up in PATH unless it holds a '/')
// with env (NAME=value strings) and the signal mask child_mask. Returns once
// the exec has succeeded; throws SpawnError (the child reaped) when it failed.
SpawnedProcess spawn_process(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                             OutputMode output, const sigset_t& child_mask);

}  // namespace tessera_run

#include "supervisor.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>

namespace tessera_run {

int shell_status(int wait_status) {
  if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  return 1;
}

std::string signal_name(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
}

Supervisor::Supervisor(int signal_fd, double grace_period_s)
    : signal_fd_(signal_fd), grace_(static_cast<long>(grace_period_s * 1000)) {}

void Supervisor::add(const Worker& worker, const SpawnedProcess& process, const std::string& prefix) {
  workers_.push_back(worker);
  if (process.stdout_fd >= 0)
    streams_.push_back(std::make_unique<Stream>(Stream{process.stdout_fd, LineRelay(STDOUT_FILENO, prefix)}));
  if (process.stderr_fd >= 0)
    streams_.push_back(std::make_unique<Stream>(Stream{process.stderr_fd, LineRelay(STDERR_FILENO, prefix)}));
}

namespace {

// To the worker's whole process group: what it started gets the signal too.
// A worker that moved to a group of its own (setsid) gets it by pid.
void signal_worker(const Worker& w, int sig) {
  if (kill(-w.pid, sig) != 0) kill(w.pid, sig);
}

}  // namespace

bool Supervisor::any_running() const {
  for (const Worker& w : workers_)
    if (w.running) return true;
  return false;
}

void Supervisor::signal_running(int sig) {
  for (const Worker& w : workers_) {
    if (!w.running) continue;
    std::fprintf(stderr, "tessera-run: sending %s to rank %d (local_rank %d, pid %d)\n",
                 signal_name(sig).c_str(), w.rank, w.local_rank, static_cast<int>(w.pid));
    signal_worker(w, sig);
  }
}

void Supervisor::stop_all(int sig) {
  if (!stopping_) {
    stopping_ = true;
    kill_deadline_ = std::chrono::steady_clock::now() + grace_;
  }
  signal_running(sig);
}

void Supervisor::kill_remaining() {
  killed_ = true;
  for (const Worker& w : workers_) {
    if (!w.running) continue;
    std::fprintf(stderr, "tessera-run: rank %d (pid %d) did not stop within %.3g s; sending SIGKILL\n",
                 w.rank, static_cast<int>(w.pid), grace_.count() / 1000.0);
    signal_worker(w, SIGKILL);
  }
}

void Supervisor::reap() {
  bool failed_now = false;
  int status;
  pid_t pid;
  while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
    for (Worker& w : workers_) {
      if (w.pid != pid || !w.running) continue;
      w.running = false;
      w.wait_status = status;
      w.ended = std::chrono::system_clock::now();
      // Once stopping, an exit is the answer to our signal, not a failure.
      if (shell_status(status) != 0 && !stopping_) {
        result_.failures.push_back(w);
        failed_now = true;
      }
    }
  }
  if (failed_now) stop_all(SIGTERM);
}

void Supervisor::on_signal(int sig) {
  std::fprintf(stderr, "tessera-run: received %s; forwarding it to the workers\n", signal_name(sig).c_str());
  if (result_.signal_received == 0 && result_.failures.empty()) result_.signal_received = sig;
  stop_all(sig);  // a second Ctrl-C is forwarded again; the SIGKILL deadline stays
}

bool Supervisor::relay_ready(Stream& s) {
  char buf[1 << 16];
  ssize_t n = read(s.fd, buf, sizeof buf);
  if (n > 0) {
    s.relay.feed({buf, static_cast<size_t>(n)});
    return true;
  }
  if (n == 0 || errno != EINTR) close_stream(s);  // EOF, or an error: nothing more will come
  return false;
}

void Supervisor::close_stream(Stream& s) {
  s.relay.finish();
  close(s.fd);
  s.fd = -1;
}

// Every worker has ended: what they wrote is in the pipes already. Read it
// without waiting, since something a worker started may hold a pipe open.
void Supervisor::drain_and_close_streams() {
  for (auto& s : streams_) {
    if (s->fd < 0) continue;
    fcntl(s->fd, F_SETFL, fcntl(s->fd, F_GETFL) | O_NONBLOCK);
    while (s->fd >= 0 && relay_ready(*s)) {
    }
    if (s->fd >= 0) close_stream(*s);
  }
}

RunResult Supervisor::wait() {
  while (any_running()) {
    std::vector<pollfd> fds{{signal_fd_, POLLIN, 0}};
    for (auto& s : streams_)
      if (s->fd >= 0) fds.push_back({s->fd, POLLIN, 0});
    int timeout_ms = -1;
    if (stopping_ && !killed_) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(kill_deadline_ -
                                                                        std::chrono::steady_clock::now());
      timeout_ms = static_cast<int>(std::max<long>(0, left.count() + 1));
    }
    if (poll(fds.data(), fds.size(), timeout_ms) < 0 && errno != EINTR)
      throw std::runtime_error(std::string("poll: ") + std::strerror(errno));

    size_t next = 1;
    for (auto& s : streams_) {
      if (s->fd < 0) continue;
      if (fds[next++].revents & (POLLIN | POLLHUP | POLLERR)) relay_ready(*s);
    }
    if (fds[0].revents & POLLIN) {
      signalfd_siginfo info;
      while (read(signal_fd_, &info, sizeof info) == sizeof info) {
        if (info.ssi_signo == SIGCHLD)
          reap();
        else
          on_signal(static_cast<int>(info.ssi_signo));
      }
    }
    if (stopping_ && !killed_ && std::chrono::steady_clock::now() >= kill_deadline_) kill_remaining();
  }
  drain_and_close_streams();

  if (!result_.failures.empty())
    result_.exit_status = shell_status(result_.failures.front().wait_status);
  else if (result_.signal_received)
    result_.exit_status = 128 + result_.signal_received;
  return result_;
}

}  // namespace tessera_run

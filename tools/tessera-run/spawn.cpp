#include "spawn.h"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace tessera_run {

namespace {

std::vector<char*> c_strings(const std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (const std::string& s : strings) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

struct Pipe {
  int read = -1, write = -1;
  void open() {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    read = fds[0];
    write = fds[1];
  }
  void close_both() {
    if (read >= 0) ::close(read);
    if (write >= 0) ::close(write);
    read = write = -1;
  }
};

// In the child, between fork and exec: async-signal-safe calls only.
[[noreturn]] void become_worker(char* const* argv, char* const* envp, OutputMode output, const Pipe& out,
                                const Pipe& err, int report_fd, pid_t launcher, const sigset_t& mask) {
  setpgid(0, 0);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != launcher) _exit(1);  // tessera-run died before prctl took hold
  int null_fd = open("/dev/null", O_RDWR);
  if (null_fd >= 0) dup2(null_fd, STDIN_FILENO);
  if (output == OutputMode::capture) {
    dup2(out.write, STDOUT_FILENO);
    dup2(err.write, STDERR_FILENO);
  } else if (output == OutputMode::discard && null_fd >= 0) {
    dup2(null_fd, STDOUT_FILENO);
    dup2(null_fd, STDERR_FILENO);
  }
  if (null_fd > STDERR_FILENO) close(null_fd);
  signal(SIGPIPE, SIG_DFL);  // tessera-run ignores it; exec would pass that on
  sigprocmask(SIG_SETMASK, &mask, nullptr);
  execvpe(argv[0], argv, envp);
  int e = errno;
  ssize_t ignored = write(report_fd, &e, sizeof e);
  (void)ignored;
  _exit(127);
}

}  // namespace

SpawnedProcess spawn_process(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                             OutputMode output, const sigset_t& child_mask) {
  std::vector<char*> c_argv = c_strings(argv), c_env = c_strings(env);
  Pipe out, err, report;  // report: exec's errno, or EOF when exec succeeded (O_CLOEXEC)
  if (output == OutputMode::capture) {
    out.open();
    err.open();
  }
  report.open();
  pid_t launcher = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    int e = errno;
    out.close_both();
    err.close_both();
    report.close_both();
    throw std::runtime_error(std::string("fork: ") + std::strerror(e));
  }
  if (pid == 0)
    become_worker(c_argv.data(), c_env.data(), output, out, err, report.write, launcher, child_mask);

  setpgid(pid, pid);  // also here, so the group exists before any signal is sent to it
  ::close(report.write);
  report.write = -1;
  int exec_errno = 0;
  ssize_t n;
  do n = read(report.read, &exec_errno, sizeof exec_errno);
  while (n < 0 && errno == EINTR);
  report.close_both();
  if (n > 0) {
    out.close_both();
    err.close_both();
    waitpid(pid, nullptr, 0);
    throw SpawnError("cannot run '" + argv[0] + "': " + std::strerror(exec_errno),
                     exec_errno == ENOENT ? 127 : 126);
  }
  if (output == OutputMode::capture) {
    ::close(out.write);
    ::close(err.write);
  }
  return {pid, out.read, err.read};
}

}  // namespace tessera_run

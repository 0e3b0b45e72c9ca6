#include "failure_report.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <sstream>
#include <vector>

namespace tessera_run {

namespace {

std::string host_name() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "<unknown>";
  return buf;
}

// torch's timestamp_isoformat: local time, "_" between date and time.
std::string local_time(std::chrono::system_clock::time_point t) {
  std::time_t secs = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  localtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d_%H:%M:%S", &tm);
  return buf;
}

std::string format_failure(size_t idx, const Worker& w) {
  int status = w.wait_status;
  bool by_signal = WIFSIGNALED(status);
  int exitcode = by_signal ? -WTERMSIG(status) : WEXITSTATUS(status);
  std::ostringstream s;
  s << "[" << idx << "]:\n"
    << "  time      : " << local_time(w.ended) << "\n"
    << "  host      : " << host_name() << "\n"
    << "  rank      : " << w.rank << " (local_rank: " << w.local_rank << ")\n"
    << "  exitcode  : " << exitcode << " (pid: " << w.pid << ")\n"
    << "  message   : ";
  if (by_signal)
    s << "Signal " << WTERMSIG(status) << " (" << signal_name(WTERMSIG(status)) << ") received by PID "
      << w.pid;
  else
    s << "exited with status " << exitcode;
  return s.str();
}

size_t widest_line(const std::string& text) {
  size_t widest = 0, start = 0;
  while (start <= text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    widest = std::max(widest, nl - start);
    start = nl + 1;
  }
  return widest;
}

}  // namespace

std::string failure_report(const std::string& program, const RunResult& result) {
  std::string title = program + " FAILED";
  size_t width = title.size();
  std::string root;
  std::vector<std::string> others;
  for (size_t i = 0; i < result.failures.size(); ++i) {
    std::string f = format_failure(i, result.failures[i]);
    width = std::max(width, widest_line(f));
    if (i == 0)
      root = f;
    else
      others.push_back(f);
  }
  width = std::min<size_t>(width, 60);
  std::string border(width, '='), section(width, '-');
  std::ostringstream s;
  s << "\n" << border << "\n" << title << "\n" << section << "\nFailures:\n";
  if (others.empty()) s << "  <NO_OTHER_FAILURES>\n";
  for (const std::string& o : others) s << o << "\n";
  s << section << "\nRoot Cause (first observed failure):\n" << root << "\n" << border << "\n";
  return s.str();
}

}  // namespace tessera_run

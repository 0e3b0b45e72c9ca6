// tessera-run: starts the workers of a data-parallel job on this node, as
// torchrun (torch.distributed.run) does, and watches them until they end.
//
//   tessera-run [options] program [args...]
//
// Each of --nproc-per-node workers gets torchrun's environment (RANK,
// LOCAL_RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT, ...; worker_env.h). A
// worker that fails stops the others and tessera-run exits with its status
// after torchrun's failure summary; SIGINT, SIGTERM, SIGHUP and SIGQUIT are
// forwarded to the workers. It does not link libtessera: it manages
// processes only. kUsage (options.cpp) lists the flags and exit statuses.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

#include "failure_report.h"
#include "options.h"
#include "spawn.h"
#include "supervisor.h"
#include "worker_env.h"

using namespace tessera_run;

namespace {

// --standalone: a port nothing listens on now (torchrun's
// _get_socket_with_port); rank 0 binds it a moment later.
int pick_free_port() {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_ANY);
  socklen_t len = sizeof addr;
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    std::perror("tessera-run: --standalone: cannot pick a free port");
    std::exit(1);
  }
  close(fd);
  return ntohs(addr.sin_port);
}

// --standalone: a fresh run id, as torchrun's uuid4.
std::string random_run_id() {
  std::random_device rd;
  std::string id;
  for (int i = 0; i < 4; ++i) {
    char buf[9];
    std::snprintf(buf, sizeof buf, "%08x", rd());
    id += buf;
  }
  return id;
}

// torchrun's warning and default: one OpenMP thread per worker when several
// share the node and the user has not chosen.
void default_omp_threads(const Options& o) {
  if (o.nproc_per_node <= 1 || std::getenv("OMP_NUM_THREADS")) return;
  std::fputs(
      "\n*****************************************\n"
      "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your "
      "system being overloaded, please further tune the variable for optimal performance in your "
      "application as needed. \n"
      "*****************************************\n",
      stderr);
  setenv("OMP_NUM_THREADS", "1", 1);
}

std::string expand_prefix(std::string text, const Options& o, int local_rank) {
  const std::pair<std::string, std::string> fields[] = {
      {"${rank}", std::to_string(global_rank(o, local_rank))},
      {"${local_rank}", std::to_string(local_rank)},
      {"${role_name}", o.role}};
  for (const auto& [key, value] : fields)
    for (size_t at; (at = text.find(key)) != std::string::npos;) text.replace(at, key.size(), value);
  return text;
}

OutputMode output_mode(const Options& o, int local_rank) {
  if (!o.local_ranks_filter.empty()) {
    bool shown = false;
    for (int r : o.local_ranks_filter) shown = shown || r == local_rank;
    if (!shown) return OutputMode::discard;
  }
  return o.log_line_prefix_template.empty() ? OutputMode::inherit : OutputMode::capture;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  try {
    o = parse_options(argc, argv);
  } catch (const HelpRequested&) {
    std::fputs(kUsage, stdout);
    return 0;
  } catch (const UsageError& e) {
    std::fprintf(stderr,
                 "usage: tessera-run [options] program [args...]\n"
                 "tessera-run: error: %s\n(tessera-run --help lists the options)\n",
                 e.what());
    return 2;
  }
  if (o.standalone) {
    o.master_port = pick_free_port();
    o.run_id = random_run_id();
  }
  default_omp_threads(o);

  // Blocked before the first worker starts, so no signal is lost: they
  // arrive through signal_fd, and the workers get the original mask back.
  sigset_t handled, original;
  sigemptyset(&handled);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD}) sigaddset(&handled, sig);
  sigprocmask(SIG_BLOCK, &handled, &original);
  int signal_fd = signalfd(-1, &handled, SFD_NONBLOCK | SFD_CLOEXEC);
  if (signal_fd < 0) {
    std::perror("tessera-run: signalfd");
    return 1;
  }
  std::signal(SIGPIPE, SIG_IGN);  // a closed stdout must not kill the supervisor

  Supervisor supervisor(signal_fd, o.grace_period_s);
  const std::vector<std::string> command = worker_command(o);
  try {
    for (int local_rank = 0; local_rank < o.nproc_per_node; ++local_rank) {
      SpawnedProcess p =
          spawn_process(command, worker_environment(o, local_rank), output_mode(o, local_rank), original);
      Worker w;
      w.local_rank = local_rank;
      w.rank = global_rank(o, local_rank);
      w.pid = p.pid;
      supervisor.add(w, p, expand_prefix(o.log_line_prefix_template, o, local_rank));
    }
  } catch (const SpawnError& e) {
    std::fprintf(stderr, "tessera-run: error: %s\n", e.what());
    supervisor.stop_all(SIGTERM);
    supervisor.wait();
    return e.exit_status;
  }
  RunResult result = supervisor.wait();
  if (!result.failures.empty()) std::fputs(failure_report(o.command.front(), result).c_str(), stderr);
  return result.exit_status;
}

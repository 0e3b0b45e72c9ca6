// tessera-run's command line: torchrun's flags (torch.distributed.run), the
// spellings of torch 1.13 (--nproc_per_node) and of torch 2.x
// (--nproc-per-node) alike, their PET_* environment defaults, and the few
// flags of tessera-run's own.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace tessera_run {

struct Options {
  int nproc_per_node = 1;
  int nnodes = 1;
  int node_rank = 0;
  std::string master_addr = "127.0.0.1";
  int master_port = 29500;
  bool standalone = false;  // one node; MASTER_PORT is a free port picked at start
  std::string role = "default";
  std::string run_id = "none";  // TORCHELASTIC_RUN_ID (--rdzv-id)
  bool no_python = false;       // run the program itself even when it ends in .py
  bool module = false;          // -m: the program is a Python module (python3 -u -m)
  // Empty: workers write straight to tessera-run's stdout and stderr.
  // Otherwise each of their lines is relayed with this prefix, in which
  // ${rank}, ${local_rank} and ${role_name} are replaced (torch 2.x's
  // --log-line-prefix-template; --prefix-rank sets "[rank${rank}]:").
  std::string log_line_prefix_template;
  std::vector<int> local_ranks_filter;  // empty: every local rank's output is shown
  double grace_period_s = 5;            // SIGTERM (or the forwarded signal) -> SIGKILL
  std::vector<std::string> command;     // the program and its arguments
};

// A bad command line (exit status 2, after the message and the usage line).
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// -h / --help: print kUsage on stdout, exit 0.
struct HelpRequested {};

extern const char* const kUsage;

// Reads argv (options first, then the program and its arguments, which are
// passed on untouched; "--" also ends the options). A flag's PET_<NAME>
// environment variable (PET_NPROC_PER_NODE=2) is its default, as in
// torchrun. Throws UsageError or HelpRequested.
Options parse_options(int argc, char** argv);

}  // namespace tessera_run

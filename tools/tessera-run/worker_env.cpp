#include "worker_env.h"

#include <cstdlib>
#include <string_view>

extern char** environ;

namespace tessera_run {

int global_rank(const Options& o, int local_rank) { return o.node_rank * o.nproc_per_node + local_rank; }

std::vector<std::pair<std::string, std::string>> torchrun_variables(const Options& o, int local_rank) {
  const std::string world_size = std::to_string(o.nnodes * o.nproc_per_node);
  const std::string rank = std::to_string(global_rank(o, local_rank));
  return {
      {"LOCAL_RANK", std::to_string(local_rank)},
      {"RANK", rank},
      {"GROUP_RANK", std::to_string(o.node_rank)},
      // One role per job: the role's ranks are the job's.
      {"ROLE_RANK", rank},
      {"ROLE_NAME", o.role},
      {"LOCAL_WORLD_SIZE", std::to_string(o.nproc_per_node)},
      {"WORLD_SIZE", world_size},
      {"GROUP_WORLD_SIZE", std::to_string(o.nnodes)},
      {"ROLE_WORLD_SIZE", world_size},
      {"MASTER_ADDR", o.master_addr},
      {"MASTER_PORT", std::to_string(o.master_port)},
      {"TORCHELASTIC_RESTART_COUNT", "0"},
      {"TORCHELASTIC_MAX_RESTARTS", "0"},
      {"TORCHELASTIC_RUN_ID", o.run_id},
      // No store is hosted by tessera-run: rank 0 creates it (torch's
      // env:// init reads "True" as "connect to the agent's store").
      {"TORCHELASTIC_USE_AGENT_STORE", "False"},
  };
}

std::vector<std::string> worker_environment(const Options& o, int local_rank) {
  auto vars = torchrun_variables(o, local_rank);
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    std::string_view entry = *e;
    std::string_view name = entry.substr(0, entry.find('='));
    bool replaced = false;
    for (const auto& [k, v] : vars) replaced = replaced || name == k;
    if (!replaced) env.emplace_back(entry);
  }
  for (const auto& [k, v] : vars) env.push_back(k + "=" + v);
  return env;
}

std::vector<std::string> worker_command(const Options& o) {
  const std::string& program = o.command.front();
  bool is_python_script = program.size() > 3 && program.ends_with(".py");
  std::vector<std::string> argv;
  if (o.module || (is_python_script && !o.no_python)) {
    const char* python = std::getenv("PYTHON_EXEC");
    argv.push_back(python && *python ? python : "python3");
    argv.push_back("-u");  // unbuffered, as torchrun runs it: output arrives as written
    if (o.module) argv.push_back("-m");
  }
  argv.insert(argv.end(), o.command.begin(), o.command.end());
  return argv;
}

}  // namespace tessera_run

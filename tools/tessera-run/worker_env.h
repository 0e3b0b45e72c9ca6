// What each worker is given: torchrun's environment (the contract a training
// program reads to join the job) and the command line that runs it.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "options.h"

namespace tessera_run {

// RANK = node_rank * nproc_per_node + local_rank.
int global_rank(const Options& o, int local_rank);

// The variables torchrun's agent sets for a worker, by name (torch 1.13's
// local_elastic_agent.py): LOCAL_RANK, RANK, GROUP_RANK, ROLE_RANK,
// ROLE_NAME, LOCAL_WORLD_SIZE, WORLD_SIZE, GROUP_WORLD_SIZE,
// ROLE_WORLD_SIZE, MASTER_ADDR, MASTER_PORT, TORCHELASTIC_RESTART_COUNT,
// TORCHELASTIC_MAX_RESTARTS, TORCHELASTIC_RUN_ID, TORCHELASTIC_USE_AGENT_STORE.
std::vector<std::pair<std::string, std::string>> torchrun_variables(const Options& o, int local_rank);

// tessera-run's own environment with torchrun's variables set on top
// (replacing any of the same name), as NAME=value strings for execve.
std::vector<std::string> worker_environment(const Options& o, int local_rank);

// The argv that starts a worker: the program and its arguments; or, for -m
// or a program ending in .py (unless --no-python), python3 -u [-m] before
// them (torchrun's "python -u"; $PYTHON_EXEC names another interpreter).
std::vector<std::string> worker_command(const Options& o);

}  // namespace tessera_run

// What DistributedDataParallel's constructor does before it reduces
// anything: check that every rank has the same parameters (torch's
// _verify_param_shape_across_processes) and give every rank rank 0's
// values (torch's _sync_module_states).
#pragma once

#include <vector>

#include "core/tensor.h"
#include "distributed/process_group.h"

namespace tsr::distributed {

// Collective. Every rank learns whether all ranks passed the same number
// of parameters with the same sizes, strides and dtypes, and on a mismatch
// every rank throws TSR_ERR_INVALID_ARGUMENT (so none is left waiting in a
// later collective): the ranks that differ name what differs (torch's
// messages), the others name those ranks.
void verify_params_across_processes(ProcessGroup& pg, const std::vector<Tensor>& params);

// Collective: overwrites every rank's parameters with rank 0's.
void broadcast_params(ProcessGroup& pg, const std::vector<Tensor>& params);

}  // namespace tsr::distributed

// The summary printed when workers fail, in the layout of torchrun's
// ChildFailedError (torch.distributed.elastic.multiprocessing.errors).
#pragma once

#include <string>

#include "supervisor.h"

namespace tessera_run {

// The report for result.failures (not empty): title "<program> FAILED", the
// other failures, then the first observed one as the root cause, each with
// time, host, rank, local rank, exit code (-N for signal N, as torch
// shows it) and pid.
std::string failure_report(const std::string& program, const RunResult& result);

}  // namespace tessera_run

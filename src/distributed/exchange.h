// Small agreements between the ranks of a group, built on
// all_gather_into_tensor: every rank learns every rank's string (its
// metadata, or what went wrong there), so all ranks take the same decision
// from the same facts instead of some of them waiting on a peer that gave
// up. Used by the sharded checkpoints (sharded_save.cpp, sharded_load.cpp).
#pragma once

#include <exception>
#include <new>
#include <string>
#include <vector>

#include <tessera/types.h>

#include "core/error.h"
#include "distributed/process_group.h"

namespace tsr::distributed {

// Every rank's string, by rank (two collectives: the lengths, then the
// bytes padded to the longest). Throws TSR_ERR_DISTRIBUTED when the group
// fails.
std::vector<std::string> all_gather_strings(ProcessGroup& pg, const std::string& mine);

// Every rank's outcome; then, when any rank failed, throws on every rank:
// the failing rank rethrows its own error as it was; the others throw the
// lowest failing rank's status with "<what> failed on rank <r> of <w>:
// <its message>".
void agree(ProcessGroup& pg, const RankOutcome& mine, const std::string& what);

// agree(), and on success every rank's payload, by rank: one exchange
// that carries either this rank's failure or its payload.
std::vector<std::string> agree_and_gather(ProcessGroup& pg, const RankOutcome& mine, const std::string& payload,
                                          const std::string& what);

}  // namespace tsr::distributed

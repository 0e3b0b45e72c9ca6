// Subgroups of a process group (torch's new_group, torch 2.x's
// split_group / MPI_Comm_split): each a ProcessGroup of its own, with its
// store prefix, engine connections and worker, so its operations never
// mix with the parent's.
#pragma once

#include <memory>
#include <vector>

#include "distributed/process_group.h"

namespace tsr::distributed {

// ranks: distinct ranks of parent, any order (the new ranks follow their
// sorted order). Every rank of parent calls it in the same order; the
// ranks not in `ranks` get nullptr. Throws TSR_ERR_INVALID_ARGUMENT for
// ranks out of range or repeated (nothing communicated), TSR_ERR_DISTRIBUTED
// when the members do not all join in time.
std::shared_ptr<ProcessGroup> new_group(ProcessGroup& parent, std::vector<int> ranks, Millis timeout);

// Every rank of parent calls it; the ranks of one color (>= 0) form a
// group ordered by (key, rank in parent); a negative color gets nullptr.
// One all-gather over parent tells every rank the others' colors and keys.
std::shared_ptr<ProcessGroup> split(ProcessGroup& parent, int color, int key, Millis timeout);

}  // namespace tsr::distributed

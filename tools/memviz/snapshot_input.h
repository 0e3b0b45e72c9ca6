// What tessera-memviz accepts: a memory snapshot as tsr_memory_snapshot
// writes it (the field names of PyTorch's torch.cuda.memory._snapshot()).
// check_snapshot() turns away anything else with a message naming the field
// at fault, so the page's script can rely on the shape it draws.
#pragma once

#include <nlohmann/json.hpp>
#include <stdexcept>

namespace memviz {

// The input is valid JSON but not a snapshot the viewer can draw.
struct NotASnapshot : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Checks the fields the viewer reads (required: "segments", each segment's
// address and total_size, each block's size and state, each trace entry's
// action and, for block and segment actions, addr and size; everything else
// is optional but must have the right type when present; unknown fields are
// kept; nesting is limited to 100 levels). Normalises in place:
//  - addresses become "0x..." strings: a JavaScript number is exact only up
//    to 2^53, and addresses are matched by equality;
//  - a block without "address" gets its segment's address plus the sizes of
//    the blocks before it (blocks tile their segment in address order).
// Throws NotASnapshot.
void check_snapshot(nlohmann::json& snapshot);

}  // namespace memviz

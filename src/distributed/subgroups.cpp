#include "distributed/subgroups.h"

#include <algorithm>
#include <tuple>

#include "core/error.h"
#include "core/factory.h"
#include "distributed/collectives.h"

namespace tsr::distributed {

namespace {
// Subgroups make their Gloo mesh through the job's store, which an MPI
// group does not have.
void check_not_mpi(const ProcessGroup& parent, const char* what) {
  TSR_CHECK(std::string(parent.backend_name()) != "mpi", TSR_ERR_UNSUPPORTED, what,
            ": subgroups of an MPI process group are not available yet (MPI_Comm_split is not wired)");
}
}  // namespace

std::shared_ptr<ProcessGroup> new_group(ProcessGroup& parent, std::vector<int> ranks, Millis timeout) {
  check_not_mpi(parent, "new_group");
  const int world = parent.size();
  TSR_CHECK(!ranks.empty() && int64_t(ranks.size()) <= world, TSR_ERR_INVALID_ARGUMENT,
            "new_group: the new group's world size (", ranks.size(),
            ") should be at least 1 and at most the parent group's (", world, ")");
  for (int r : ranks)
    TSR_CHECK(r >= 0 && r < world, TSR_ERR_INVALID_ARGUMENT, "new_group: The new group's rank should be within the "
              "world_size set by init_process_group (rank ", r, " is outside [0, ", world, "))");
  std::sort(ranks.begin(), ranks.end());  // torch sorts: group rank i is the i-th smallest
  const auto repeated = std::adjacent_find(ranks.begin(), ranks.end());
  TSR_CHECK(repeated == ranks.end(), TSR_ERR_INVALID_ARGUMENT, "new_group: rank ",
            repeated == ranks.end() ? 0 : *repeated, " is given more than once");
  // Every rank of parent takes the name, members or not, so the names of
  // later subgroups agree across ranks.
  const std::string name = parent.next_subgroup_name();
  if (!std::binary_search(ranks.begin(), ranks.end(), parent.rank())) return nullptr;
  return std::make_shared<ProcessGroup>(parent, name, ranks, timeout);
}

std::shared_ptr<ProcessGroup> split(ProcessGroup& parent, int color, int key, Millis timeout) {
  check_not_mpi(parent, "split_group");
  const int world = parent.size();
  const std::string name = parent.next_subgroup_name();
  Tensor mine = empty(Shape{2}, TSR_INT64, TSR_CONTIGUOUS_FORMAT, kCpu);
  mine.data<int64_t>()[0] = color;
  mine.data<int64_t>()[1] = key;
  Tensor all = empty(Shape{int64_t(world) * 2}, TSR_INT64, TSR_CONTIGUOUS_FORMAT, kCpu);
  all_gather_into_tensor(parent, all, mine, false);
  if (color < 0) return nullptr;
  std::vector<std::tuple<int64_t, int>> members;  // (key, parent rank)
  for (int r = 0; r < world; ++r)
    if (all.data<int64_t>()[2 * r] == color) members.emplace_back(all.data<int64_t>()[2 * r + 1], r);
  std::sort(members.begin(), members.end());
  std::vector<int> ranks;
  for (const auto& m : members) ranks.push_back(std::get<1>(m));
  // The ProcessGroup takes its members in its rank order: by key here.
  return std::make_shared<ProcessGroup>(parent, name + "/color" + std::to_string(color), ranks, timeout);
}

}  // namespace tsr::distributed

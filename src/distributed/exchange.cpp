#include "distributed/exchange.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "core/error.h"
#include "core/factory.h"
#include "distributed/collectives.h"

namespace tsr::distributed {

std::vector<std::string> all_gather_strings(ProcessGroup& pg, const std::string& mine) {
  const int world = pg.size();
  Tensor len = empty(Shape{1}, TSR_INT64, TSR_CONTIGUOUS_FORMAT, kCpu);
  *len.data<int64_t>() = int64_t(mine.size());
  Tensor lens = empty(Shape{world}, TSR_INT64, TSR_CONTIGUOUS_FORMAT, kCpu);
  all_gather_into_tensor(pg, lens, len, false);
  int64_t longest = 0;
  for (int r = 0; r < world; ++r) longest = std::max(longest, lens.data<int64_t>()[r]);
  std::vector<std::string> out(static_cast<size_t>(world));
  if (longest == 0) return out;
  Tensor buf = empty(Shape{longest}, TSR_UINT8, TSR_CONTIGUOUS_FORMAT, kCpu);
  std::memset(buf.data_ptr(), 0, size_t(longest));
  std::memcpy(buf.data_ptr(), mine.data(), mine.size());
  Tensor all = empty(Shape{int64_t(world) * longest}, TSR_UINT8, TSR_CONTIGUOUS_FORMAT, kCpu);
  all_gather_into_tensor(pg, all, buf, false);
  const char* p = static_cast<const char*>(all.data_ptr());
  for (int r = 0; r < world; ++r) {
    const int64_t n = lens.data<int64_t>()[r];
    TSR_CHECK(n >= 0 && n <= longest, TSR_ERR_INTERNAL, "rank ", r, " sent a string of ", n, " bytes");
    out[size_t(r)].assign(p + int64_t(r) * longest, size_t(n));
  }
  return out;
}

std::vector<std::string> agree_and_gather(ProcessGroup& pg, const RankOutcome& mine, const std::string& payload,
                                          const std::string& what) {
  // "+<payload>" on success, "-<status digits> <message>" on failure.
  const std::string report = mine.status == TSR_OK ? "+" + payload : str('-', int(mine.status), ' ', mine.message);
  std::vector<std::string> all = all_gather_strings(pg, report);
  if (mine.status != TSR_OK) throw Error(mine.status, mine.message);
  for (size_t r = 0; r < all.size(); ++r) {
    TSR_CHECK(!all[r].empty(), TSR_ERR_INTERNAL, "rank ", r, " sent no report");
    if (all[r][0] == '+') continue;
    const size_t space = all[r].find(' ');
    const int status = std::atoi(all[r].substr(1, space).c_str());
    const std::string message = space == std::string::npos ? "" : all[r].substr(space + 1);
    fail(status == TSR_OK ? TSR_ERR_DISTRIBUTED : tsr_status(status), what, " failed on rank ", r, " of ",
         all.size(), ": ", message);
  }
  for (std::string& s : all) s.erase(0, 1);
  return all;
}

void agree(ProcessGroup& pg, const RankOutcome& mine, const std::string& what) {
  agree_and_gather(pg, mine, "", what);
}

}  // namespace tsr::distributed

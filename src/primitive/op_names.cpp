#include "primitive/op_names.h"

#include <mutex>
#include <set>

namespace tsr::prim {

namespace {
struct Registry {
  std::mutex mutex;
  std::set<std::string, std::less<>> names;
};
Registry& registry() {
  static Registry r;  // function-local: ready whichever family registers first
  return r;
}
}  // namespace

bool register_op_names(std::initializer_list<const char*> names) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  for (const char* n : names) r.names.insert(n);
  return true;
}

bool is_known_op(std::string_view name) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  return r.names.find(name) != r.names.end();
}

std::string known_op_names() {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  std::string out;
  for (const auto& n : r.names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace tsr::prim

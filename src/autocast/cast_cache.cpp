#include "autocast/cast_cache.h"

#include <memory>
#include <unordered_map>

namespace tsr::autocast {

namespace {

struct Entry {
  std::weak_ptr<TensorImpl> source;
  int64_t version;
  Tensor cast;
};

thread_local std::unordered_map<const TensorImpl*, Entry> t_cache;

}  // namespace

Tensor cached_cast(const Tensor& source, tsr_dtype dtype) {
  auto it = t_cache.find(source.impl());
  if (it == t_cache.end()) return {};
  const Entry& e = it->second;
  if (e.source.lock() != source.impl_ptr() || e.version != source.version() ||
      e.cast.dtype() != dtype) {
    t_cache.erase(it);
    return {};
  }
  return e.cast;
}

void remember_cast(const Tensor& source, const Tensor& cast) {
  t_cache[source.impl()] = Entry{source.impl_ptr(), source.version(), cast};
}

void clear_cache() { t_cache.clear(); }

}  // namespace tsr::autocast

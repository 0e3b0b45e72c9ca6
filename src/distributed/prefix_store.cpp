#include "distributed/store.h"

namespace tsr::distributed {

PrefixStore::PrefixStore(std::string prefix, std::shared_ptr<Store> store)
    : prefix_(std::move(prefix)), store_(std::move(store)) {
  set_timeout(store_->timeout());
}

std::vector<std::string> PrefixStore::keys(const std::vector<std::string>& ks) const {
  std::vector<std::string> out;
  out.reserve(ks.size());
  for (const auto& k : ks) out.push_back(key(k));
  return out;
}

void PrefixStore::set(const std::string& k, const std::vector<char>& value) { store_->set(key(k), value); }

std::vector<char> PrefixStore::get(const std::string& k) {
  // Gloo calls get() without a timeout of its own: ours applies.
  store_->set_timeout(timeout());
  return store_->get(key(k));
}

void PrefixStore::wait(const std::vector<std::string>& ks, const Millis& timeout) { store_->wait(keys(ks), timeout); }
bool PrefixStore::check(const std::vector<std::string>& ks) { return store_->check(keys(ks)); }
int64_t PrefixStore::add(const std::string& k, int64_t delta) { return store_->add(key(k), delta); }
bool PrefixStore::erase(const std::string& k) { return store_->erase(key(k)); }

}  // namespace tsr::distributed

// The rendezvous key-value store: Gloo's store interface (set, get, wait
// with a timeout), which gloo::rendezvous::Context::connectFullMesh uses to
// exchange connection addresses, plus the non-blocking check() that failure
// reports need. Two kinds: TcpStore (a server hosted by rank 0, torch's
// TCPStore role) and FileStore (a shared directory, torch's FileStore role).
// Every call obeys a deadline and throws tsr::Error (TSR_ERR_DISTRIBUTED)
// naming the store when it cannot be reached or a key does not appear.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <gloo/rendezvous/store.h>

namespace tsr::distributed {

using Millis = std::chrono::milliseconds;

class Store : public gloo::rendezvous::Store {
 public:
  // Gloo's interface. get() waits for the key up to timeout().
  void set(const std::string& key, const std::vector<char>& value) override = 0;
  std::vector<char> get(const std::string& key) override = 0;
  void wait(const std::vector<std::string>& keys) override { wait(keys, timeout()); }
  void wait(const std::vector<std::string>& keys, const Millis& timeout) override = 0;

  // Whether every key is set now; never waits for keys (only for the store).
  virtual bool check(const std::vector<std::string>& keys) = 0;
  // Adds delta to the integer stored under key (0 when unset) and returns
  // the sum: torch's Store.add, atomic across ranks.
  virtual int64_t add(const std::string& key, int64_t delta) = 0;
  // Removes a key; false when it was not set.
  virtual bool erase(const std::string& key) = 0;
  // Where the store is, for messages ("127.0.0.1:29500", "/shared/dir").
  virtual std::string describe() const = 0;

  Millis timeout() const { return timeout_.load(); }
  void set_timeout(Millis t) { timeout_.store(t); }

 private:
  // Atomic: a group's failure reports (its worker, or the thread of a
  // failed send or receive) may set it while another thread reads it.
  std::atomic<Millis> timeout_{std::chrono::minutes(30)};
};

// Every key under a prefix, so that several groups share one store.
class PrefixStore final : public Store {
 public:
  PrefixStore(std::string prefix, std::shared_ptr<Store> store);
  void set(const std::string& key, const std::vector<char>& value) override;
  std::vector<char> get(const std::string& key) override;
  using Store::wait;
  void wait(const std::vector<std::string>& keys, const Millis& timeout) override;
  bool check(const std::vector<std::string>& keys) override;
  int64_t add(const std::string& key, int64_t delta) override;
  bool erase(const std::string& key) override;
  std::string describe() const override { return store_->describe(); }

 private:
  std::string key(const std::string& k) const { return prefix_ + "/" + k; }
  std::vector<std::string> keys(const std::vector<std::string>& ks) const;
  std::string prefix_;
  std::shared_ptr<Store> store_;
};

}  // namespace tsr::distributed

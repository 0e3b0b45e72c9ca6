// torch's FileStore role: the store in a directory on a file system every
// rank shares (file:///path). One file per key, its name the key in hex;
// a value is written to a temporary file and renamed over the key's, so a
// reader sees all of it or nothing; add() holds an flock on the
// directory's lock file. Waits poll every 10 ms.
#pragma once

#include "distributed/store.h"

namespace tsr::distributed {

class FileStore final : public Store {
 public:
  // Creates the directory when missing; throws when it cannot.
  FileStore(std::string directory, Millis timeout);
  void set(const std::string& key, const std::vector<char>& value) override;
  std::vector<char> get(const std::string& key) override;
  using Store::wait;
  void wait(const std::vector<std::string>& keys, const Millis& timeout) override;
  bool check(const std::vector<std::string>& keys) override;
  int64_t add(const std::string& key, int64_t delta) override;
  bool erase(const std::string& key) override;
  std::string describe() const override { return directory_; }
  // Removes every key file (the last rank's cleanup).
  void clear();

 private:
  std::string path_of(const std::string& key) const;
  bool read(const std::string& key, std::vector<char>* out) const;
  std::string directory_;
};

}  // namespace tsr::distributed

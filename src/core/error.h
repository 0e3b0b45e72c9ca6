// The core's failure type. Core code throws tsr::Error(status, message); the
// C API barrier (capi/barrier.h) turns it into a status plus a thread-local
// message. Messages carry the numbers involved, as PyTorch's do.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <tessera/types.h>

namespace tsr {

class Error : public std::runtime_error {
 public:
  Error(tsr_status status, const std::string& message)
      : std::runtime_error(message), status_(status) {}
  tsr_status status() const noexcept { return status_; }

 private:
  tsr_status status_;
};

// Streams every argument into one string; vectors print as [a, b, c].
template <typename T>
void append_to(std::ostringstream& os, const T& v) { os << v; }
template <typename T>
void append_to(std::ostringstream& os, const std::vector<T>& v) {
  os << '[';
  for (size_t i = 0; i < v.size(); ++i) os << (i ? ", " : "") << v[i];
  os << ']';
}

template <typename... Args>
std::string str(const Args&... args) {
  std::ostringstream os;
  (append_to(os, args), ...);
  return os.str();
}

template <typename... Args>
[[noreturn]] void fail(tsr_status status, const Args&... args) {
  throw Error(status, str(args...));
}

}  // namespace tsr

// Throws tsr::Error(status, message...) unless cond holds.
#define TSR_CHECK(cond, status, ...) \
  do {                               \
    if (!(cond)) ::tsr::fail(status, __VA_ARGS__); \
  } while (0)

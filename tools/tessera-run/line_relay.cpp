#include "line_relay.h"

#include <unistd.h>

#include <cerrno>

namespace tessera_run {

void LineRelay::feed(std::string_view data) {
  std::string out;
  size_t start = 0;
  while (start < data.size()) {
    size_t nl = data.find('\n', start);
    if (nl == std::string_view::npos) {
      partial_.append(data.substr(start));
      while (partial_.size() >= kMaxLine) {
        out += prefix_;
        out.append(partial_, 0, kMaxLine);
        out += '\n';
        partial_.erase(0, kMaxLine);
      }
      break;
    }
    out += prefix_;
    out += partial_;
    out.append(data.substr(start, nl + 1 - start));
    partial_.clear();
    start = nl + 1;
  }
  if (!out.empty()) write_all(out);
}

void LineRelay::finish() {
  if (partial_.empty()) return;
  std::string out = prefix_ + partial_ + '\n';
  partial_.clear();
  write_all(out);
}

void LineRelay::write_all(const std::string& text) {
  size_t done = 0;
  while (!dest_broken_ && done < text.size()) {
    ssize_t n = ::write(dest_, text.data() + done, text.size() - done);
    if (n > 0) {
      done += static_cast<size_t>(n);
    } else if (n < 0 && errno != EINTR) {
      dest_broken_ = true;  // the reader went away (tessera-run | head): keep supervising
    }
  }
}

}  // namespace tessera_run

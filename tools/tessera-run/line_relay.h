// Copying a worker's output stream to tessera-run's own, whole lines at a
// time with a prefix on each: lines of different workers never mix, however
// the bytes arrive from the pipes.
#pragma once

#include <string>
#include <string_view>

namespace tessera_run {

class LineRelay {
 public:
  LineRelay(int dest_fd, std::string prefix) : dest_(dest_fd), prefix_(std::move(prefix)) {}

  // Writes each line completed by data (with what earlier calls left over),
  // prefixed, in one write(2). A line longer than kMaxLine goes out in
  // pieces of kMaxLine, each prefixed, rather than being held back.
  void feed(std::string_view data);

  // End of the stream: writes the unfinished last line, ending it with '\n'.
  void finish();

  static constexpr size_t kMaxLine = 64 * 1024;

 private:
  void write_all(const std::string& text);

  int dest_;
  std::string prefix_;
  std::string partial_;       // bytes after the last '\n' seen
  bool dest_broken_ = false;  // EPIPE or another error: later output is dropped
};

}  // namespace tessera_run

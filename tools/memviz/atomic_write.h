// Writing the page so that a reader never sees half of it, and a failure
// leaves no file behind: the bytes go to a temporary file in the target's
// directory (same file system, so rename() is atomic), renamed at the end.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace memviz {

struct WriteError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Replaces `path` by `data` (mode 0666 less the umask, as a plain create
// would). Throws WriteError naming the path and the system's reason.
void write_file_atomically(const std::string& path, std::string_view data);

}  // namespace memviz

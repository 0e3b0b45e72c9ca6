// Names of the temporary files a save writes before renaming over its
// target, and the removal of those a killed save left behind. A temporary
// is named ".<target name>.tmp.<host>.<pid>.<n>" in the target's directory,
// so the next save to the same path can tell a leftover (its host is this
// one and its process is gone) from a save still running.
#pragma once

#include <string>

namespace tsr::io {

// A fresh temporary name for target_name (a file name, no directory) in
// dir: host and pid of this process, and a process-wide counter.
std::string temp_path(const std::string& dir, const std::string& target_name);

// Removes temporaries of target_name in dir whose host is this host and
// whose process no longer exists. Best effort: anything it cannot read or
// remove stays, and no error is raised (a leftover is not a reason to fail
// a save).
void remove_stale_temporaries(const std::string& dir, const std::string& target_name);

}  // namespace tsr::io

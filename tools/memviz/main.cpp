// tessera-memviz: turns a memory snapshot of tessera's caching allocator
// (the JSON of tsr_memory_snapshot) into one self-contained HTML page: the
// active memory timeline, the segments with their blocks, the statistics and
// the allocator settings. Offline counterpart of PyTorch's memory_viz.
//
//   tessera-memviz SNAPSHOT.json [-o PAGE.html]
//
// Exit status: 0 written; 1 the input could not be read or the page written;
// 2 bad usage, or the input is not JSON or not a snapshot. On failure no
// output file is created (or an existing one is left as it was).
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "atomic_write.h"
#include "page.h"
#include "snapshot_input.h"

namespace {

constexpr const char* kUsage =
    "usage: tessera-memviz SNAPSHOT.json [-o PAGE.html]\n"
    "Writes an HTML page showing the memory snapshot (tsr_memory_snapshot's JSON):\n"
    "the active memory timeline, segments and blocks, statistics and settings.\n"
    "The page is self-contained and works offline. SNAPSHOT may be - for stdin.\n"
    "  -o, --output PAGE  where to write (default: SNAPSHOT with .json replaced by .html)\n"
    "  -h, --help         this text\n";

struct Failure {
  int status;
  std::string message;
  bool show_usage = false;  // a usage error: the usage text follows
};

struct Options {
  std::string input;
  std::string output;
};

Options parse_args(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a == "-h" || a == "--help") {
      std::cout << kUsage;
      std::exit(0);
    } else if (a == "-o" || a == "--output") {
      if (++i == argc) throw Failure{2, std::string(a) + " needs a file name", true};
      o.output = argv[i];
    } else if (a.size() > 1 && a[0] == '-' && a != "-") {
      throw Failure{2, "unknown option " + std::string(a), true};
    } else if (o.input.empty()) {
      o.input = a;
    } else {
      throw Failure{2, "more than one snapshot given (" + o.input + ", " + std::string(a) + ")", true};
    }
  }
  if (o.input.empty()) throw Failure{2, "no snapshot given", true};
  if (o.output.empty()) {
    if (o.input == "-") throw Failure{2, "-o is needed when the snapshot comes from stdin", true};
    std::string base = o.input;
    if (base.size() > 5 && base.compare(base.size() - 5, 5, ".json") == 0) base.resize(base.size() - 5);
    o.output = base + ".html";
  }
  return o;
}

std::string read_all(const std::string& path) {
  FILE* f = path == "-" ? stdin : std::fopen(path.c_str(), "rb");
  if (!f) throw Failure{1, "cannot read " + path + ": " + std::strerror(errno)};
  std::string text;
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
  int err = std::ferror(f) ? errno : 0;  // a directory fails here, with EISDIR
  if (f != stdin) std::fclose(f);
  if (err) throw Failure{1, "cannot read " + path + ": " + std::strerror(err)};
  return text;
}

// nlohmann's messages start "[json.exception.parse_error.101] "; the rest says it.
std::string without_exception_tag(const std::string& what) {
  size_t end = what.rfind("] ", 40);
  return what.rfind("[json.exception.", 0) == 0 && end != std::string::npos ? what.substr(end + 2) : what;
}

// The name shown in the page: the file's last path component.
std::string display_name(const std::string& path) {
  if (path == "-") return "stdin";
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

void run(const Options& o) {
  std::string text = read_all(o.input);
  nlohmann::json snapshot;
  try {
    snapshot = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw Failure{2, o.input + " is not valid JSON: " + without_exception_tag(e.what())};
  }
  try {
    memviz::check_snapshot(snapshot);
  } catch (const memviz::NotASnapshot& e) {
    throw Failure{2, o.input + ": " + e.what()};
  }
  std::string page = memviz::render_page(snapshot, display_name(o.input));
  if (o.output == "-") {
    std::cout << page;
    std::cout.flush();
    if (!std::cout) throw Failure{1, "cannot write to stdout"};
    return;
  }
  try {
    memviz::write_file_atomically(o.output, page);
  } catch (const memviz::WriteError& e) {
    throw Failure{1, e.what()};
  }
}

}  // namespace

int main(int argc, char** argv) {
  try {
    run(parse_args(argc, argv));
    return 0;
  } catch (const Failure& f) {
    std::cerr << "tessera-memviz: " << f.message << "\n";
    if (f.show_usage) std::cerr << kUsage;
    return f.status;
  } catch (const std::exception& e) {  // bad_alloc and the like: say so, don't abort
    std::cerr << "tessera-memviz: " << e.what() << "\n";
    return 1;
  }
}

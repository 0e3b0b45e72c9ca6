#include "options.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <string_view>

namespace tessera_run {

const char* const kUsage =
    "usage: tessera-run [options] program [args...]\n"
    "Starts --nproc-per-node copies of program on this node, each with torchrun's\n"
    "environment (RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT, ...), and\n"
    "supervises them: a worker that fails stops the others; signals are forwarded.\n"
    "A program ending in .py runs with python3 -u (PYTHON_EXEC overrides python3);\n"
    "any other runs itself (torchrun would run it with python unless --no-python).\n"
    "Workers read /dev/null and each runs in a process group of its own.\n"
    "\n"
    "torchrun's options (torch 1.13's --x_y and torch 2.x's --x-y spellings):\n"
    "  --nproc-per-node N|cpu     workers on this node (default 1; cpu: one per core)\n"
    "  --nnodes N                 nodes in the job (default 1; N:N also accepted)\n"
    "  --node-rank R              this node's rank, 0 <= R < nnodes (default 0)\n"
    "  --master-addr HOST         address of node 0 (default 127.0.0.1)\n"
    "  --master-port PORT         port on node 0 (default 29500)\n"
    "  --standalone               single node: MASTER_PORT is a free port picked now\n"
    "  --role NAME                ROLE_NAME of the workers (default \"default\")\n"
    "  --rdzv-id ID               TORCHELASTIC_RUN_ID (default \"none\")\n"
    "  -m, --module               program is a Python module: python3 -u -m program\n"
    "  --no-python                run program directly, even when it ends in .py\n"
    "  --local-ranks-filter L,..  only show the output of these local ranks\n"
    "  --log-line-prefix-template T\n"
    "                             prefix each output line with T, where ${rank},\n"
    "                             ${local_rank} and ${role_name} are replaced\n"
    "  --max-restarts 0, --rdzv-backend static, --monitor-interval S, --start-method M\n"
    "                             accepted for compatibility (no restarts, no\n"
    "                             rendezvous, no polling, no Python functions)\n"
    "tessera-run's own:\n"
    "  --prefix-rank              prefix each output line with [rank<RANK>]:\n"
    "  --grace-period S           seconds between SIGTERM and SIGKILL when stopping\n"
    "                             workers (default 5)\n"
    "  -h, --help                 this text\n"
    "torchrun's options may also be given as PET_<NAME> in the environment\n"
    "(PET_NNODES=2), as torchrun reads them.\n"
    "Exit status: 0 when every worker exits 0; else the first failed worker's status\n"
    "(128+N when signal N ended it); 128+N when tessera-run is stopped by signal N;\n"
    "2 bad usage; 126/127 the program cannot be run or is not found.\n";

namespace {

[[noreturn]] void fail(const std::string& flag, const std::string& why) {
  throw UsageError("argument " + flag + ": " + why);
}

long parse_long(const std::string& flag, const std::string& text, long min, long max) {
  char* end = nullptr;
  errno = 0;
  long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno == ERANGE || v < min || v > max)
    fail(flag, "invalid value '" + text + "' (expected an integer from " + std::to_string(min) + " to " +
                   std::to_string(max) + ")");
  return v;
}

double parse_seconds(const std::string& flag, const std::string& text) {
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !(v >= 0) || v > 86400)
    fail(flag, "invalid value '" + text + "' (expected seconds, 0 to 86400)");
  return v;
}

bool parse_bool(const std::string& flag, const std::string& text) {
  if (text == "1") return true;
  if (text == "0") return false;
  fail(flag, "invalid value '" + text + "' (expected 0 or 1)");
}

[[noreturn]] void unsupported(const std::string& flag, const std::string& instead) {
  fail(flag, "not supported by tessera-run; " + instead);
}

struct Flag {
  const char* name;  // with dashes; underscores are accepted for them
  bool takes_value;
  bool from_pet;  // torchrun's: PET_<NAME> is its default
  void (*apply)(Options&, const std::string& flag, const std::string& value);
};

const Flag kFlags[] = {
    {"nproc-per-node", true, true,
     [](Options& o, const std::string& f, const std::string& v) {
       if (v == "cpu") {
         o.nproc_per_node = static_cast<int>(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)));
       } else if (v == "auto" || v == "gpu") {
         fail(f, "'" + v + "' is not supported: tessera-run does not count GPUs; give a number");
       } else {
         o.nproc_per_node = static_cast<int>(parse_long(f, v, 1, 4096));
       }
     }},
    {"nnodes", true, true,
     [](Options& o, const std::string& f, const std::string& v) {
       // torchrun's MIN:MAX is elastic membership; only a fixed size works here.
       size_t colon = v.find(':');
       if (colon == std::string::npos) {
         o.nnodes = static_cast<int>(parse_long(f, v, 1, 65536));
         return;
       }
       int lo = static_cast<int>(parse_long(f, v.substr(0, colon), 1, 65536));
       int hi = static_cast<int>(parse_long(f, v.substr(colon + 1), 1, 65536));
       if (lo != hi) unsupported(f, "elastic sizes (" + v + ") need a rendezvous; give one number");
       o.nnodes = lo;
     }},
    {"node-rank", true, true,
     [](Options& o, const std::string& f, const std::string& v) {
       o.node_rank = static_cast<int>(parse_long(f, v, 0, 65535));
     }},
    {"master-addr", true, true,
     [](Options& o, const std::string& f, const std::string& v) {
       if (v.empty()) fail(f, "empty address");
       o.master_addr = v;
     }},
    {"master-port", true, true,
     [](Options& o, const std::string& f, const std::string& v) {
       o.master_port = static_cast<int>(parse_long(f, v, 1, 65535));
     }},
    {"standalone", false, true,
     [](Options& o, const std::string& f, const std::string& v) { o.standalone = parse_bool(f, v); }},
    {"role", true, true, [](Options& o, const std::string&, const std::string& v) { o.role = v; }},
    {"rdzv-id", true, true, [](Options& o, const std::string&, const std::string& v) { o.run_id = v; }},
    {"module", false, true,
     [](Options& o, const std::string& f, const std::string& v) { o.module = parse_bool(f, v); }},
    {"no-python", false, true,
     [](Options& o, const std::string& f, const std::string& v) { o.no_python = parse_bool(f, v); }},
    {"local-ranks-filter", true, true,
     [](Options& o, const std::string& f, const std::string& v) {
       o.local_ranks_filter.clear();
       size_t start = 0;
       while (true) {
         size_t comma = v.find(',', start);
         o.local_ranks_filter.push_back(static_cast<int>(
             parse_long(f, v.substr(start, comma == std::string::npos ? comma : comma - start), 0, 4095)));
         if (comma == std::string::npos) break;
         start = comma + 1;
       }
     }},
    {"log-line-prefix-template", true, true,
     [](Options& o, const std::string&, const std::string& v) { o.log_line_prefix_template = v; }},
    // Accepted with the one value that means what tessera-run does anyway.
    {"max-restarts", true, true,
     [](Options&, const std::string& f, const std::string& v) {
       if (parse_long(f, v, 0, 1000000) != 0)
         unsupported(f, "workers are not restarted; a failure ends the run (use --max-restarts 0)");
     }},
    {"rdzv-backend", true, true,
     [](Options&, const std::string& f, const std::string& v) {
       if (v != "static")
         unsupported(f, "there is no rendezvous ('" + v +
                            "'); use static, with --nnodes, "
                            "--node-rank, --master-addr and --master-port");
     }},
    // tessera-run reacts to exits and signals at once, and runs programs
    // rather than Python functions: these two change nothing.
    {"monitor-interval", true, true,
     [](Options&, const std::string& f, const std::string& v) { parse_seconds(f, v); }},
    {"start-method", true, true,
     [](Options&, const std::string& f, const std::string& v) {
       if (v != "spawn" && v != "fork" && v != "forkserver")
         fail(f, "invalid choice '" + v + "' (choose from spawn, fork, forkserver)");
     }},
    {"rdzv-endpoint", true, false,
     [](Options&, const std::string& f, const std::string&) {
       unsupported(f, "use --master-addr and --master-port");
     }},
    {"rdzv-conf", true, false,
     [](Options&, const std::string& f, const std::string&) { unsupported(f, "there is no rendezvous"); }},
    {"run-path", false, false,
     [](Options&, const std::string& f, const std::string&) {
       unsupported(f, "the program always runs in a process of its own");
     }},
    {"log-dir", true, false,
     [](Options&, const std::string& f, const std::string&) {
       unsupported(f, "redirect tessera-run's output instead (--prefix-rank tells ranks apart)");
     }},
    {"redirects", true, false,
     [](Options&, const std::string& f, const std::string&) {
       unsupported(f, "redirect tessera-run's output instead (--prefix-rank tells ranks apart)");
     }},
    {"tee", true, false,
     [](Options&, const std::string& f, const std::string&) {
       unsupported(f, "redirect tessera-run's output instead (--prefix-rank tells ranks apart)");
     }},
    {"prefix-rank", false, false,
     [](Options& o, const std::string& f, const std::string& v) {
       if (parse_bool(f, v)) o.log_line_prefix_template = "[rank${rank}]:";
     }},
    {"grace-period", true, false,
     [](Options& o, const std::string& f, const std::string& v) { o.grace_period_s = parse_seconds(f, v); }},
};

const Flag* find_flag(std::string_view name) {
  std::string dashed(name);
  std::replace(dashed.begin(), dashed.end(), '_', '-');
  for (const Flag& f : kFlags)
    if (dashed == f.name) return &f;
  return nullptr;
}

// torchrun's short forms.
std::string_view long_name_of_short(std::string_view a) {
  if (a == "-m") return "module";
  if (a == "-r") return "redirects";
  if (a == "-t") return "tee";
  return {};
}

void apply_pet_defaults(Options& o) {
  for (const Flag& f : kFlags) {
    if (!f.from_pet) continue;
    std::string var = "PET_" + std::string(f.name);
    for (char& c : var) c = c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (const char* v = std::getenv(var.c_str())) f.apply(o, var, v);
  }
}

void check_consistency(const Options& o) {
  if (o.command.empty()) throw UsageError("no program given");
  if (o.node_rank >= o.nnodes)
    fail("--node-rank", std::to_string(o.node_rank) + " is not below --nnodes " + std::to_string(o.nnodes));
  if (o.standalone && o.nnodes != 1)
    fail("--standalone", "runs a single node, but --nnodes is " + std::to_string(o.nnodes));
  if (o.module && o.no_python)
    throw UsageError("don't use both the '--no-python' flag and the '--module' flag at the same time");
}

}  // namespace

Options parse_options(int argc, char** argv) {
  Options o;
  apply_pet_defaults(o);
  int i = 1;
  for (; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a == "--") {
      ++i;
      break;
    }
    if (a.size() < 2 || a[0] != '-') break;  // the program
    if (a == "-h" || a == "--help") throw HelpRequested{};

    std::string_view name = long_name_of_short(a);
    std::string_view inline_value;
    bool has_inline_value = false;
    if (name.empty()) {
      if (a.substr(0, 2) != "--") throw UsageError("unrecognized option " + std::string(a));
      name = a.substr(2);
      if (size_t eq = name.find('='); eq != std::string_view::npos) {
        inline_value = name.substr(eq + 1);
        has_inline_value = true;
        name = name.substr(0, eq);
      }
    }
    const Flag* flag = find_flag(name);
    std::string label = "--" + std::string(name);
    if (!flag) throw UsageError("unrecognized option " + label);
    if (!flag->takes_value) {
      if (has_inline_value) fail(label, "takes no value");
      flag->apply(o, label, "1");
    } else if (has_inline_value) {
      flag->apply(o, label, std::string(inline_value));
    } else {
      if (i + 1 == argc) fail(label, "expected a value");
      flag->apply(o, label, argv[++i]);
    }
  }
  for (; i < argc; ++i) o.command.emplace_back(argv[i]);
  check_consistency(o);
  return o;
}

}  // namespace tessera_run

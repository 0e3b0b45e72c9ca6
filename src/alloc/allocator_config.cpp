// TSR_ALLOC_CONF: PyTorch's PYTORCH_CUDA_ALLOC_CONF syntax and rules
// (c10/core/AllocatorConfig.cpp, parseArgs and its parse* helpers), with
// stricter syntax checks and messages that name the key and what it accepts.
//
// Where tessera departs from PyTorch, on purpose:
// - A trailing ',' (top level or inside a table) is an error; PyTorch
//   silently accepts it.
// - Numbers must be plain decimal digits ("-5", "0x10", "8>" are errors);
//   PyTorch's stoi/stoul take a prefix and wrap negatives.
// - max_split_size_mb must be >= 20, as PyTorch 2.x checks
//   (c10/core/AllocatorConfig.cpp parseMaxSplitSize; 1.x required > 20).
// - In a table, '>' fills the intervals after the last sized entry (PyTorch
//   2.8's fix; earlier 2.x also overwrote that entry), or every interval when
//   it comes first (PyTorch 2.8 would leave interval 0 unset then).
// - expandable_segments also takes "true"/"false".
#include "alloc/allocator_config.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <charconv>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <vector>

#include "core/error.h"

namespace tsr::alloc {
namespace {

constexpr size_t kMB = size_t{1} << 20;
// PyTorch's kLargeBuffer / kMB: below this, max_split_size would stop the
// 20 MiB segments of 1-10 MiB requests from being shared at all.
constexpr size_t kMinMaxSplitSizeMb = 20;
// Interval 0 holds sizes from 2^20 (1 MiB): PyTorch's kRoundUpPowerOfTwoStart.
constexpr int kFirstIntervalLog2 = 20;

constexpr const char* kAcceptedKeys =
    "max_split_size_mb, roundup_power2_divisions, garbage_collection_threshold, "
    "expandable_segments";
constexpr const char* kSplitAccepts = "an integer number of MiB >= 20";
constexpr const char* kDivisionsAccepts =
    "a power of 2 (1, 2, 4, ...) for every size, or a table such as "
    "[64:8,256:4,>:1] mapping power-of-2 sizes in MiB (or '>' for every larger "
    "size) to 0 or a power of 2";
constexpr const char* kThresholdAccepts = "a number strictly between 0.0 and 1.0";
constexpr const char* kBoolAccepts = "True or False";

template <typename... Args>
[[noreturn]] void bad(const Args&... args) {
  fail(TSR_ERR_INVALID_ARGUMENT, "TSR_ALLOC_CONF: ", args...);
}

bool is_punct(char c) { return c == ',' || c == ':' || c == '[' || c == ']'; }
bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

// PyTorch's lexArgs: ',' ':' '[' ']' are tokens of their own, everything
// between them a word. Unlike PyTorch, blanks separate words instead of
// vanishing, so "max split" is two words (an unknown key), not "maxsplit".
std::vector<std::string> lex(std::string_view text) {
  std::vector<std::string> tokens;
  std::string word;
  auto flush = [&] {
    if (!word.empty()) tokens.push_back(std::move(word));
    word.clear();
  };
  for (char c : text) {
    if (is_punct(c)) {
      flush();
      tokens.emplace_back(1, c);
    } else if (is_space(c)) {
      flush();
    } else {
      word += c;
    }
  }
  flush();
  return tokens;
}

// Walks the tokens; every failure names what was expected and what came.
class Tokens {
 public:
  explicit Tokens(std::vector<std::string> t) : t_(std::move(t)) {}
  bool at_end() const { return i_ == t_.size(); }
  const std::string& peek() const { return t_[i_]; }
  // "'x'" or "the end of the text": for messages.
  std::string seen() const { return at_end() ? "the end of the text" : str("'", t_[i_], "'"); }

  // The next token, which must be the punctuation c.
  void expect(char c, std::string_view after) {
    if (at_end() || t_[i_] != std::string(1, c))
      bad("expected '", c, "' after ", after, ", got ", seen());
    ++i_;
  }
  // The next token, which must be a word: a key's value or a table entry.
  const std::string& word(std::string_view what, std::string_view accepted) {
    if (at_end() || is_punct(t_[i_][0]))
      bad(what, ": expected a value (", accepted, "), got ", seen());
    return t_[i_++];
  }
  const std::string& next() { return t_[i_++]; }

 private:
  std::vector<std::string> t_;
  size_t i_ = 0;
};

// Plain decimal digits only.
size_t to_size(const std::string& token, std::string_view what, std::string_view accepted) {
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), v);
  if (ec == std::errc::result_out_of_range)
    bad(what, ": '", token, "' is out of range (", accepted, ")");
  if (ec != std::errc() || end != token.data() + token.size())
    bad(what, ": '", token, "' is not ", accepted);
  return static_cast<size_t>(v);
}

void parse_max_split_size(Tokens& t, AllocatorConfig& c) {
  t.expect(':', "'max_split_size_mb'");
  size_t mb = to_size(t.word("max_split_size_mb", kSplitAccepts), "max_split_size_mb",
                      kSplitAccepts);
  if (mb < kMinMaxSplitSizeMb)
    bad("max_split_size_mb too small, must be >= ", kMinMaxSplitSizeMb, " (got ", mb, ")");
  // As PyTorch: a huge value means "no limit" rather than an overflow.
  c.max_split_size = std::min(mb, std::numeric_limits<size_t>::max() / kMB) * kMB;
}

void parse_garbage_collection_threshold(Tokens& t, AllocatorConfig& c) {
  t.expect(':', "'garbage_collection_threshold'");
  const std::string& token = t.word("garbage_collection_threshold", kThresholdAccepts);
  double v = 0;
  auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), v);
  if (ec != std::errc() || end != token.data() + token.size())
    bad("garbage_collection_threshold: '", token, "' is not ", kThresholdAccepts);
  // Written so that NaN fails too.
  if (!(v > 0.0 && v < 1.0))
    bad("garbage_collection_threshold must be ", kThresholdAccepts, ", got ", token);
  c.garbage_collection_threshold = v;
}

void parse_expandable_segments(Tokens& t, AllocatorConfig& c) {
  t.expect(':', "'expandable_segments'");
  const std::string& v = t.word("expandable_segments", kBoolAccepts);
  if (v == "True" || v == "true") c.expandable_segments = true;
  else if (v == "False" || v == "false") c.expandable_segments = false;
  else bad("expandable_segments must be ", kBoolAccepts, ", got '", v, "'");
}

// "[size_mb:divisions,...,>:divisions]", PyTorch's loop: a sized entry sets
// its interval (log2 of the MiB, clamped to the table); the first one also
// sets every interval below it; '>' sets every interval after the last one.
void parse_divisions_table(Tokens& t, AllocatorConfig& c) {
  auto& table = c.roundup_power2_divisions;
  std::optional<size_t> last_index;
  if (!t.at_end() && t.peek() == "]") {  // "[]": nothing set
    t.next();
    return;
  }
  while (true) {
    if (t.at_end()) bad("roundup_power2_divisions: missing ']' closing the table");
    const std::string& interval =
        t.word("roundup_power2_divisions", "a table entry size_mb:divisions or >:divisions");
    const std::string entry_what = str("roundup_power2_divisions entry '", interval, "'");
    t.expect(':', entry_what);
    size_t divisions = to_size(t.word(entry_what, "0 or a power of 2"), entry_what,
                               "0 or a power of 2");
    if (divisions != 0 && !std::has_single_bit(divisions))
      bad(entry_what, ": divisions must be 0 or a power of 2, got ", divisions);

    if (interval == ">") {
      size_t from = last_index ? *last_index + 1 : 0;
      std::fill(table.begin() + std::min(from, table.size()), table.end(), divisions);
    } else {
      size_t mb = to_size(interval, "roundup_power2_divisions",
                          "a table entry size_mb:divisions with size_mb a power of 2, or "
                          ">:divisions");
      if (!std::has_single_bit(mb))
        bad("roundup_power2_divisions: interval ", mb,
            " MiB must be a power of 2 (1, 2, 4, ...) or '>'");
      size_t index = std::min<size_t>(std::bit_width(mb) - 1, table.size() - 1);
      if (!last_index) std::fill(table.begin(), table.begin() + index, divisions);
      table[index] = divisions;
      last_index = index;
    }

    if (t.at_end()) bad("roundup_power2_divisions: missing ']' closing the table");
    const std::string& sep = t.next();
    if (sep == "]") return;
    if (sep != ",")
      bad("roundup_power2_divisions: expected ',' or ']' after entry '", interval, "', got '",
          sep, "'");
    if (t.at_end()) bad("roundup_power2_divisions: missing ']' closing the table");
    if (t.peek() == "]") bad("roundup_power2_divisions: expected an entry after ',', got ']'");
  }
}

void parse_roundup_power2_divisions(Tokens& t, AllocatorConfig& c) {
  t.expect(':', "'roundup_power2_divisions'");
  if (!t.at_end() && t.peek() == "[") {
    t.next();
    parse_divisions_table(t, c);
    return;
  }
  // The single-value form (PyTorch keeps it for backward compatibility):
  // one power of 2 for every interval; 0 is not accepted here.
  const std::string& token = t.word("roundup_power2_divisions", kDivisionsAccepts);
  size_t v = to_size(token, "roundup_power2_divisions", kDivisionsAccepts);
  if (!std::has_single_bit(v))
    bad("roundup_power2_divisions must be ", kDivisionsAccepts, "; got ", v);
  c.roundup_power2_divisions.fill(v);
}

}  // namespace

size_t AllocatorConfig::divisions_for(size_t size) const {
  // floor(log2(size)) - 20, clamped to the table; size 0 counts as tiny.
  int log_size = size == 0 ? 0 : std::bit_width(size) - 1;
  int index = std::clamp(log_size - kFirstIntervalLog2, 0,
                         static_cast<int>(kRoundUpPowerOfTwoIntervals) - 1);
  return roundup_power2_divisions[static_cast<size_t>(index)];
}

AllocatorConfig parse_allocator_config(std::string_view text) {
  // Every parse starts from the defaults, as PyTorch's parseArgs does.
  AllocatorConfig c;
  c.text = std::string(text);
  Tokens t(lex(text));
  while (!t.at_end()) {
    const std::string& key = t.next();
    if (is_punct(key[0])) bad("expected a key (", kAcceptedKeys, "), got '", key, "'");
    if (key == "max_split_size_mb") parse_max_split_size(t, c);
    else if (key == "roundup_power2_divisions") parse_roundup_power2_divisions(t, c);
    else if (key == "garbage_collection_threshold") parse_garbage_collection_threshold(t, c);
    else if (key == "expandable_segments") parse_expandable_segments(t, c);
    else bad("unknown key '", key, "'; accepted keys: ", kAcceptedKeys);

    if (t.at_end()) break;
    t.expect(',', str("the value of '", key, "'"));
    if (t.at_end()) bad("expected a key after ',', got the end of the text (trailing ',')");
  }
  return c;
}

namespace {

// The settings in force. Leaked on purpose: allocators live until exit and
// may read the settings from static destructors.
struct GlobalConfig {
  std::mutex mu;
  bool initialized = false;  // TSR_ALLOC_CONF read, or something set
  std::shared_ptr<const AllocatorConfig> current;
  // While TSR_ALLOC_CONF is invalid and nothing was set: its error.
  bool failed = false;
  tsr_status error_status = TSR_OK;
  std::string error_message;
};

GlobalConfig& global() {
  static GlobalConfig* g = new GlobalConfig;
  return *g;
}

std::atomic<uint64_t> g_generation{0};

}  // namespace

std::shared_ptr<const AllocatorConfig> allocator_config() {
  GlobalConfig& g = global();
  std::lock_guard<std::mutex> lock(g.mu);
  if (!g.initialized) {
    g.initialized = true;
    const char* env = std::getenv("TSR_ALLOC_CONF");
    try {
      g.current = std::make_shared<const AllocatorConfig>(parse_allocator_config(env ? env : ""));
    } catch (const Error& e) {
      g.failed = true;
      g.error_status = e.status();
      g.error_message = e.what();
    }
  }
  // A fresh exception each time: callers on several threads may hold them.
  if (g.failed) throw Error(g.error_status, g.error_message);
  return g.current;
}

void set_allocator_config(std::string_view text) {
  // Parsed outside the lock; a parse error leaves everything as it was.
  auto parsed = std::make_shared<const AllocatorConfig>(parse_allocator_config(text));
  GlobalConfig& g = global();
  std::lock_guard<std::mutex> lock(g.mu);
  g.current = std::move(parsed);
  g.initialized = true;  // TSR_ALLOC_CONF, read or not, no longer applies
  g.failed = false;
  g.error_message.clear();
  // Bumped after `current` changed, under the lock: whoever sees the new
  // number and calls allocator_config() (same lock) gets the new settings.
  g_generation.fetch_add(1, std::memory_order_release);
}

uint64_t allocator_config_generation() noexcept {
  return g_generation.load(std::memory_order_relaxed);
}

}  // namespace tsr::alloc

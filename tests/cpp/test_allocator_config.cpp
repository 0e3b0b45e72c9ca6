// TSR_ALLOC_CONF parsing (PyTorch's PYTORCH_CUDA_ALLOC_CONF rules) and the
// process-wide settings: every key's accepted values, the divisions table,
// every error, and the environment variable read by the first use.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "alloc/allocator_config.h"
#include "core/error.h"

namespace tsr::alloc {
namespace {

// Plain gtest (the CMake links gtest_main only, no gmock).
::testing::AssertionResult Contains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << text << "'\n  does not contain '" << part << "'";
}
#define EXPECT_CONTAINS(text, part) EXPECT_TRUE(Contains(text, part))

constexpr size_t kMB = size_t{1} << 20;
constexpr size_t kNoLimit = std::numeric_limits<size_t>::max();

// The message of the tsr::Error(TSR_ERR_INVALID_ARGUMENT) that parsing
// `text` throws; fails the test when it does not throw that.
std::string parse_error(const std::string& text) {
  try {
    parse_allocator_config(text);
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), TSR_ERR_INVALID_ARGUMENT) << text;
    return e.what();
  }
  ADD_FAILURE() << "no error for '" << text << "'";
  return "";
}

void expect_defaults(const AllocatorConfig& c) {
  EXPECT_EQ(c.max_split_size, kNoLimit);
  for (size_t d : c.roundup_power2_divisions) EXPECT_EQ(d, 0u);
  EXPECT_EQ(c.garbage_collection_threshold, 0.0);
  EXPECT_FALSE(c.expandable_segments);
}

// divisions_for at both ends of interval i: [2^(20+i), 2^(21+i)).
void expect_interval(const AllocatorConfig& c, size_t i, size_t divisions) {
  EXPECT_EQ(c.divisions_for(size_t{1} << (20 + i)), divisions) << "interval " << i;
  EXPECT_EQ(c.divisions_for((size_t{1} << (21 + i)) - 1), divisions) << "interval " << i;
}

TEST(AllocatorConfig, EmptyTextGivesDefaults) {
  AllocatorConfig c = parse_allocator_config("");
  expect_defaults(c);
  EXPECT_EQ(c.text, "");
  expect_defaults(parse_allocator_config("  \t "));
}

TEST(AllocatorConfig, KeepsTheText) {
  std::string text = " max_split_size_mb : 40 , expandable_segments:True ";
  EXPECT_EQ(parse_allocator_config(text).text, text);
}

TEST(AllocatorConfig, MaxSplitSizeMb) {
  EXPECT_EQ(parse_allocator_config("max_split_size_mb:21").max_split_size, 21 * kMB);
  EXPECT_EQ(parse_allocator_config("max_split_size_mb:40").max_split_size, 40 * kMB);
  EXPECT_EQ(parse_allocator_config("  max_split_size_mb :\t512  ").max_split_size, 512 * kMB);
  // Too large to multiply: clamped, as PyTorch does.
  EXPECT_EQ(parse_allocator_config("max_split_size_mb:18446744073709551615").max_split_size,
            (kNoLimit / kMB) * kMB);
}

TEST(AllocatorConfig, MaxSplitSizeMbErrors) {
  EXPECT_CONTAINS(parse_error("max_split_size_mb:2"), "max_split_size_mb too small, must be >= 20");
  EXPECT_CONTAINS(parse_error("max_split_size_mb:19"), "max_split_size_mb too small, must be >= 20 (got 19)");
  EXPECT_EQ(parse_allocator_config("max_split_size_mb:20").max_split_size, size_t{20} << 20);
  EXPECT_CONTAINS(parse_error("max_split_size_mb:0"), "too small");
  for (const char* v : {"-5", "abc", "40.5", "0x40", "+40", "40MB"})
    EXPECT_CONTAINS(parse_error(std::string("max_split_size_mb:") + v), std::string("max_split_size_mb: '") + v +
                          "' is not an integer number of MiB >= 20");
  EXPECT_CONTAINS(parse_error("max_split_size_mb:99999999999999999999999"), "max_split_size_mb: '99999999999999999999999' is out of range");
}

TEST(AllocatorConfig, RoundupPower2DivisionsSingleValue) {
  AllocatorConfig c = parse_allocator_config("roundup_power2_divisions:4");
  for (size_t i = 0; i < kRoundUpPowerOfTwoIntervals; ++i) expect_interval(c, i, 4);
  c = parse_allocator_config("roundup_power2_divisions:1");
  for (size_t i = 0; i < kRoundUpPowerOfTwoIntervals; ++i) expect_interval(c, i, 1);
  c = parse_allocator_config("roundup_power2_divisions : 16");
  EXPECT_EQ(c.divisions_for(512), 16u);
}

TEST(AllocatorConfig, RoundupPower2DivisionsSingleValueErrors) {
  // 0 is only accepted inside a table (PyTorch's rule).
  for (const char* v : {"3", "0", "6", "12"})
    EXPECT_CONTAINS(parse_error(std::string("roundup_power2_divisions:") + v), "roundup_power2_divisions must be a power of 2");
  EXPECT_CONTAINS(parse_error("roundup_power2_divisions:3"), "got 3");
  EXPECT_CONTAINS(parse_error("roundup_power2_divisions:four"), "roundup_power2_divisions: 'four' is not a power of 2");
  EXPECT_CONTAINS(parse_error("roundup_power2_divisions:"), "roundup_power2_divisions: expected a value (a power of 2");
}

// The brief's example: the first entry fills every interval below it, '>'
// every interval after the last entry.
TEST(AllocatorConfig, DivisionsTable) {
  AllocatorConfig c = parse_allocator_config("roundup_power2_divisions:[256:1,512:2,>:4]");
  EXPECT_EQ(c.divisions_for(size_t{1} << 28), 1u);
  for (size_t i = 0; i <= 8; ++i) expect_interval(c, i, 1);
  expect_interval(c, 9, 2);
  for (size_t i = 10; i < kRoundUpPowerOfTwoIntervals; ++i) expect_interval(c, i, 4);
  // Below 1 MiB counts as interval 0, above 64 GiB as interval 15.
  EXPECT_EQ(c.divisions_for(0), 1u);
  EXPECT_EQ(c.divisions_for(512), 1u);
  EXPECT_EQ(c.divisions_for(size_t{1} << 40), 4u);
  EXPECT_EQ(c.divisions_for(kNoLimit), 4u);
}

// PyTorch's test_cuda.py example.
TEST(AllocatorConfig, DivisionsTableTestCuda) {
  AllocatorConfig c =
      parse_allocator_config("roundup_power2_divisions:[64:8,128:2,256:2,512:2,1024:1,>:1]");
  for (size_t i = 0; i <= 6; ++i) expect_interval(c, i, 8);
  for (size_t i = 7; i <= 9; ++i) expect_interval(c, i, 2);
  for (size_t i = 10; i < kRoundUpPowerOfTwoIntervals; ++i) expect_interval(c, i, 1);
}

// PyTorch's c10/test/core/AllocatorConfig_test.cpp expectations.
TEST(AllocatorConfig, DivisionsTableC10Test) {
  AllocatorConfig c =
      parse_allocator_config("roundup_power2_divisions:[64:8,128:2,256:4,512:2,1024:4,>:1]");
  EXPECT_EQ(c.divisions_for(32 * kMB), 8u);
  EXPECT_EQ(c.divisions_for(64 * kMB), 8u);
  EXPECT_EQ(c.divisions_for(128 * kMB), 2u);
  EXPECT_EQ(c.divisions_for(256 * kMB), 4u);
  EXPECT_EQ(c.divisions_for(512 * kMB), 2u);
  EXPECT_EQ(c.divisions_for(1024 * kMB), 4u);
  EXPECT_EQ(c.divisions_for(2048 * kMB), 1u);
  EXPECT_EQ(c.divisions_for(4096 * kMB), 1u);
  EXPECT_EQ(c.divisions_for(8192 * kMB), 1u);
}

TEST(AllocatorConfig, DivisionsTableEdgeCases) {
  // '>' first: every interval.
  AllocatorConfig c = parse_allocator_config("roundup_power2_divisions:[>:2]");
  for (size_t i = 0; i < kRoundUpPowerOfTwoIntervals; ++i) expect_interval(c, i, 2);
  // Empty table: nothing set.
  expect_defaults(parse_allocator_config("roundup_power2_divisions:[]"));
  // 1 MiB is interval 0; later intervals keep 0.
  c = parse_allocator_config("roundup_power2_divisions:[1:4]");
  expect_interval(c, 0, 4);
  for (size_t i = 1; i < kRoundUpPowerOfTwoIntervals; ++i) expect_interval(c, i, 0);
  // Sizes past 32 GiB clamp to the last interval.
  c = parse_allocator_config("roundup_power2_divisions:[65536:2]");
  for (size_t i = 0; i < kRoundUpPowerOfTwoIntervals; ++i) expect_interval(c, i, 2);
  // Out of order: the first entry fills below itself, later ones set one each.
  c = parse_allocator_config("roundup_power2_divisions:[512:2,256:1]");
  for (size_t i = 0; i <= 7; ++i) expect_interval(c, i, 2);
  expect_interval(c, 8, 1);
  expect_interval(c, 9, 2);
  for (size_t i = 10; i < kRoundUpPowerOfTwoIntervals; ++i) expect_interval(c, i, 0);
  // 0 turns rounding off for an interval; whitespace anywhere between tokens.
  c = parse_allocator_config("roundup_power2_divisions: [ 64 : 0 , > : 8 ] ");
  for (size_t i = 0; i <= 6; ++i) expect_interval(c, i, 0);
  for (size_t i = 7; i < kRoundUpPowerOfTwoIntervals; ++i) expect_interval(c, i, 8);
}

TEST(AllocatorConfig, DivisionsTableErrors) {
  EXPECT_CONTAINS(parse_error("roundup_power2_divisions:[100:2]"), "roundup_power2_divisions: interval 100 MiB must be a power of 2");
  EXPECT_CONTAINS(parse_error("roundup_power2_divisions:[0:2]"), "interval 0 MiB must be a power of 2");
  EXPECT_CONTAINS(parse_error("roundup_power2_divisions:[64:3]"), "roundup_power2_divisions entry '64': divisions must be 0 or a power "
                        "of 2, got 3");
  EXPECT_CONTAINS(parse_error("roundup_power2_divisions:[>:5]"), "entry '>': divisions must be 0 or a power of 2, got 5");
  EXPECT_CONTAINS(parse_error("roundup_power2_divisions:[abc:2]"), "roundup_power2_divisions: 'abc' is not a table entry");
  EXPECT_CONTAINS(parse_error("roundup_power2_divisions:[64:x]"), "entry '64': 'x' is not 0 or a power of 2");
  EXPECT_CONTAINS(parse_error("roundup_power2_divisions:[64:8;128:2]"), "'8;128' is not 0 or a power of 2");
  EXPECT_CONTAINS(parse_error("roundup_power2_divisions:[64 8]"), "expected ':' after roundup_power2_divisions entry '64', got '8'");
  EXPECT_CONTAINS(parse_error("roundup_power2_divisions:[64:]"), "entry '64': expected a value (0 or a power of 2), got ']'");
  EXPECT_CONTAINS(parse_error("roundup_power2_divisions:[:2]"), "roundup_power2_divisions: expected a value (a table entry");
  EXPECT_CONTAINS(parse_error("roundup_power2_divisions:[64:8 128:2]"), "expected ',' or ']' after entry '64', got '128'");
  EXPECT_CONTAINS(parse_error("roundup_power2_divisions:[64:8,]"), "expected an entry after ',', got ']'");
  for (const char* unclosed : {"[", "[64:8", "[64:8,", "[64:8,128:2"})
    EXPECT_CONTAINS(parse_error(std::string("roundup_power2_divisions:") + unclosed), "roundup_power2_divisions: missing ']' closing the table")
        << unclosed;
  EXPECT_CONTAINS(parse_error("roundup_power2_divisions:[64:8]]"), "expected ',' after the value of 'roundup_power2_divisions', got ']'");
}

TEST(AllocatorConfig, GarbageCollectionThreshold) {
  EXPECT_EQ(parse_allocator_config("garbage_collection_threshold:0.5")
                .garbage_collection_threshold,
            0.5);
  EXPECT_EQ(parse_allocator_config("garbage_collection_threshold:0.999")
                .garbage_collection_threshold,
            0.999);
  EXPECT_EQ(parse_allocator_config("garbage_collection_threshold: 1e-3 ")
                .garbage_collection_threshold,
            1e-3);
  EXPECT_EQ(parse_allocator_config("garbage_collection_threshold:.25")
                .garbage_collection_threshold,
            0.25);
}

TEST(AllocatorConfig, GarbageCollectionThresholdErrors) {
  for (const char* v : {"1.2", "0", "1", "1.0", "-0.1", "nan", "inf"})
    EXPECT_CONTAINS(parse_error(std::string("garbage_collection_threshold:") + v), std::string("garbage_collection_threshold must be a number strictly "
                                      "between 0.0 and 1.0, got ") + v)
        << v;
  for (const char* v : {"abc", "0.5x", "0,5"}) {
    std::string msg = parse_error(std::string("garbage_collection_threshold:") + v);
    EXPECT_CONTAINS(msg, "garbage_collection_threshold") << v;
  }
  EXPECT_CONTAINS(parse_error("garbage_collection_threshold:abc"), "garbage_collection_threshold: 'abc' is not a number strictly between "
                        "0.0 and 1.0");
  EXPECT_CONTAINS(parse_error("garbage_collection_threshold:"), "garbage_collection_threshold: expected a value (a number strictly "
                        "between 0.0 and 1.0), got the end of the text");
}

TEST(AllocatorConfig, ExpandableSegments) {
  EXPECT_TRUE(parse_allocator_config("expandable_segments:True").expandable_segments);
  EXPECT_TRUE(parse_allocator_config("expandable_segments:true").expandable_segments);
  EXPECT_FALSE(parse_allocator_config("expandable_segments:False").expandable_segments);
  EXPECT_FALSE(parse_allocator_config("expandable_segments:false").expandable_segments);
}

TEST(AllocatorConfig, ExpandableSegmentsErrors) {
  for (const char* v : {"maybe", "TRUE", "1", "yes"})
    EXPECT_CONTAINS(parse_error(std::string("expandable_segments:") + v), std::string("expandable_segments must be True or False, got '") + v +
                          "'");
  EXPECT_CONTAINS(parse_error("expandable_segments:,max_split_size_mb:40"), "expandable_segments: expected a value (True or False), got ','");
}

TEST(AllocatorConfig, AllKeysTogether) {
  AllocatorConfig c = parse_allocator_config(
      "max_split_size_mb:40, garbage_collection_threshold:0.6,"
      "roundup_power2_divisions:[256:1,512:2,>:4] ,expandable_segments:True");
  EXPECT_EQ(c.max_split_size, 40 * kMB);
  EXPECT_EQ(c.garbage_collection_threshold, 0.6);
  EXPECT_EQ(c.divisions_for(256 * kMB), 1u);
  EXPECT_EQ(c.divisions_for(512 * kMB), 2u);
  EXPECT_EQ(c.divisions_for(1024 * kMB), 4u);
  EXPECT_TRUE(c.expandable_segments);
}

TEST(AllocatorConfig, LaterKeyWins) {
  AllocatorConfig c = parse_allocator_config(
      "max_split_size_mb:40,max_split_size_mb:80,roundup_power2_divisions:[64:8],"
      "roundup_power2_divisions:2");
  EXPECT_EQ(c.max_split_size, 80 * kMB);
  for (size_t i = 0; i < kRoundUpPowerOfTwoIntervals; ++i) expect_interval(c, i, 2);
}

TEST(AllocatorConfig, SyntaxErrors) {
  EXPECT_EQ(parse_error("nonsense:1"),
            "TSR_ALLOC_CONF: unknown key 'nonsense'; accepted keys: max_split_size_mb, "
            "roundup_power2_divisions, garbage_collection_threshold, expandable_segments");
  // Keys are case sensitive, as in PyTorch; PyTorch-only keys are unknown.
  EXPECT_CONTAINS(parse_error("Max_Split_Size_MB:40"), "unknown key 'Max_Split_Size_MB'");
  EXPECT_CONTAINS(parse_error("backend:native"), "unknown key 'backend'");
  // Blanks separate words: no key hides a blank.
  EXPECT_CONTAINS(parse_error("max split_size_mb:40"), "unknown key 'max'");
  EXPECT_CONTAINS(parse_error("max_split_size_mb"), "expected ':' after 'max_split_size_mb', got the end of the text");
  EXPECT_CONTAINS(parse_error("max_split_size_mb 40"), "expected ':' after 'max_split_size_mb', got '40'");
  EXPECT_CONTAINS(parse_error("max_split_size_mb=40"), "unknown key 'max_split_size_mb=40'");
  EXPECT_CONTAINS(parse_error("max_split_size_mb:"), "max_split_size_mb: expected a value (an integer number of MiB >= 20), "
                        "got the end of the text");
  EXPECT_CONTAINS(parse_error("max_split_size_mb::40"), "max_split_size_mb: expected a value (an integer number of MiB >= 20), "
                        "got ':'");
  EXPECT_CONTAINS(parse_error("max_split_size_mb:40,"), "expected a key after ',', got the end of the text (trailing ',')");
  EXPECT_CONTAINS(parse_error(",max_split_size_mb:40"), "expected a key (max_split_size_mb, roundup_power2_divisions, "
                        "garbage_collection_threshold, expandable_segments), got ','");
  EXPECT_CONTAINS(parse_error("max_split_size_mb:40,,expandable_segments:True"), "expected a key");
  EXPECT_CONTAINS(parse_error(":40"), "expected a key");
  EXPECT_CONTAINS(parse_error("[64:8]"), "expected a key");
  EXPECT_CONTAINS(parse_error("max_split_size_mb:40 expandable_segments:True"), "expected ',' after the value of 'max_split_size_mb', got "
                        "'expandable_segments'");
  EXPECT_CONTAINS(parse_error("expandable_segments:True:False"), "expected ',' after the value of 'expandable_segments', got ':'");
  // Every message starts with the variable's name.
  EXPECT_EQ(parse_error("max_split_size_mb:2").rfind("TSR_ALLOC_CONF: ", 0), 0u);
}

// PyTorch's parseArgs starts from the defaults each time: a later text
// without a key resets that key.
TEST(AllocatorConfig, EachParseStartsFromDefaults) {
  set_allocator_config("roundup_power2_divisions:[256:1,>:4],max_split_size_mb:40");
  EXPECT_EQ(allocator_config()->divisions_for(512 * kMB), 4u);
  set_allocator_config("garbage_collection_threshold:0.5");
  auto c = allocator_config();
  EXPECT_EQ(c->garbage_collection_threshold, 0.5);
  EXPECT_EQ(c->max_split_size, kNoLimit);
  for (size_t d : c->roundup_power2_divisions) EXPECT_EQ(d, 0u);
  set_allocator_config("");
}

TEST(AllocatorConfig, SetReplacesAndBumpsTheGeneration) {
  set_allocator_config("max_split_size_mb:64");
  uint64_t gen = allocator_config_generation();
  auto before = allocator_config();
  EXPECT_EQ(before->max_split_size, 64 * kMB);
  EXPECT_EQ(before->text, "max_split_size_mb:64");

  set_allocator_config("expandable_segments:True");
  EXPECT_EQ(allocator_config_generation(), gen + 1);
  auto after = allocator_config();
  EXPECT_TRUE(after->expandable_segments);
  EXPECT_EQ(after->max_split_size, kNoLimit);
  // A holder of the old settings keeps them intact.
  EXPECT_EQ(before->max_split_size, 64 * kMB);
  EXPECT_FALSE(before->expandable_segments);
  // Setting the same text again is still a change.
  set_allocator_config("expandable_segments:True");
  EXPECT_EQ(allocator_config_generation(), gen + 2);
  set_allocator_config("");
}

TEST(AllocatorConfig, FailedSetChangesNothing) {
  set_allocator_config("max_split_size_mb:64");
  uint64_t gen = allocator_config_generation();
  auto before = allocator_config();
  for (const char* bad :
       {"nonsense:1", "max_split_size_mb:2", "garbage_collection_threshold:1.2",
        "garbage_collection_threshold:0", "roundup_power2_divisions:3",
        "roundup_power2_divisions:[100:2]", "expandable_segments:maybe",
        "max_split_size_mb:40,", "roundup_power2_divisions:[64:8", "max_split_size_mb"}) {
    try {
      set_allocator_config(bad);
      ADD_FAILURE() << "no error for '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_EQ(e.status(), TSR_ERR_INVALID_ARGUMENT) << bad;
    }
    EXPECT_EQ(allocator_config_generation(), gen) << bad;
    EXPECT_EQ(allocator_config(), before) << bad;
  }
  set_allocator_config("");
}

// Readers on several threads while another sets: every reader sees one of
// the texts whole (run under -fsanitize=thread or address to mean more).
TEST(AllocatorConfig, ConcurrentReadersAndSetter) {
  set_allocator_config("max_split_size_mb:40");
  uint64_t gen = allocator_config_generation();
  std::vector<std::thread> readers;
  std::atomic<int> torn{0};
  for (int t = 0; t < 3; ++t)
    readers.emplace_back([&] {
      for (int i = 0; i < 2000; ++i) {
        auto c = allocator_config();
        bool a = c->text == "max_split_size_mb:40" && c->max_split_size == 40 * kMB;
        bool b = c->text == "max_split_size_mb:80" && c->max_split_size == 80 * kMB;
        if (!a && !b) ++torn;
        (void)allocator_config_generation();
      }
    });
  for (int i = 0; i < 500; ++i)
    set_allocator_config(i % 2 ? "max_split_size_mb:40" : "max_split_size_mb:80");
  for (auto& r : readers) r.join();
  EXPECT_EQ(torn.load(), 0);
  EXPECT_EQ(allocator_config_generation(), gen + 500);
  set_allocator_config("");
}

// TSR_ALLOC_CONF is read by the first allocator_config() of a process, so
// these run in a fresh process: a "threadsafe" death test re-executes this
// binary for the one test. The variable is set before the child starts (a
// static initialiser could already read it) and again in the child.
class AllocatorConfigEnv : public ::testing::Test {
 protected:
  void SetUp() override {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    const char* old = std::getenv("TSR_ALLOC_CONF");
    had_ = old != nullptr;
    if (had_) old_ = old;
  }
  void TearDown() override {
    if (had_) setenv("TSR_ALLOC_CONF", old_.c_str(), 1);
    else unsetenv("TSR_ALLOC_CONF");
  }
  bool had_ = false;
  std::string old_;
};

// In the child: exits 0 when `ok`, else prints why and exits 1.
[[noreturn]] void child_exit(bool ok, const std::string& why) {
  if (!ok) std::fprintf(stderr, "child check failed: %s\n", why.c_str());
  std::exit(ok ? 0 : 1);
}

TEST_F(AllocatorConfigEnv, ValidVariableIsUsed) {
  setenv("TSR_ALLOC_CONF", "max_split_size_mb:64, expandable_segments:True", 1);
  EXPECT_EXIT(
      {
        auto c = allocator_config();
        child_exit(c->max_split_size == 64 * kMB && c->expandable_segments &&
                       c->text == "max_split_size_mb:64, expandable_segments:True" &&
                       allocator_config_generation() == 0 && allocator_config() == c,
                   "settings from TSR_ALLOC_CONF");
      },
      ::testing::ExitedWithCode(0), "");
}

TEST_F(AllocatorConfigEnv, UnsetOrEmptyVariableGivesDefaults) {
  unsetenv("TSR_ALLOC_CONF");
  EXPECT_EXIT(
      {
        auto c = allocator_config();
        child_exit(c->max_split_size == kNoLimit && !c->expandable_segments && c->text.empty(),
                   "defaults without TSR_ALLOC_CONF");
      },
      ::testing::ExitedWithCode(0), "");
  setenv("TSR_ALLOC_CONF", "", 1);
  EXPECT_EXIT(
      {
        auto c = allocator_config();
        child_exit(c->max_split_size == kNoLimit && c->text.empty(),
                   "defaults with an empty TSR_ALLOC_CONF");
      },
      ::testing::ExitedWithCode(0), "");
}

// Every call throws the variable's error, until a set succeeds.
void child_invalid_variable() {
  std::string first;
  std::string second;
  tsr_status status = TSR_OK;
  try { allocator_config(); } catch (const Error& e) { first = e.what(); status = e.status(); }
  try { allocator_config(); } catch (const Error& e) { second = e.what(); }
  bool failing = status == TSR_ERR_INVALID_ARGUMENT &&
                 first.find("unknown key 'nonsense'") != std::string::npos && second == first;
  // A failed set keeps the variable's error.
  try { set_allocator_config("max_split_size_mb:2"); } catch (const Error&) {}
  std::string third;
  try { allocator_config(); } catch (const Error& e) { third = e.what(); }
  set_allocator_config("max_split_size_mb:64");
  auto c = allocator_config();
  child_exit(failing && third == first && c->max_split_size == 64 * kMB &&
                 allocator_config_generation() == 1,
             "error '" + first + "', then '" + second + "', then '" + third + "'");
}

TEST_F(AllocatorConfigEnv, InvalidVariableFailsEveryCallUntilSet) {
  setenv("TSR_ALLOC_CONF", "nonsense:1", 1);
  EXPECT_EXIT(child_invalid_variable(), ::testing::ExitedWithCode(0), "");
}

// A set before the first use wins over the variable, which is never read.
TEST_F(AllocatorConfigEnv, SetBeforeFirstUseIgnoresVariable) {
  setenv("TSR_ALLOC_CONF", "nonsense:1", 1);
  EXPECT_EXIT(
      {
        set_allocator_config("expandable_segments:True");
        auto c = allocator_config();
        child_exit(c->expandable_segments && c->text == "expandable_segments:True",
                   "set before the first use");
      },
      ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace tsr::alloc

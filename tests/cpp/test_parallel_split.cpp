// Where work is cut between threads: parallel_for in guided chunks of at
// least its grain that tile the range, exceptions rethrown after every chunk
// ran; the elementwise helpers of strided_split.h: parallel_for_each_run
// only at multiples of its quantum (so pow's runs are cut on their 64-byte
// blocks, and give the one-thread bits), parallel_dense only at multiples
// of kDenseQuantum; every element exactly once either way.
#include <gtest/gtest.h>

#include <algorithm>
#include <mutex>
#include <stdexcept>
#include <utility>
#include <vector>

#include "cpu/kernels/parallel_for.h"
#include "cpu/kernels/strided_split.h"
#include "cpu/kernels/threads.h"

namespace tsr::kernels {
namespace {

// The [begin, end) pieces a split handed to its body, sorted, and whether
// they tile [0, n) exactly.
struct Pieces {
  std::mutex m;
  std::vector<std::pair<int64_t, int64_t>> v;
  void add(int64_t b, int64_t e) {
    std::lock_guard<std::mutex> lock(m);
    v.emplace_back(b, e);
  }
  bool tile(int64_t n) {
    std::sort(v.begin(), v.end());
    int64_t at = 0;
    for (const auto& [b, e] : v) {
      if (b != at || e <= b) return false;
      at = e;
    }
    return at == n;
  }
};

class ParallelSplit : public ::testing::TestWithParam<int64_t> {
 protected:
  void SetUp() override {
    before_ = num_threads();
    set_num_threads(GetParam());
  }
  void TearDown() override { set_num_threads(before_); }
  int64_t before_ = 1;
};

// Guided chunks (parallel_for.cpp): each a 2 * threads-th of what is left,
// never under the grain but for the last piece, together exactly [0, n).
TEST_P(ParallelSplit, ParallelForTilesTheRangeInChunksOfAtLeastTheGrain) {
  for (int64_t grain : {int64_t(1), int64_t(7), kGrainSize})
    for (int64_t n : {int64_t(1), grain, grain + 1, 10 * grain + 7, 1000 * grain + 3}) {
      Pieces pieces;
      parallel_for(n, grain, [&](int64_t b, int64_t e) { pieces.add(b, e); });
      ASSERT_TRUE(pieces.tile(n)) << "n " << n << ", grain " << grain;
      for (size_t i = 0; i + 1 < pieces.v.size(); ++i)
        EXPECT_GE(pieces.v[i].second - pieces.v[i].first, grain) << "piece " << i << " of n " << n;
      if (GetParam() > 1 && n >= 4 * grain) {
        EXPECT_GT(pieces.v.size(), 2u) << "n " << n << ", grain " << grain;
      }
      if (n <= grain) {
        EXPECT_EQ(pieces.v.size(), 1u);
      }
    }
}

// A chunk that throws: the exception reaches the caller once every other
// chunk has run; the pool then serves the next jobs, many short ones in a
// row (workers that wake after the caller took every chunk find none).
TEST_P(ParallelSplit, ParallelForRethrowsAndKeepsServing) {
  const int64_t n = 64 * kGrainSize;
  Pieces pieces;
  EXPECT_THROW(parallel_for(n, kGrainSize,
                            [&](int64_t b, int64_t e) {
                              pieces.add(b, e);
                              if (b == 0) throw std::runtime_error("chunk 0");
                            }),
               std::runtime_error);
  EXPECT_TRUE(pieces.tile(n));
  for (int job = 0; job < 2000; ++job) {
    Pieces short_job;
    parallel_for(4, 1, [&](int64_t b, int64_t e) { short_job.add(b, e); });
    ASSERT_TRUE(short_job.tile(4)) << "job " << job;
  }
}

// [601, 400] float32 output with a [1, 400] input broadcast over rows: runs
// of 400 elements (the broadcast keeps the dims apart), 240,400 elements,
// which two threads would halve at 120,200: 200 elements into a run.
TEST_P(ParallelSplit, RunsAreCutOnlyAtTheirQuantum) {
  const Shape shape{601, 400};
  auto g = make_geometry<2>(shape, {Shape{1600, 4}, Shape{0, 4}});
  ASSERT_EQ(g.sizes[0], 400);
  std::vector<float> out(601 * 400), row(400);
  char* base = reinterpret_cast<char*>(out.data());
  for (int64_t quantum : {int64_t(16), int64_t(400)}) {
    Pieces pieces;
    parallel_for_each_run<2>(
        g, {base, reinterpret_cast<char*>(row.data())}, 601 * 400,
        [&](char** p, const int64_t*, int64_t n) {
          const int64_t first = (p[0] - base) / int64_t(sizeof(float));
          pieces.add(first, first + n);
        },
        quantum);
    EXPECT_TRUE(pieces.tile(601 * 400)) << "quantum " << quantum;
    bool cut_inside_run = false;
    for (const auto& [b, e] : pieces.v) {
      EXPECT_EQ(b % 400 % quantum, 0) << "a piece starts " << b % 400 << " into its run, quantum " << quantum;
      cut_inside_run |= b % 400 != 0;
    }
    // More than one thread cuts somewhere inside a run at quantum 16.
    if (GetParam() > 1 && quantum == 16) {
      EXPECT_TRUE(cut_inside_run);
    }
  }
}

TEST_P(ParallelSplit, DenseCutsAtMultiplesOfTheQuantum) {
  for (int64_t n : {int64_t(0), int64_t(1000), kGrainSize, int64_t(201113), int64_t(1) << 20}) {
    Pieces pieces;
    ASSERT_TRUE(parallel_dense(n, [&](int64_t b, int64_t e) {
      pieces.add(b, e);
      return true;
    }));
    if (n == 0) {
      EXPECT_EQ(pieces.v.size(), 1u);  // the first call, empty: the kernel's dtype answer
      continue;
    }
    EXPECT_TRUE(pieces.tile(n)) << n;
    for (const auto& [b, e] : pieces.v) EXPECT_EQ(b % kDenseQuantum, 0) << "piece at " << b << " of " << n;
    if (GetParam() > 1 && n > 2 * kGrainSize) {
      EXPECT_GT(pieces.v.size(), 2u) << n;
    }
  }
  // A kernel that refuses the dtype is asked once, and nothing else runs.
  int calls = 0;
  EXPECT_FALSE(parallel_dense(int64_t(1) << 20, [&](int64_t, int64_t) {
    ++calls;
    return false;
  }));
  EXPECT_EQ(calls, 1);
}

INSTANTIATE_TEST_SUITE_P(Threads, ParallelSplit, ::testing::Values(int64_t(1), int64_t(2), int64_t(3)));

}  // namespace
}  // namespace tsr::kernels

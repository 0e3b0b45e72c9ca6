// SmallVector (core/small_vector.h), the type of Shape: inline storage up to
// its capacity, the heap beyond (7+ dims for Shape), copies and moves in
// both states, and the std::vector subset the library uses.
#include <gtest/gtest.h>

#include <numeric>
#include <sstream>
#include <utility>
#include <vector>

#include "core/shape.h"
#include "core/small_vector.h"

namespace tsr {
namespace {

using V = SmallVector<int64_t, 6>;

std::vector<int64_t> vec(const V& v) { return v.to_vector(); }
V iota(size_t n, int64_t from = 0) {
  V v(n, 0);
  std::iota(v.begin(), v.end(), from);
  return v;
}

TEST(SmallVector, ShapeIsInlineUpToSixDims) {
  static_assert(std::is_same_v<Shape, SmallVector<int64_t, 6>>);
  Shape s{1, 2, 3, 4, 5, 6};
  EXPECT_TRUE(s.is_inline());
  EXPECT_EQ(s.capacity(), 6u);
  s.push_back(7);  // the heap-spill path
  EXPECT_FALSE(s.is_inline());
  EXPECT_EQ(vec(s), (std::vector<int64_t>{1, 2, 3, 4, 5, 6, 7}));
}

TEST(SmallVector, Construction) {
  EXPECT_TRUE(V().empty());
  EXPECT_EQ(V().size(), 0u);
  EXPECT_EQ(vec(V(3)), (std::vector<int64_t>{0, 0, 0}));
  EXPECT_EQ(vec(V(size_t(2), int64_t(9))), (std::vector<int64_t>{9, 9}));
  EXPECT_EQ(vec(V(10, 4)), std::vector<int64_t>(10, 4));  // count + value, spilled
  const std::vector<int64_t> src{5, 6, 7, 8, 9, 10, 11, 12};
  EXPECT_EQ(vec(V(src.begin(), src.end())), src);
  EXPECT_EQ(vec(V(src.begin(), src.begin() + 2)), (std::vector<int64_t>{5, 6}));
  EXPECT_EQ(vec(V(src)), src);
  V il = {3, 1, 2};
  EXPECT_EQ(vec(il), (std::vector<int64_t>{3, 1, 2}));
  il = {4};
  EXPECT_EQ(vec(il), std::vector<int64_t>{4});
}

// Copies and moves from inline and from heap sources, into inline and heap
// targets; ASan catches a double free or a leak here.
TEST(SmallVector, CopyAndMove) {
  for (size_t n : {0u, 1u, 6u, 7u, 64u}) {
    const V a = iota(n, 1);
    V copy(a);
    EXPECT_EQ(copy, a);
    EXPECT_EQ(copy.is_inline(), n <= 6);
    if (n) {
      EXPECT_NE(copy.data(), a.data());
    }

    V moved(std::move(copy));
    EXPECT_EQ(moved, a);
    EXPECT_TRUE(copy.empty());  // NOLINT: moved-from is empty and usable
    EXPECT_TRUE(copy.is_inline());
    copy.push_back(42);
    EXPECT_EQ(vec(copy), std::vector<int64_t>{42});

    for (size_t m : {0u, 3u, 6u, 9u}) {
      V target = iota(m, 100);
      target = a;
      EXPECT_EQ(target, a);
      V target2 = iota(m, 200);
      V src = a;
      const int64_t* heap = src.is_inline() ? nullptr : src.data();
      target2 = std::move(src);
      EXPECT_EQ(target2, a);
      if (heap) {
        EXPECT_EQ(target2.data(), heap);  // the heap block is taken over
      }
      EXPECT_TRUE(src.empty());
    }
    V self = a;
    self = *&self;  // self-assignment
    EXPECT_EQ(self, a);
    V s1 = iota(n), s2 = iota(3, 50);
    s1.swap(s2);
    EXPECT_EQ(s1, iota(3, 50));
    EXPECT_EQ(s2, iota(n));
  }
}

TEST(SmallVector, PushBackGrowsPastInline) {
  V v;
  for (int64_t i = 0; i < 100; ++i) {
    v.push_back(i);
    ASSERT_EQ(v.size(), size_t(i + 1));
    ASSERT_EQ(v.back(), i);
    ASSERT_EQ(v.front(), 0);
  }
  EXPECT_EQ(v, iota(100));
  // An element of the vector itself, pushed at the moment it spills.
  V w = iota(6, 1);
  w.push_back(w[0]);
  EXPECT_EQ(vec(w), (std::vector<int64_t>{1, 2, 3, 4, 5, 6, 1}));
  w.pop_back();
  EXPECT_EQ(w, iota(6, 1));
  EXPECT_EQ(w.emplace_back(8), 8);
}

TEST(SmallVector, InsertAndErase) {
  V v{1, 2, 3};
  v.insert(v.begin(), 0);
  v.insert(v.end(), 4);
  v.insert(v.begin() + 2, size_t(2), int64_t(9));
  EXPECT_EQ(vec(v), (std::vector<int64_t>{0, 1, 9, 9, 2, 3, 4}));  // 7: spilled
  const std::vector<int64_t> more{7, 8};
  auto it = v.insert(v.begin() + 1, more.begin(), more.end());
  EXPECT_EQ(*it, 7);
  EXPECT_EQ(vec(v), (std::vector<int64_t>{0, 7, 8, 1, 9, 9, 2, 3, 4}));
  // A range of the vector itself.
  V self{1, 2, 3};
  self.insert(self.begin(), self.begin(), self.end());
  EXPECT_EQ(vec(self), (std::vector<int64_t>{1, 2, 3, 1, 2, 3}));
  self.insert(self.begin() + 3, self.begin(), self.end());
  EXPECT_EQ(vec(self), (std::vector<int64_t>{1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3}));

  it = v.erase(v.begin() + 1);
  EXPECT_EQ(*it, 8);
  v.erase(v.begin(), v.begin() + 2);
  EXPECT_EQ(vec(v), (std::vector<int64_t>{1, 9, 9, 2, 3, 4}));
  v.erase(v.end() - 1);
  EXPECT_EQ(vec(v), (std::vector<int64_t>{1, 9, 9, 2, 3}));
  v.erase(v.begin(), v.begin());  // empty range
  EXPECT_EQ(v.size(), 5u);
  v.insert(v.begin(), {5, 6});
  EXPECT_EQ(vec(v), (std::vector<int64_t>{5, 6, 1, 9, 9, 2, 3}));
}

TEST(SmallVector, ResizeAssignClear) {
  V v{1, 2};
  v.resize(4);
  EXPECT_EQ(vec(v), (std::vector<int64_t>{1, 2, 0, 0}));
  v.resize(9, 7);
  EXPECT_EQ(vec(v), (std::vector<int64_t>{1, 2, 0, 0, 7, 7, 7, 7, 7}));
  v.resize(1);
  EXPECT_EQ(vec(v), std::vector<int64_t>{1});
  v.assign(size_t(3), int64_t(5));
  EXPECT_EQ(vec(v), (std::vector<int64_t>{5, 5, 5}));
  const std::vector<int64_t> src(20, 3);
  v.assign(src.begin(), src.end());
  EXPECT_EQ(vec(v), src);
  v.assign({1, 2});
  EXPECT_EQ(vec(v), (std::vector<int64_t>{1, 2}));
  // From a sub-range of itself, within capacity and beyond it.
  V w = iota(5);
  w.assign(w.begin() + 2, w.end());
  EXPECT_EQ(vec(w), (std::vector<int64_t>{2, 3, 4}));
  V h = iota(12);
  h.assign(h.begin() + 1, h.begin() + 11);
  EXPECT_EQ(h, iota(10, 1));
  h.clear();
  EXPECT_TRUE(h.empty());
  h.reserve(40);
  EXPECT_GE(h.capacity(), 40u);
  EXPECT_TRUE(h.empty());
}

TEST(SmallVector, AccessAndCompare) {
  V v{4, 5, 6};
  EXPECT_EQ(v[1], 5);
  EXPECT_EQ(v.at(2), 6);
  EXPECT_THROW(v.at(3), std::out_of_range);
  v[0] = 1;
  EXPECT_EQ(*v.data(), 1);
  EXPECT_EQ(std::vector<int64_t>(v.rbegin(), v.rend()), (std::vector<int64_t>{6, 5, 1}));
  EXPECT_TRUE((V{1, 2} == V{1, 2}));
  EXPECT_TRUE((V{1, 2} != V{1, 2, 3}));
  EXPECT_TRUE((V{1, 2} != V{1, 3}));
  EXPECT_TRUE((V{1, 2} < V{1, 3}));
  EXPECT_EQ(iota(9), iota(9));  // heap vs heap
  EXPECT_NE(iota(9), iota(9, 1));
  int64_t sum = 0;
  for (int64_t x : iota(8)) sum += x;
  EXPECT_EQ(sum, 28);
}

TEST(SmallVector, ErrorMessagesPrintShapes) {
  EXPECT_EQ(str("got ", Shape{2, 3}, " and ", Shape{}), "got [2, 3] and []");
}

struct KV {
  int key, index;
};

TEST(SmallVector, StableSortSmallKeepsEqualKeysInOrder) {
  SmallVector<KV, 6> v{{3, 0}, {1, 1}, {3, 2}, {2, 3}, {1, 4}, {0, 5}, {2, 6}};
  stable_sort_small(v.begin(), v.end(), [](KV a, KV b) { return a.key < b.key; });
  const std::vector<int> want{5, 1, 4, 3, 6, 0, 2};
  std::vector<int> got;
  for (KV e : v) got.push_back(e.index);
  EXPECT_EQ(got, want);
  V empty;
  stable_sort_small(empty.begin(), empty.end(), std::less<>());
  EXPECT_TRUE(empty.empty());
}

}  // namespace
}  // namespace tsr

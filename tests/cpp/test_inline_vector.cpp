// InlineVector (core/inline_vector.h), the type of prim::Tensors: elements
// with constructors and destructors kept inline up to the capacity, on the
// heap beyond; every element constructed is destroyed exactly once (a live
// count checks it, ASan catches double frees), and the conversions to and
// from std::vector keep the elements.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "core/factory.h"
#include "core/inline_vector.h"
#include "core/tensor.h"

namespace tsr {
namespace {

// A value that counts its live instances.
struct Counted {
  static inline int live = 0;
  std::shared_ptr<int> v;
  Counted() : v(std::make_shared<int>(0)) { ++live; }
  explicit Counted(int x) : v(std::make_shared<int>(x)) { ++live; }
  Counted(const Counted& o) : v(o.v) { ++live; }
  Counted(Counted&& o) noexcept : v(std::move(o.v)) { ++live; }
  Counted& operator=(const Counted&) = default;
  Counted& operator=(Counted&&) noexcept = default;
  ~Counted() { --live; }
  int value() const { return v ? *v : -1; }
  bool operator==(const Counted& o) const { return value() == o.value(); }
};

using V = InlineVector<Counted, 3>;

std::vector<int> values(const V& v) {
  std::vector<int> out;
  for (const Counted& c : v) out.push_back(c.value());
  return out;
}
V iota(int n) {
  V v;
  for (int i = 0; i < n; ++i) v.emplace_back(i);
  return v;
}

class InlineVectorTest : public ::testing::Test {
 protected:
  void SetUp() override { Counted::live = 0; }
  void TearDown() override { EXPECT_EQ(Counted::live, 0) << "an element was leaked or destroyed twice"; }
};

TEST_F(InlineVectorTest, InlineUpToCapacityThenHeap) {
  V v = iota(3);
  EXPECT_TRUE(v.is_inline());
  EXPECT_EQ(v.capacity(), 3u);
  v.emplace_back(3);
  EXPECT_FALSE(v.is_inline());
  EXPECT_EQ(values(v), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(Counted::live, 4);
}

TEST_F(InlineVectorTest, Construction) {
  EXPECT_TRUE(V().empty());
  EXPECT_EQ(V(2).size(), 2u);
  EXPECT_EQ(values(V(size_t(5), Counted(7))), std::vector<int>(5, 7));
  V il{Counted(4), Counted(5)};
  EXPECT_EQ(values(il), (std::vector<int>{4, 5}));
  il = {Counted(9)};
  EXPECT_EQ(values(il), std::vector<int>{9});
  std::vector<Counted> src{Counted(1), Counted(2), Counted(3), Counted(4)};
  EXPECT_EQ(values(V(src.begin(), src.end())), (std::vector<int>{1, 2, 3, 4}));
}

// Copies and moves from inline and heap sources into inline and heap
// targets.
TEST_F(InlineVectorTest, CopyAndMove) {
  for (int n : {0, 1, 3, 4, 20}) {
    for (int m : {0, 2, 5}) {
      const V a = iota(n);
      V copy(a);
      EXPECT_EQ(copy, a);
      V target = iota(m);
      target = a;
      EXPECT_EQ(values(target), values(a));
      V moved(std::move(copy));
      EXPECT_EQ(values(moved), values(a));
      EXPECT_TRUE(copy.empty());
      EXPECT_TRUE(copy.is_inline());
      V target2 = iota(m);
      target2 = std::move(moved);
      EXPECT_EQ(values(target2), values(a));
      EXPECT_TRUE(moved.empty());
      V& alias = target2;
      target2 = alias;  // self-assignment keeps the elements
      EXPECT_EQ(values(target2), values(a));
      V s = iota(m);
      s.swap(target2);
      EXPECT_EQ(values(s), values(a));
      EXPECT_EQ(values(target2), values(iota(m)));
    }
  }
}

TEST_F(InlineVectorTest, ModifiersKeepOrder) {
  V v = iota(2);
  v.push_back(v[0]);  // an element of the vector itself, while it grows
  v.push_back(v[1]);
  EXPECT_EQ(values(v), (std::vector<int>{0, 1, 0, 1}));
  v.insert(v.begin() + 1, Counted(8));
  EXPECT_EQ(values(v), (std::vector<int>{0, 8, 1, 0, 1}));
  v.insert(v.end(), v.begin(), v.begin() + 2);  // a range of itself
  EXPECT_EQ(values(v), (std::vector<int>{0, 8, 1, 0, 1, 0, 8}));
  v.erase(v.begin() + 1, v.begin() + 3);
  EXPECT_EQ(values(v), (std::vector<int>{0, 0, 1, 0, 8}));
  v.erase(v.begin());
  EXPECT_EQ(values(v), (std::vector<int>{0, 1, 0, 8}));
  v.pop_back();
  EXPECT_EQ(values(v), (std::vector<int>{0, 1, 0}));
  v.resize(5);
  EXPECT_EQ(v.size(), 5u);
  EXPECT_EQ(v[4].value(), 0);
  v.resize(1);
  EXPECT_EQ(values(v), std::vector<int>{0});
  v.resize(3, Counted(6));
  EXPECT_EQ(values(v), (std::vector<int>{0, 6, 6}));
  EXPECT_EQ(v.at(2).value(), 6);
  EXPECT_THROW(v.at(3), std::out_of_range);
  v.clear();
  EXPECT_TRUE(v.empty());
  EXPECT_EQ(Counted::live, 0);
}

// The implicit conversions: std::vector in (copied or moved) and out.
TEST_F(InlineVectorTest, ConvertsWithStdVector) {
  std::vector<Counted> src{Counted(1), Counted(2)};
  V copied = src;
  EXPECT_EQ(values(copied), (std::vector<int>{1, 2}));
  EXPECT_EQ(src[0].value(), 1);
  V moved = std::move(src);
  EXPECT_EQ(values(moved), (std::vector<int>{1, 2}));
  std::vector<Counted> back = moved;
  EXPECT_EQ(back.size(), 2u);
  EXPECT_EQ(moved.size(), 2u);
  std::vector<Counted> taken = std::move(moved);
  EXPECT_EQ(taken[1].value(), 2);
}

// prim::Tensors is a TensorList: up to 4 tensors inline, holding
// references to their TensorImpls like std::vector<Tensor> did.
TEST(TensorList, HoldsTensorsInline) {
  static_assert(TensorList::inline_capacity == 4);
  Tensor t = empty(Shape{2, 3}, TSR_FLOAT32, TSR_CONTIGUOUS_FORMAT, Device{TSR_DEVICE_CPU, 0});
  const long before = t.impl_ptr().use_count();
  {
    TensorList list{t, t, t, t};
    EXPECT_TRUE(list.is_inline());
    EXPECT_EQ(t.impl_ptr().use_count(), before + 4);
    list.push_back(t);
    EXPECT_FALSE(list.is_inline());
    EXPECT_EQ(t.impl_ptr().use_count(), before + 5);
    EXPECT_TRUE(list[4].is_same(t));
  }
  EXPECT_EQ(t.impl_ptr().use_count(), before);
}

}  // namespace
}  // namespace tsr

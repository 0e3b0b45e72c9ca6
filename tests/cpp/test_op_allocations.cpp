// Heap allocations of the ops a training step runs most (issue 12 item 4),
// counted by replacing the global operator new in this executable (linked
// to the library's objects, so the library's allocations come here too).
// Each op runs warm (the caching allocator's segments made, thread-local
// state set up) before the counted call. The bounds are what the ops take
// today, each allocation named; a change that adds one fails here.
//
// Under TSR_CHECK_PRIMITIVES (the sanitizer build) every op also builds its
// shape rule's output description, so the counts are not checked there.
#include <vector>

#include "capi_test_util.h"
#include "counting_new.h"

namespace tsr::devtest {
namespace {

class OpAllocations : public ::testing::Test {
 protected:
  void SetUp() override {
#ifdef TSR_CHECK_PRIMITIVES
    GTEST_SKIP() << "TSR_CHECK_PRIMITIVES builds each op's output description as well";
#endif
    std::vector<float> v(64 * 128);
    for (size_t i = 0; i < v.size(); ++i) v[i] = float(i % 13) / 13;
    x = from(v, {64, 128});
    y = from(v, {64, 128});
    w = from(v, {128, 64});
    b = from(std::vector<float>(v.begin(), v.begin() + 64), {64});
    prev = tsr_set_grad_enabled(false);
  }
  void TearDown() override { tsr_set_grad_enabled(prev); }

  // One warm call of f, then the allocations of a second one.
  template <class F>
  long warm_news(F&& f) {
    f();
    return tsr::heap_count::news_during(f);
  }
  // The allocations of one call of op(out) whose result is released.
  template <class Op>
  long result_news(Op&& op) {
    return warm_news([&] {
      tsr_tensor* out = nullptr;
      ASSERT_EQ(op(&out), TSR_OK) << tsr_last_error_message();
      tsr_tensor_release(out);
    });
  }

  T x, y, w, b;
  bool prev = true;
};

// The optimizers' updates: the in-place primitive lives on the stack when
// nothing keeps it (no history, no checkpoint tape), and a source of the
// destination's sizes is read as it is, not through an expand view.
TEST_F(OpAllocations, InPlaceUpdatesWithoutGradAllocateNothing) {
  EXPECT_EQ(warm_news([&] {
              ASSERT_EQ(tsr_add_(x.h, y.h, 0.1), TSR_OK);
              ASSERT_EQ(tsr_mul_scalar_(x.h, 0.9), TSR_OK);
            }),
            0);
}

// A fresh result: its Storage, its TensorImpl and the C API's handle.
TEST_F(OpAllocations, AddAllocatesItsResultOnly) {
  EXPECT_LE(result_news([&](tsr_tensor** o) { return tsr_add(x.h, y.h, o); }), 3);
}

// A 2-D matmul: the result only (no expand views of its operands, no
// view of the result, no heap primitive).
TEST_F(OpAllocations, MatmulAllocatesItsResultOnly) {
  EXPECT_LE(result_news([&](tsr_tensor** o) { return tsr_matmul(x.h, w.h, o); }), 3);
}

// linear: the result, plus the weight's transposed view for the gemm and
// the bias's expand view (its sizes differ from the result's).
TEST_F(OpAllocations, LinearAllocatesItsResultAndTwoViews) {
  EXPECT_LE(result_news([&](tsr_tensor** o) { return tsr_linear(x.h, y.h, b.h, o); }), 5);
}

// sum over dim 0: the result, its view without the reduced dim, and the
// dims' mask (a std::vector<bool>).
TEST_F(OpAllocations, SumOverAnOuterDimAllocatesItsResultAViewAndAMask) {
  const int64_t d0 = 0;
  EXPECT_LE(result_news([&](tsr_tensor** o) { return tsr_sum(x.h, 1, &d0, false, o); }), 5);
}

// sum over the contiguous dim of a transpose (a reduction along rows): the
// same, no copy of the result for the stride of its size-1 dim
// (reduce_plan.h gives size-1 dims their C-order strides).
TEST_F(OpAllocations, SumAlongRowsAllocatesItsResultAViewAndAMask) {
  tsr_tensor* xt = nullptr;
  ASSERT_EQ(tsr_transpose(w.h, 0, 1, &xt), TSR_OK);
  T t(xt);
  const int64_t d0 = 0;
  EXPECT_LE(result_news([&](tsr_tensor** o) { return tsr_sum(t.h, 1, &d0, false, o); }), 5);
}

}  // namespace
}  // namespace tsr::devtest

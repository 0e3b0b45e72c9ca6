// Small helpers of the device tests that go through the C API: a handle
// owner, host <-> tensor transfers, deterministic data and a tolerance
// comparison.
#pragma once

#include <gtest/gtest.h>

#include <tessera/tessera.h>

#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

namespace tsr::devtest {

// Owns one tensor handle.
struct T {
  tsr_tensor* h = nullptr;
  T() = default;
  explicit T(tsr_tensor* p) : h(p) {}
  T(T&& o) noexcept : h(o.h) { o.h = nullptr; }
  T& operator=(T&& o) noexcept {
    std::swap(h, o.h);
    return *this;
  }
  ~T() { tsr_tensor_release(h); }
};

inline std::vector<float> host_values(const T& t) {
  std::vector<float> v(size_t(tsr_tensor_numel(t.h)));
  size_t needed = 0;
  EXPECT_EQ(tsr_copy_to_buffer(t.h, v.data(), v.size() * sizeof(float), &needed), TSR_OK)
      << tsr_last_error_message();
  return v;
}

inline T from(const std::vector<float>& v, std::vector<int64_t> sizes) {
  tsr_tensor* t = nullptr;
  EXPECT_EQ(tsr_from_data(v.data(), v.size() * sizeof(float), int64_t(sizes.size()), sizes.data(),
                          TSR_FLOAT32, &t),
            TSR_OK);
  return T(t);
}

inline T on(const T& t, tsr_device_type type) {
  tsr_tensor* out = nullptr;
  EXPECT_EQ(tsr_to_device(t.h, type, 0, 0, &out), TSR_OK) << tsr_last_error_message();
  return T(out);
}

// Deterministic values in [-scale, scale].
inline std::vector<float> pattern(size_t n, float scale, uint32_t salt) {
  std::vector<float> v(n);
  uint32_t x = 2463534242u ^ salt;
  for (float& f : v) {
    x ^= x << 13, x ^= x >> 17, x ^= x << 5;
    f = scale * (float(x % 20001) / 10000.0f - 1.0f);
  }
  return v;
}

// |a - b| within rtol * |b| + atol, element by element.
inline void expect_close(const std::vector<float>& a, const std::vector<float>& b, float rtol,
                  float atol, const char* what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (size_t i = 0; i < a.size(); ++i)
    ASSERT_LE(std::fabs(a[i] - b[i]), rtol * std::fabs(b[i]) + atol)
        << what << "[" << i << "]: device " << a[i] << ", cpu " << b[i];
}

}  // namespace tsr::devtest

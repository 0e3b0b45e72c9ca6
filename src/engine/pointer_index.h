// PointerIndex: the engine's per-backward index of graph nodes, Node* -> a
// dense number 0, 1, 2, ... in discovery order, so that what the engine
// keeps per node (dependency count, gradient buffer, flags) lives in one
// vector. Open addressing with linear probing in one array: a backward
// makes one or two heap blocks here instead of a hash-map node per node and
// per map (std::unordered_map).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

namespace tsr::engine {

template <typename Key>
class PointerIndex {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;

  // The number of p, giving it the next one when new (second: was new).
  std::pair<uint32_t, bool> insert(const Key* p) {
    if (2 * (count_ + 1) > slots_.size()) grow();
    size_t i = slot_of(p);
    for (;; i = (i + 1) & (slots_.size() - 1)) {
      Slot& s = slots_[i];
      if (s.key == p) return {s.index, false};
      if (!s.key) {
        s = {p, uint32_t(count_)};
        return {uint32_t(count_++), true};
      }
    }
  }
  // The number of p, or kNone.
  uint32_t find(const Key* p) const {
    if (slots_.empty()) return kNone;
    for (size_t i = slot_of(p);; i = (i + 1) & (slots_.size() - 1)) {
      const Slot& s = slots_[i];
      if (s.key == p) return s.index;
      if (!s.key) return kNone;
    }
  }
  size_t size() const { return count_; }

 private:
  struct Slot {
    const Key* key = nullptr;
    uint32_t index = 0;
  };
  size_t slot_of(const Key* p) const {
    // Fibonacci hashing of the address (its low bits are alignment).
    const uint64_t h = uint64_t(reinterpret_cast<uintptr_t>(p)) * 0x9E3779B97F4A7C15ull;
    return size_t(h >> 32) & (slots_.size() - 1);
  }
  void grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.empty() ? 64 : 2 * old.size(), Slot{});
    for (const Slot& s : old)
      if (s.key) {
        size_t i = slot_of(s.key);
        while (slots_[i].key) i = (i + 1) & (slots_.size() - 1);
        slots_[i] = s;
      }
  }

  std::vector<Slot> slots_;  // size a power of two, at most half full
  size_t count_ = 0;
};

}  // namespace tsr::engine

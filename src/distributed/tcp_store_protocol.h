// The TCP store's wire format, shared by client and server. A request is
// u8 command, u32 count, count × (u32 length, bytes), i64 number; the
// answer is u8 status, u32 length, bytes. Little-endian, as every machine
// tessera runs on; sizes are bounded so a stray connection cannot make the
// server allocate without limit.
#pragma once

#include <cstdint>

namespace tsr::distributed::wire {

enum Command : uint8_t {
  kSet = 1,    // args: key, value
  kGet = 2,    // args: key; number: ms to wait for it
  kWait = 3,   // args: keys; number: ms to wait for all
  kCheck = 4,  // args: keys
  kAdd = 5,    // args: key; number: delta; answer: the sum as 8 bytes
  kErase = 6,  // args: key
};

enum Status : uint8_t { kOk = 0, kTimeout = 1, kNotSet = 2, kBadRequest = 3 };

constexpr uint32_t kMaxArgs = 1 << 16;
constexpr uint32_t kMaxBytes = 1u << 30;  // per argument

}  // namespace tsr::distributed::wire

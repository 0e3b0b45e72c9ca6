#include <cstring>

#include "core/error.h"
#include "distributed/tcp_store.h"
#include "distributed/tcp_store_protocol.h"

namespace tsr::distributed {
namespace {

// Time the server's answer may take beyond a wait the server itself
// bounds, so a slow network does not turn an answer into a timeout.
constexpr Millis kAnswerSlack{5000};

}  // namespace

TcpStore::TcpStore(std::string host, int port, Millis timeout)
    : host_(std::move(host)), port_(port), socket_(connect_to(host_, port_, Clock::now() + timeout)) {
  set_timeout(timeout);
}

std::vector<char> TcpStore::request(uint8_t command, const std::vector<std::string>& args, int64_t number,
                                    Millis server_wait, uint8_t* status) {
  std::lock_guard<std::mutex> lock(mutex_);
  TSR_CHECK(socket_.valid(), TSR_ERR_DISTRIBUTED, "the connection to the store at ", describe(),
            " was lost earlier");
  const std::string who = "the store at " + describe();
  const auto deadline = Clock::now() + server_wait + std::min(timeout(), kAnswerSlack);
  try {
    std::vector<char> msg;
    auto put = [&](const void* p, size_t n) {
      msg.insert(msg.end(), static_cast<const char*>(p), static_cast<const char*>(p) + n);
    };
    const uint32_t count = uint32_t(args.size());
    put(&command, 1);
    put(&count, 4);
    for (const auto& a : args) {
      const uint32_t n = uint32_t(a.size());
      put(&n, 4);
      put(a.data(), a.size());
    }
    put(&number, 8);
    socket_.send_all(msg.data(), msg.size(), deadline, who);
    uint32_t n = 0;
    socket_.recv_all(status, 1, deadline, who);
    socket_.recv_all(&n, 4, deadline, who);
    TSR_CHECK(n <= wire::kMaxBytes, TSR_ERR_DISTRIBUTED, who, " sent an answer of ", n, " bytes");
    std::vector<char> out(n);
    if (n) socket_.recv_all(out.data(), n, deadline, who);
    TSR_CHECK(*status != wire::kBadRequest, TSR_ERR_INTERNAL, who, " refused a request");
    return out;
  } catch (const Error&) {
    // A request cut in the middle leaves the stream unusable.
    socket_ = Socket();
    throw;
  }
}

void TcpStore::set(const std::string& key, const std::vector<char>& value) {
  uint8_t status;
  request(wire::kSet, {key, std::string(value.begin(), value.end())}, 0, Millis(0), &status);
}

std::vector<char> TcpStore::get(const std::string& key) {
  uint8_t status;
  auto out = request(wire::kGet, {key}, timeout().count(), timeout(), &status);
  TSR_CHECK(status == wire::kOk, TSR_ERR_DISTRIBUTED, "key '", key, "' was not set in the store at ", describe(),
            " within ", timeout().count(), " ms");
  return out;
}

void TcpStore::wait(const std::vector<std::string>& keys, const Millis& t) {
  uint8_t status;
  request(wire::kWait, keys, t.count(), t, &status);
  TSR_CHECK(status == wire::kOk, TSR_ERR_DISTRIBUTED, "keys ", keys, " were not all set in the store at ",
            describe(), " within ", t.count(), " ms");
}

bool TcpStore::check(const std::vector<std::string>& keys) {
  uint8_t status;
  request(wire::kCheck, keys, 0, Millis(0), &status);
  return status == wire::kOk;
}

int64_t TcpStore::add(const std::string& key, int64_t delta) {
  uint8_t status;
  auto out = request(wire::kAdd, {key}, delta, Millis(0), &status);
  int64_t sum = 0;
  TSR_CHECK(out.size() == 8, TSR_ERR_DISTRIBUTED, "the store at ", describe(), " answered add with ", out.size(),
            " bytes");
  std::memcpy(&sum, out.data(), 8);
  return sum;
}

bool TcpStore::erase(const std::string& key) {
  uint8_t status;
  request(wire::kErase, {key}, 0, Millis(0), &status);
  return status == wire::kOk;
}

}  // namespace tsr::distributed

#include <cstring>
#include <sys/socket.h>

#include "core/error.h"
#include "distributed/tcp_store.h"
#include "distributed/tcp_store_protocol.h"

namespace tsr::distributed {
namespace {

const Clock::time_point kNoDeadline = Clock::time_point::max();

struct Request {
  uint8_t command = 0;
  std::vector<std::string> args;
  int64_t number = 0;
};

// Throws on a closed connection or a request past the bounds.
Request read_request(const Socket& s) {
  const std::string who = "a store client";
  Request r;
  uint32_t count = 0;
  s.recv_all(&r.command, 1, kNoDeadline, who);
  s.recv_all(&count, 4, kNoDeadline, who);
  TSR_CHECK(count <= wire::kMaxArgs, TSR_ERR_DISTRIBUTED, "store request with ", count, " arguments");
  r.args.resize(count);
  for (auto& a : r.args) {
    uint32_t n = 0;
    s.recv_all(&n, 4, kNoDeadline, who);
    TSR_CHECK(n <= wire::kMaxBytes, TSR_ERR_DISTRIBUTED, "store request argument of ", n, " bytes");
    a.resize(n);
    if (n) s.recv_all(a.data(), n, kNoDeadline, who);
  }
  s.recv_all(&r.number, 8, kNoDeadline, who);
  return r;
}

// One write per answer: three small writes met Nagle's algorithm and the
// client's delayed ACK, 40 ms per request (monitored_barrier's polls).
void answer(const Socket& s, uint8_t status, const char* data, size_t n) {
  const uint32_t len = uint32_t(n);
  std::vector<char> msg(5 + n);
  msg[0] = char(status);
  std::memcpy(msg.data() + 1, &len, 4);
  if (n) std::memcpy(msg.data() + 5, data, n);
  s.send_all(msg.data(), msg.size(), kNoDeadline, "a store client");
}

}  // namespace

TcpStoreServer::TcpStoreServer(const std::string& host, int port) : listener_(listen_on(host, port)) {
  port_ = local_port(listener_);
  acceptor_ = std::thread([this] { accept_loop(); });
}

TcpStoreServer::~TcpStoreServer() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    for (auto& c : connections_) c->shutdown_both();
  }
  changed_.notify_all();
  listener_.shutdown_both();
  acceptor_.join();
  for (auto& t : threads_) t.join();
}

void TcpStoreServer::accept_loop() {
  for (;;) {
    int fd = ::accept4(listener_.fd(), nullptr, nullptr, SOCK_CLOEXEC);
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) {
      if (fd >= 0) Socket closing(fd);
      return;
    }
    if (fd < 0) continue;  // EINTR, ECONNABORTED: keep accepting
    connections_.push_back(std::make_unique<Socket>(fd));
    const int index = int(connections_.size()) - 1;
    threads_.emplace_back([this, index] { serve(index); });
  }
}

bool TcpStoreServer::all_set(const std::vector<std::string>& keys) const {
  for (const auto& k : keys)
    if (!data_.count(k)) return false;
  return true;
}

void TcpStoreServer::serve(int index) {
  const Socket* s;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    s = connections_[size_t(index)].get();
  }
  try {
    for (;;) {
      Request r = read_request(*s);
      std::unique_lock<std::mutex> lock(mutex_);
      const auto wait_for_keys = [&](const std::vector<std::string>& keys) {
        const auto deadline = Clock::now() + std::chrono::milliseconds(std::max<int64_t>(r.number, 0));
        return changed_.wait_until(lock, deadline, [&] { return stopping_ || all_set(keys); }) && !stopping_;
      };
      uint8_t status = wire::kOk;
      std::vector<char> out;
      const bool one_key = r.args.size() == 1;
      switch (r.command) {
        case wire::kSet:
          if (r.args.size() != 2) {
            status = wire::kBadRequest;
            break;
          }
          data_[r.args[0]] = std::vector<char>(r.args[1].begin(), r.args[1].end());
          changed_.notify_all();
          break;
        case wire::kGet:
          if (!one_key) status = wire::kBadRequest;
          else if (!wait_for_keys(r.args)) status = wire::kTimeout;
          else out = data_[r.args[0]];
          break;
        case wire::kWait:
          if (!wait_for_keys(r.args)) status = wire::kTimeout;
          break;
        case wire::kCheck:
          status = all_set(r.args) ? wire::kOk : wire::kNotSet;
          break;
        case wire::kAdd: {
          if (!one_key) {
            status = wire::kBadRequest;
            break;
          }
          auto& v = data_[r.args[0]];
          int64_t sum = 0;
          if (v.size() == 8) std::memcpy(&sum, v.data(), 8);
          sum += r.number;
          v.assign(reinterpret_cast<const char*>(&sum), reinterpret_cast<const char*>(&sum) + 8);
          out = v;
          changed_.notify_all();
          break;
        }
        case wire::kErase:
          status = one_key && data_.erase(r.args[0]) ? wire::kOk : wire::kNotSet;
          break;
        default:
          status = wire::kBadRequest;
      }
      lock.unlock();
      answer(*s, status, out.data(), out.size());
    }
  } catch (const Error&) {
    // The client went away, or sent garbage: drop this connection only.
  }
  s->shutdown_both();
}

}  // namespace tsr::distributed

// Blocking TCP sockets with deadlines, for the TCP store's client and
// server (the collectives themselves run over Gloo's transport). Every
// failure throws tsr::Error (TSR_ERR_DISTRIBUTED) with the peer's address.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

namespace tsr::distributed {

using Clock = std::chrono::steady_clock;

// An owned file descriptor.
class Socket {
 public:
  Socket() = default;
  explicit Socket(int fd) : fd_(fd) {}
  Socket(Socket&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  Socket& operator=(Socket&& o) noexcept;
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  ~Socket();

  int fd() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  // Wakes a thread blocked on this socket (its call then fails).
  void shutdown_both() const;

  // All of [data, data+n) or throws; `what` names the peer in messages.
  void send_all(const void* data, size_t n, Clock::time_point deadline, const std::string& what) const;
  void recv_all(void* data, size_t n, Clock::time_point deadline, const std::string& what) const;

 private:
  int fd_ = -1;
};

// Connects to host:port, retrying refused connections (the server may not
// be up yet) until the deadline.
Socket connect_to(const std::string& host, int port, Clock::time_point deadline);

// A listening socket on host:port (port 0: any free port); throws, naming
// the address, when the port is busy.
Socket listen_on(const std::string& host, int port);
// The port a listening socket got.
int local_port(const Socket& s);

// The local IPv4/IPv6 address a connection to host would leave from (the
// interface Gloo should listen on); "127.0.0.1" for loopback hosts.
std::string local_address_towards(const std::string& host, int port);

}  // namespace tsr::distributed

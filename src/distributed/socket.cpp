#include "distributed/socket.h"

#include <arpa/inet.h>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

#include "core/error.h"

namespace tsr::distributed {
namespace {

std::string address_of(const std::string& host, int port) { return host + ":" + std::to_string(port); }

int millis_left(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  if (left <= 0) return 0;
  return left > 1000000 ? 1000000 : int(left);
}

// Waits until fd is ready for `events`; false at the deadline.
bool wait_ready(int fd, short events, Clock::time_point deadline) {
  for (;;) {
    pollfd p{fd, events, 0};
    int r = ::poll(&p, 1, millis_left(deadline));
    if (r > 0) return true;
    if (r == 0) return false;
    if (errno != EINTR) return false;
  }
}

struct AddrInfo {
  addrinfo* list = nullptr;
  ~AddrInfo() {
    if (list) freeaddrinfo(list);
  }
};

void resolve(const std::string& host, int port, bool passive, AddrInfo& out) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = passive ? AI_PASSIVE : 0;
  int rc = getaddrinfo(host.empty() ? nullptr : host.c_str(), std::to_string(port).c_str(), &hints, &out.list);
  TSR_CHECK(rc == 0, TSR_ERR_DISTRIBUTED, "cannot resolve the store's address ", address_of(host, port), ": ",
            gai_strerror(rc));
}

}  // namespace

Socket& Socket::operator=(Socket&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.fd_;
    o.fd_ = -1;
  }
  return *this;
}

Socket::~Socket() {
  if (fd_ >= 0) ::close(fd_);
}

void Socket::shutdown_both() const {
  if (fd_ >= 0) ::shutdown(fd_, SHUT_RDWR);
}

void Socket::send_all(const void* data, size_t n, Clock::time_point deadline, const std::string& what) const {
  auto p = static_cast<const char*>(data);
  while (n > 0) {
    if (!wait_ready(fd_, POLLOUT, deadline))
      throw Error(TSR_ERR_DISTRIBUTED, "timed out sending to " + what);
    ssize_t k = ::send(fd_, p, n, MSG_NOSIGNAL);
    if (k < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    TSR_CHECK(k > 0, TSR_ERR_DISTRIBUTED, "lost the connection to ", what, " (", std::strerror(errno), ")");
    p += k;
    n -= size_t(k);
  }
}

void Socket::recv_all(void* data, size_t n, Clock::time_point deadline, const std::string& what) const {
  auto p = static_cast<char*>(data);
  while (n > 0) {
    if (!wait_ready(fd_, POLLIN, deadline))
      throw Error(TSR_ERR_DISTRIBUTED, "timed out waiting for " + what);
    ssize_t k = ::recv(fd_, p, n, 0);
    if (k < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    TSR_CHECK(k != 0, TSR_ERR_DISTRIBUTED, "lost the connection to ", what, " (closed by the peer)");
    TSR_CHECK(k > 0, TSR_ERR_DISTRIBUTED, "lost the connection to ", what, " (", std::strerror(errno), ")");
    p += k;
    n -= size_t(k);
  }
}

Socket connect_to(const std::string& host, int port, Clock::time_point deadline) {
  std::string last_error = "timed out";
  for (;;) {
    AddrInfo ai;
    resolve(host, port, false, ai);
    for (addrinfo* a = ai.list; a; a = a->ai_next) {
      Socket s(::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol));
      if (!s.valid()) continue;
      int rc = ::connect(s.fd(), a->ai_addr, a->ai_addrlen);
      if (rc != 0 && errno == EINPROGRESS) {
        if (wait_ready(s.fd(), POLLOUT, deadline)) {
          int err = 0;
          socklen_t len = sizeof err;
          getsockopt(s.fd(), SOL_SOCKET, SO_ERROR, &err, &len);
          rc = err == 0 ? 0 : -1;
          errno = err;
        } else {
          errno = ETIMEDOUT;
        }
      }
      if (rc == 0) {
        int one = 1;
        setsockopt(s.fd(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        return s;
      }
      last_error = std::strerror(errno);
    }
    if (Clock::now() >= deadline) break;
    // The server may not listen yet (rank 0 starts later): retry.
    std::this_thread::sleep_for(std::chrono::milliseconds(std::min(50, millis_left(deadline) + 1)));
  }
  throw Error(TSR_ERR_DISTRIBUTED, "could not reach the store at " + address_of(host, port) +
                                       " before the timeout (" + last_error + ")");
}

Socket listen_on(const std::string& host, int port) {
  AddrInfo ai;
  resolve(host, port, true, ai);
  std::string last_error = "no address";
  for (addrinfo* a = ai.list; a; a = a->ai_next) {
    Socket s(::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol));
    if (!s.valid()) continue;
    int one = 1;
    // Reuse a port in TIME_WAIT (a previous job's); a port someone listens
    // on still fails with EADDRINUSE.
    setsockopt(s.fd(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(s.fd(), a->ai_addr, a->ai_addrlen) == 0 && ::listen(s.fd(), 128) == 0) return s;
    last_error = std::strerror(errno);
  }
  throw Error(TSR_ERR_DISTRIBUTED, "the store cannot listen on " + address_of(host, port) + " (" + last_error +
                                       "): is another job using MASTER_PORT?");
}

int local_port(const Socket& s) {
  sockaddr_storage a{};
  socklen_t len = sizeof a;
  getsockname(s.fd(), reinterpret_cast<sockaddr*>(&a), &len);
  if (a.ss_family == AF_INET6) return ntohs(reinterpret_cast<sockaddr_in6*>(&a)->sin6_port);
  return ntohs(reinterpret_cast<sockaddr_in*>(&a)->sin_port);
}

std::string local_address_towards(const std::string& host, int port) {
  AddrInfo ai;
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_DGRAM;
  if (getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &ai.list) != 0 || !ai.list) return "127.0.0.1";
  // A UDP "connection" sends nothing: it only asks the kernel for the route.
  Socket s(::socket(ai.list->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  if (!s.valid() || ::connect(s.fd(), ai.list->ai_addr, ai.list->ai_addrlen) != 0) return "127.0.0.1";
  sockaddr_storage a{};
  socklen_t len = sizeof a;
  if (getsockname(s.fd(), reinterpret_cast<sockaddr*>(&a), &len) != 0) return "127.0.0.1";
  char buf[INET6_ADDRSTRLEN] = {};
  if (a.ss_family == AF_INET6)
    inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6*>(&a)->sin6_addr, buf, sizeof buf);
  else
    inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(&a)->sin_addr, buf, sizeof buf);
  return buf;
}

}  // namespace tsr::distributed

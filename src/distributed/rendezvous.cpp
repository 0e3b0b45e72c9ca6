#include "distributed/rendezvous.h"

#include <cerrno>
#include <cstdlib>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>

#include "core/error.h"
#include "distributed/file_store.h"

namespace tsr::distributed {
namespace {

const char* env(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? v : nullptr;
}

int64_t parse_int(const std::string& text, const std::string& what) {
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  TSR_CHECK(!text.empty() && end && *end == '\0' && errno == 0, TSR_ERR_INVALID_ARGUMENT, what, " '", text,
            "' is not an integer");
  return v;
}

// The first of `names` that is set, parsed; -1 when none is.
int int_from_env(std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (const char* v = env(n)) return int(parse_int(v, std::string("environment variable ") + n));
  return -1;
}

std::string required_env(const char* name) {
  const char* v = env(name);
  TSR_CHECK(v, TSR_ERR_INVALID_ARGUMENT,
            "Error initializing torch.distributed using env:// rendezvous: environment variable ", name,
            " expected, but not set");
  return v;
}

int parse_port(const std::string& text, const std::string& what) {
  const int64_t p = parse_int(text, what);
  TSR_CHECK(p >= 1 && p <= 65535, TSR_ERR_INVALID_ARGUMENT, what, " ", p, " is not a port in [1, 65535]");
  return int(p);
}

// "host:port" of tcp://; IPv6 hosts in brackets ("[::1]:29500").
void split_host_port(const std::string& text, std::string* host, int* port) {
  const auto colon = text.rfind(':');
  TSR_CHECK(colon != std::string::npos && colon > 0, TSR_ERR_INVALID_ARGUMENT, "init_method 'tcp://", text,
            "' needs host:port");
  *host = text.substr(0, colon);
  if (host->size() > 2 && host->front() == '[' && host->back() == ']') *host = host->substr(1, host->size() - 2);
  *port = parse_port(text.substr(colon + 1), "the port of init_method tcp://" + text);
}

// GLOO_SOCKET_IFNAME's address (torch reads the same variable).
std::string interface_address(const std::string& ifname) {
  ifaddrs* list = nullptr;
  TSR_CHECK(getifaddrs(&list) == 0, TSR_ERR_DISTRIBUTED, "cannot list network interfaces");
  std::string found;
  for (ifaddrs* a = list; a && found.empty(); a = a->ifa_next) {
    if (!a->ifa_addr || ifname != a->ifa_name) continue;
    if (a->ifa_addr->sa_family != AF_INET && a->ifa_addr->sa_family != AF_INET6) continue;
    char buf[NI_MAXHOST];
    const socklen_t len = a->ifa_addr->sa_family == AF_INET ? sizeof(sockaddr_in) : sizeof(sockaddr_in6);
    if (getnameinfo(a->ifa_addr, len, buf, sizeof buf, nullptr, 0, NI_NUMERICHOST) == 0) found = buf;
  }
  freeifaddrs(list);
  TSR_CHECK(!found.empty(), TSR_ERR_INVALID_ARGUMENT, "GLOO_SOCKET_IFNAME=", ifname,
            " names no interface with an address");
  return found;
}

void check_rank(int rank, int world_size) {
  TSR_CHECK(world_size >= 1, TSR_ERR_INVALID_ARGUMENT, "world_size must be at least 1, got ", world_size,
            " (set it in the options or WORLD_SIZE)");
  TSR_CHECK(rank >= 0 && rank < world_size, TSR_ERR_INVALID_ARGUMENT, "rank ", rank,
            " is outside [0, world_size) for world_size ", world_size, " (set it in the options or RANK)");
}

}  // namespace

Rendezvous rendezvous(const std::string& init_method, int rank, int world_size, Millis timeout) {
  Rendezvous r;
  r.rank = rank >= 0 ? rank : int_from_env({"RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK"});
  r.world_size = world_size >= 0 ? world_size : int_from_env({"WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE"});
  std::string host;
  int port = 0;
  if (init_method.empty() || init_method == "env://") {
    host = required_env("MASTER_ADDR");
    port = parse_port(required_env("MASTER_PORT"), "environment variable MASTER_PORT");
    if (r.rank < 0) required_env("RANK");
    if (r.world_size < 0) required_env("WORLD_SIZE");
  } else if (init_method.rfind("tcp://", 0) == 0) {
    split_host_port(init_method.substr(6), &host, &port);
  } else if (init_method.rfind("file://", 0) == 0) {
    r.file_store = true;
  } else {
    fail(TSR_ERR_INVALID_ARGUMENT, "init_method '", init_method,
         "' is not supported: use env://, tcp://host:port or file:///path");
  }
  TSR_CHECK(r.world_size >= 0, TSR_ERR_INVALID_ARGUMENT,
            "world_size is not set: give it in the options or set WORLD_SIZE");
  TSR_CHECK(r.rank >= 0, TSR_ERR_INVALID_ARGUMENT, "rank is not set: give it in the options or set RANK");
  check_rank(r.rank, r.world_size);

  if (r.file_store) {
    const std::string directory = init_method.substr(7);
    r.open_store = [directory](Millis t) { return std::make_shared<FileStore>(directory, t); };
    r.store = r.open_store(timeout);
    // No host to route towards: the interface of the default route (any
    // public address only picks the route; nothing is sent).
    r.listen_host = r.world_size > 1 ? local_address_towards("192.0.2.1", 9) : "127.0.0.1";
  } else {
    if (r.rank == 0) r.server = std::make_unique<TcpStoreServer>(host, port);
    r.open_store = [host, port](Millis t) { return std::make_shared<TcpStore>(host, port, t); };
    r.store = r.open_store(timeout);
    r.listen_host = local_address_towards(host, port);
  }
  if (const char* ifname = env("GLOO_SOCKET_IFNAME")) r.listen_host = interface_address(ifname);
  return r;
}

}  // namespace tsr::distributed

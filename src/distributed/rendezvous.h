// init_method → (rank, world size, store): torch's rendezvous handlers
// for env://, tcp://host:port and file:///dir. For env:// and tcp://,
// rank 0 also hosts the TCP store's server.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "distributed/store.h"
#include "distributed/tcp_store.h"

namespace tsr::distributed {

struct Rendezvous {
  int rank = -1;
  int world_size = -1;
  std::shared_ptr<Store> store;
  std::unique_ptr<TcpStoreServer> server;  // rank 0 of env:// and tcp://
  bool file_store = false;
  // The address Gloo listens on: the interface that reaches the store's
  // host (or GLOO_SOCKET_IFNAME's).
  std::string listen_host;
  // Opens another connection to the same store (subgroups have their own).
  std::function<std::shared_ptr<Store>(Millis)> open_store;
};

// rank / world_size < 0: from the environment (RANK, WORLD_SIZE, then Open
// MPI's and MPICH's variables). Throws TSR_ERR_INVALID_ARGUMENT naming a
// missing or malformed variable or setting; TSR_ERR_DISTRIBUTED when the
// store cannot be hosted or reached.
Rendezvous rendezvous(const std::string& init_method, int rank, int world_size, Millis timeout);

}  // namespace tsr::distributed

// torch's TCPStore role: rank 0 hosts a TcpStoreServer on MASTER_ADDR:
// MASTER_PORT; every rank (rank 0 included) talks to it through a
// TcpStore client. The wire format is tessera's own (length-prefixed
// requests, one answer each); only tessera processes speak it.
#pragma once

#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "distributed/socket.h"
#include "distributed/store.h"

namespace tsr::distributed {

// The server: a map of keys to bytes, a thread per client connection.
// Lives as long as the rank-0 process group that created it.
class TcpStoreServer {
 public:
  // Listens on host:port (port 0: a free one); throws when busy.
  TcpStoreServer(const std::string& host, int port);
  ~TcpStoreServer();
  TcpStoreServer(const TcpStoreServer&) = delete;
  TcpStoreServer& operator=(const TcpStoreServer&) = delete;
  int port() const { return port_; }

 private:
  void accept_loop();
  void serve(int connection);
  bool all_set(const std::vector<std::string>& keys) const;  // with mutex_ held

  Socket listener_;
  int port_ = 0;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::map<std::string, std::vector<char>> data_;
  bool stopping_ = false;
  std::vector<std::unique_ptr<Socket>> connections_;
  std::vector<std::thread> threads_;
  std::thread acceptor_;
};

// A client connection; calls are serialized by a mutex.
class TcpStore final : public Store {
 public:
  // Connects, retrying until timeout passes.
  TcpStore(std::string host, int port, Millis timeout);
  void set(const std::string& key, const std::vector<char>& value) override;
  std::vector<char> get(const std::string& key) override;
  using Store::wait;
  void wait(const std::vector<std::string>& keys, const Millis& timeout) override;
  bool check(const std::vector<std::string>& keys) override;
  int64_t add(const std::string& key, int64_t delta) override;
  bool erase(const std::string& key) override;
  std::string describe() const override { return host_ + ":" + std::to_string(port_); }

 private:
  // Sends one request and reads its answer: a status byte and bytes.
  std::vector<char> request(uint8_t command, const std::vector<std::string>& args, int64_t number,
                            Millis server_wait, uint8_t* status);
  std::string host_;
  int port_;
  std::mutex mutex_;
  Socket socket_;
};

}  // namespace tsr::distributed

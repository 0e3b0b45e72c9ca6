// libtessera_mpi.so's entry point (distributed/mpi_module.h): the version
// check, then the module object that starts MPI and makes communicators.
#include <cstdio>
#include <cstring>
#include <string>

#include <tessera/version.h>

#include "core/error.h"
#include "distributed/mpi_module.h"
#include "mpi_comm.h"
#include "mpi_state.h"

namespace tsr::distributed::mpi {
namespace {

class Module final : public MpiModule {
 public:
  Module() {
    char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
    int length = 0;
    MPI_Get_library_version(text, &length);  // callable before MPI_Init
    version_.assign(text, size_t(length));
    version_ = version_.substr(0, version_.find_first_of("\n\r"));
    while (!version_.empty() && (version_.back() == ' ' || version_.back() == '\0')) version_.pop_back();
  }
  const char* library_version() const override { return version_.c_str(); }

  MpiComm* world(MpiComm::Millis timeout) override {
    const auto start = Clock::now();
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Request request = MPI_REQUEST_NULL;
    {
      std::lock_guard<std::mutex> lock(mpi_mutex());
      ensure_initialized();
      check_usable();
      // A communicator of the group's own: its operations never match
      // another group's or the program's own MPI calls.
      check_rc(MPI_Comm_idup(MPI_COMM_WORLD, &comm, &request), "MPI_Comm_idup");
      note_started();
    }
    wait(request, "MPI_Comm_idup (every rank of MPI_COMM_WORLD creates the group)", start, start + timeout);
    std::lock_guard<std::mutex> lock(mpi_mutex());
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    return new Comm(comm);
  }

 private:
  std::string version_;
};

}  // namespace
}  // namespace tsr::distributed::mpi

extern "C" __attribute__((visibility("default"))) int tsr_mpi_module_init(uint32_t host_abi,
                                                                          uint32_t host_version_number,
                                                                          tsr::distributed::MpiModule** out,
                                                                          char* why, size_t why_capacity) {
  auto say = [&](const std::string& text) {
    if (why_capacity == 0) return;
    std::snprintf(why, why_capacity, "%s", text.c_str());
  };
  say("");
  if (host_abi != tsr::distributed::kMpiModuleAbi || host_version_number != uint32_t(TSR_VERSION_NUMBER)) {
    say(tsr::str("the MPI module was built for tessera version number ", TSR_VERSION_NUMBER, " (module ABI ",
                 tsr::distributed::kMpiModuleAbi, "), this libtessera.so is version number ", host_version_number,
                 " (module ABI ", host_abi, "); rebuild the module with this tessera"));
    return -1;
  }
  static tsr::distributed::mpi::Module module;
  *out = &module;
  return 0;
}

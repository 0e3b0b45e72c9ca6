#include "distributed/mpi_loader.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <string>

#include <tessera/version.h>

#include "core/error.h"

namespace tsr::distributed {
namespace {

constexpr const char* kModuleFile = "libtessera_mpi.so";
constexpr const char* kPathVariable = "TSR_MPI_MODULE";

// The directory (with a trailing '/') of the shared object or executable
// this function is linked into; empty when dladdr cannot tell.
std::string own_directory() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&own_directory), &info) == 0 || !info.dli_fname) return {};
  const std::string self = info.dli_fname;
  const size_t slash = self.rfind('/');
  return slash == std::string::npos ? std::string() : self.substr(0, slash + 1);
}

std::string last_dl_error() {
  const char* e = dlerror();
  return e ? e : "no error reported by the dynamic loader";
}

MpiModule* load() {
  const char* env = std::getenv(kPathVariable);
  const bool from_env = env && *env;
  const std::string path = from_env ? std::string(env) : own_directory() + kModuleFile;
  // RTLD_GLOBAL: Open MPI dlopens its own components (transports,
  // collectives), which look for libmpi's symbols in the global scope.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
#ifndef TSR_HAVE_MPI_MODULE
  if (!handle && !from_env)
    fail(TSR_ERR_UNSUPPORTED, "the MPI backend is not built in this tessera (Open MPI was not found when it was "
         "configured: install libopenmpi-dev and rebuild, or set $TSR_MPI_MODULE to a libtessera_mpi.so of this "
         "version); use the Gloo backend");
#endif
  if (!handle)
    fail(TSR_ERR_UNSUPPORTED, "MPI module not found: could not load ", path,
         from_env ? " (from $TSR_MPI_MODULE)" : " (next to libtessera.so; set $TSR_MPI_MODULE to use another)", ": ",
         last_dl_error());
  dlerror();
  void* symbol = dlsym(handle, TSR_MPI_MODULE_INIT_SYMBOL);
  if (!symbol) {
    const std::string why = last_dl_error();
    dlclose(handle);
    fail(TSR_ERR_UNSUPPORTED, "MPI module ", path, " is not a tessera MPI module: symbol ",
         TSR_MPI_MODULE_INIT_SYMBOL, " is missing (", why, ")");
  }
  MpiModule* module = nullptr;
  char why[1024] = {};
  const int rc = reinterpret_cast<tsr_mpi_module_init_fn>(symbol)(kMpiModuleAbi, uint32_t(TSR_VERSION_NUMBER),
                                                                  &module, why, sizeof why);
  why[sizeof why - 1] = '\0';
  TSR_CHECK(rc == 0 && module, TSR_ERR_UNSUPPORTED, "MPI module ", path, " refused to start: ",
            why[0] ? why : "it gave no reason");
  return module;
}

}  // namespace

MpiModule& mpi_module() {
  static std::once_flag once;
  static MpiModule* module = nullptr;
  static std::string failure;
  std::call_once(once, [] {
    try {
      module = load();
    } catch (const std::exception& e) {
      failure = e.what();
    }
  });
  if (!module) fail(TSR_ERR_UNSUPPORTED, failure);
  return *module;
}

}  // namespace tsr::distributed

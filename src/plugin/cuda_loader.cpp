// Loads the CUDA device plugin (libtessera_cuda.so, built from gpu/) the
// first time a CUDA or pinned-host device is asked for, the way ONNX Runtime
// loads its CUDA execution provider: libtessera.so never links CUDA, so a
// program that only uses the CPU runs where no CUDA is installed, and one
// that asks for CUDA there gets TSR_ERR_UNSUPPORTED saying why.
//
// Where the plugin is looked for: $TSR_CUDA_PLUGIN (a path) when set, else
// libtessera_cuda.so next to the library holding this code (libtessera.so,
// or a test executable linking tessera's objects).
//
// core's registry (core/device_registry.cpp) calls the loader once per
// device type; one load serves both CUDA types, so the result (success or
// the failure's message) is kept here and given to the second type too.
// The plugin is never unloaded: the backends it returns live until exit.
#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <string>

#include "alloc/caching_allocator.h"
#include "core/device_allocator.h"
#include "core/device_collectives.h"
#include "core/device_plugin.h"
#include "core/error.h"
#include <tessera/version.h>

namespace tsr::plugin {
namespace {

constexpr const char* kPluginFile = "libtessera_cuda.so";
constexpr const char* kPathVariable = "TSR_CUDA_PLUGIN";

// The directory (with a trailing '/') of the shared object or executable
// this function is linked into; empty when dladdr cannot tell.
std::string own_directory() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&own_directory), &info) == 0 || !info.dli_fname)
    return {};
  const std::string self = info.dli_fname;
  const size_t slash = self.rfind('/');
  return slash == std::string::npos ? std::string() : self.substr(0, slash + 1);
}

// Where the plugin should be: $TSR_CUDA_PLUGIN, else next to this library.
struct PluginPath {
  std::string path;
  bool from_env;
};
PluginPath plugin_path() {
  if (const char* env = std::getenv(kPathVariable); env && *env) return {env, true};
  return {own_directory() + kPluginFile, false};
}

// dlopen's reason; dlerror() is per thread and cleared by reading it.
std::string last_dl_error() {
  const char* e = dlerror();
  return e ? e : "no error reported by the dynamic loader";
}

void* open_plugin(const PluginPath& where) {
  void* handle = dlopen(where.path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    fail(TSR_ERR_UNSUPPORTED, "CUDA plugin not found: could not load ", where.path,
         where.from_env ? " (from $TSR_CUDA_PLUGIN)"
                        : " (next to libtessera.so; set $TSR_CUDA_PLUGIN to use another)",
         ": ", last_dl_error());
  return handle;
}

tsr_device_plugin_init_fn find_init(void* handle, const std::string& path) {
  dlerror();
  void* symbol = dlsym(handle, TSR_CUDA_PLUGIN_INIT_SYMBOL);
  if (!symbol) {
    const std::string why = last_dl_error();
    // Nothing of it has run beyond its static initialisers: unload it.
    dlclose(handle);
    fail(TSR_ERR_UNSUPPORTED, "CUDA plugin ", path, " is not a tessera device plugin: symbol ",
         TSR_CUDA_PLUGIN_INIT_SYMBOL, " is missing (", why, ")");
  }
  return reinterpret_cast<tsr_device_plugin_init_fn>(symbol);
}

// The backends' objects come from the plugin's build: only the same ABI and
// tessera version may be used (device_plugin.h). The plugin checks too; this
// catches a plugin that does not.
void check_versions(const DevicePluginExports& got, const std::string& path) {
  TSR_CHECK(got.abi == kDevicePluginAbi, TSR_ERR_UNSUPPORTED, "CUDA plugin ", path,
            " has device plugin ABI ", got.abi, ", this libtessera.so needs ABI ",
            kDevicePluginAbi, " (rebuild the plugin with this tessera)");
  TSR_CHECK(got.version_number == uint32_t(TSR_VERSION_NUMBER), TSR_ERR_UNSUPPORTED,
            "CUDA plugin ", path, " was built for tessera version number ", got.version_number,
            ", this libtessera.so is version number ", TSR_VERSION_NUMBER,
            " (rebuild the plugin with this tessera)");
  TSR_CHECK(got.device && got.device->type() == TSR_DEVICE_CUDA, TSR_ERR_UNSUPPORTED,
            "CUDA plugin ", path, " returned no backend for TSR_DEVICE_CUDA (2)");
  TSR_CHECK(got.pinned_host && got.pinned_host->type() == TSR_DEVICE_CUDA_HOST,
            TSR_ERR_UNSUPPORTED, "CUDA plugin ", path,
            " returned no backend for TSR_DEVICE_CUDA_HOST (3)");
}

void load_plugin() {
  const PluginPath where = plugin_path();
  const std::string& path = where.path;
  void* handle = open_plugin(where);
  const tsr_device_plugin_init_fn init = find_init(handle, path);
  DevicePluginExports got{};
  char why[1024] = {};
  const int rc = init(kDevicePluginAbi, uint32_t(TSR_VERSION_NUMBER), &got, why, sizeof why);
  why[sizeof why - 1] = '\0';  // whatever the plugin wrote, a string
  // From here the plugin stays loaded even on failure: it may have started
  // the CUDA runtime, which is not safe to unload.
  TSR_CHECK(rc == 0, TSR_ERR_UNSUPPORTED, "CUDA plugin ", path, " could not start (code ", rc,
            "): ", why[0] ? why : "it gave no reason");
  check_versions(got, path);
  alloc::register_caching_backend(got.device);
  alloc::register_caching_backend(got.pinned_host);
  // Optional: a plugin without collectives still serves devices.
  if (got.collectives) register_device_collectives(TSR_DEVICE_CUDA, got.collectives);
}

// Runs load_plugin once for both CUDA types and repeats its failure.
void load_once(tsr_device_type) {
  static std::once_flag once;
  static std::string failure;
  std::call_once(once, [] {
    try {
      load_plugin();
    } catch (const std::exception& e) {
      failure = e.what();
    }
  });
  if (!failure.empty()) fail(TSR_ERR_UNSUPPORTED, failure);
}

const bool registered = [] {
  register_device_loader(TSR_DEVICE_CUDA, &load_once);
  register_device_loader(TSR_DEVICE_CUDA_HOST, &load_once);
  return true;
}();

}  // namespace
}  // namespace tsr::plugin

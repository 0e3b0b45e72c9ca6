/* dlopen_example.c — uses libtessera without linking it: the library is
 * loaded at run time with dlopen() and every function is reached through a
 * pointer from dlsym(), as a plugin host or a language runtime does.
 *
 *   dlopen_example [PATH/TO/libtessera.so]
 *
 * Library path: argv[1] when given; else TSR_LIBRARY_DIR "/libtessera.so.<major>"
 * when TSR_LIBRARY_DIR was defined at compile time (the Makefile bakes in
 * `pkg-config --variable=libdir tessera`, CMake the build tree's src/); else
 * "libtessera.so.<major>", found by the dynamic loader's search path
 * (LD_LIBRARY_PATH, ld.so.cache). <major> is the header's TSR_VERSION_MAJOR,
 * the library's SONAME.
 *
 * Built with the headers only (-I<include> -ldl, no -ltessera): the header
 * gives the types and TSR_VERSION_*, and __typeof__ of each declared
 * function gives its pointer type, so every call is still type-checked;
 * naming a function inside __typeof__ does not reference its symbol.
 *
 * Exit status: 0 ok, 1 a load or API failure, 2 header and library
 * incompatible (different major version). */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include <tessera/tessera.h>

#define STR_(x) #x
#define STR(x) STR_(x)
#ifdef TSR_LIBRARY_DIR
#define DEFAULT_LIBRARY TSR_LIBRARY_DIR "/libtessera.so." STR(TSR_VERSION_MAJOR)
#else
#define DEFAULT_LIBRARY "libtessera.so." STR(TSR_VERSION_MAJOR)
#endif

/* The part of the C API this program calls, as function pointers. */
typedef struct {
  __typeof__(&tsr_version_number) version_number;
  __typeof__(&tsr_version_string) version_string;
  __typeof__(&tsr_arange) arange;
  __typeof__(&tsr_view) view;
  __typeof__(&tsr_transpose) transpose;
  __typeof__(&tsr_tensor_ndim) tensor_ndim;
  __typeof__(&tsr_tensor_sizes) tensor_sizes;
  __typeof__(&tsr_tensor_strides) tensor_strides;
  __typeof__(&tsr_is_contiguous) is_contiguous;
  __typeof__(&tsr_status_name) status_name;
  __typeof__(&tsr_last_error_message) last_error_message;
  __typeof__(&tsr_tensor_release) tensor_release;
} tessera_api;

/* dlsym into a function pointer. ISO C has no object-to-function pointer
 * conversion; POSIX guarantees this form (see the dlsym manual). */
static int load_symbol(void* lib, const char* name, void* fn_slot) {
  void* sym = dlsym(lib, name);
  if (!sym) {
    fprintf(stderr, "dlsym(%s): %s\n", name, dlerror());
    return 0;
  }
  memcpy(fn_slot, &sym, sizeof sym);
  return 1;
}
#define LOAD(api, lib, field) load_symbol((lib), "tsr_" #field, (void*)&(api)->field)

/* The version functions come first, alone: a library of another major
 * version may lack the rest, and is then reported as incompatible rather than
 * as a missing symbol. */
static int load_version_api(void* lib, tessera_api* api) {
  return LOAD(api, lib, version_number) && LOAD(api, lib, version_string);
}

/* Everything else the demo calls, once the version is known to be compatible. */
static int load_demo_api(void* lib, tessera_api* api) {
  return LOAD(api, lib, arange) && LOAD(api, lib, view) && LOAD(api, lib, transpose) &&
         LOAD(api, lib, tensor_ndim) && LOAD(api, lib, tensor_sizes) &&
         LOAD(api, lib, tensor_strides) && LOAD(api, lib, is_contiguous) &&
         LOAD(api, lib, status_name) && LOAD(api, lib, last_error_message) &&
         LOAD(api, lib, tensor_release);
}

/* Same major version = compatible: minor releases only add functions, so a
 * library at least as new as the header has everything the header declares
 * (this program also checks each symbol it needs with dlsym). */
static int check_version(const tessera_api* api) {
  int32_t lib_number = api->version_number();
  int compatible = lib_number / 10000 == TSR_VERSION_MAJOR;
  printf("header %d.%d.%d (%d), library %s (%d): %s\n", TSR_VERSION_MAJOR, TSR_VERSION_MINOR,
         TSR_VERSION_PATCH, TSR_VERSION_NUMBER, api->version_string(), (int)lib_number,
         compatible ? "compatible" : "incompatible");
  return compatible;
}

static void print_array(const char* label, int64_t n, const int64_t* v) {
  printf("%s [", label);
  for (int64_t i = 0; i < n; ++i) printf("%s%lld", i ? ", " : "", (long long)v[i]);
  printf("]");
}

/* arange(6) -> view(2, 3) -> transpose(0, 1), then a view that needs a copy. */
static int demo(const tessera_api* api) {
  tsr_tensor *a = NULL, *m = NULL, *t = NULL, *flat = NULL;
  const int64_t shape[] = {2, 3}, six[] = {6};
  int ok = 0;
  if (api->arange(0, 6, 1, TSR_FLOAT32, TSR_DEVICE_CPU, 0, &a) != TSR_OK ||
      api->view(a, 2, shape, &m) != TSR_OK || api->transpose(m, 0, 1, &t) != TSR_OK) {
    fprintf(stderr, "tensor demo failed: %s\n", api->last_error_message());
    goto done;
  }
  bool contiguous = true;
  if (api->is_contiguous(t, TSR_CONTIGUOUS_FORMAT, &contiguous) != TSR_OK) goto done;
  int64_t n = api->tensor_ndim(t);
  printf("arange(6).view(2, 3).transpose(0, 1): ");
  print_array("sizes", n, api->tensor_sizes(t));
  print_array(", strides", n, api->tensor_strides(t));
  printf(", contiguous: %s\n", contiguous ? "yes" : "no");

  /* A transposed tensor cannot be flattened without a copy: view refuses. */
  tsr_status st = api->view(t, 1, six, &flat);
  printf("view(6) of the transpose: %s: %s\n", api->status_name(st), api->last_error_message());
  ok = st == TSR_ERR_NOT_VIEWABLE && flat == NULL;
done:
  api->tensor_release(flat); /* release accepts NULL */
  api->tensor_release(t);
  api->tensor_release(m);
  api->tensor_release(a);
  return ok;
}

int main(int argc, char** argv) {
  const char* path = argc > 1 ? argv[1] : DEFAULT_LIBRARY;
  void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    fprintf(stderr, "dlopen(%s): %s\n", path, dlerror());
    return 1;
  }
  printf("loaded %s\n", path);
  tessera_api api;
  int status = 1;
  if (!load_version_api(lib, &api)) goto done;
  if (!check_version(&api)) {
    status = 2;
    goto done;
  }
  if (!load_demo_api(lib, &api)) goto done;
  status = demo(&api) ? 0 : 1;
done:
  dlclose(lib);
  return status;
}

/* The MPI backend's loader (src/distributed/mpi_loader.cpp) without
 * mpirun: a module that is missing or not a tessera MPI module gives
 * TSR_ERR_UNSUPPORTED naming the path and the reason, every time, and a
 * build without Open MPI says the backend is not built. The backend itself
 * runs under mpirun in tests/mpi (where the module is built). Criterion
 * runs each test in its own process: the module is loaded once per
 * process. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"

static tsr_status init_mpi(tsr_process_group** pg) {
  tsr_process_group_options o = TSR_PROCESS_GROUP_OPTIONS_INIT;
  o.backend = TSR_DIST_MPI;
  o.timeout_ms = 5000;
  return tsr_process_group_init(&o, pg);
}

/* The directory of libtessera.so, with a trailing '/'. */
static void library_directory(char* out, size_t capacity) {
  Dl_info info;
  cr_assert(dladdr((void*)&tsr_process_group_init, &info) && info.dli_fname, "dladdr");
  snprintf(out, capacity, "%s", info.dli_fname);
  char* slash = strrchr(out, '/');
  cr_assert(slash != NULL);
  slash[1] = '\0';
}

Test(distributed_mpi_loader, module_missing) {
  setenv("TSR_MPI_MODULE", "/nonexistent/libtessera_mpi.so", 1);
  tsr_process_group* pg = (tsr_process_group*)SENTINEL;
  TSR_ASSERT_FAILS(init_mpi(&pg), TSR_ERR_UNSUPPORTED,
                   "MPI module not found: could not load /nonexistent/libtessera_mpi.so (from $TSR_MPI_MODULE)");
  /* The first failure is kept and repeated. */
  TSR_ASSERT_FAILS(init_mpi(&pg), TSR_ERR_UNSUPPORTED, "could not load /nonexistent/libtessera_mpi.so");
  cr_assert_eq(pg, (tsr_process_group*)SENTINEL, "out changed by a failed init");
}

Test(distributed_mpi_loader, not_a_module) {
  char path[4096];
  library_directory(path, sizeof path);
  strncat(path, "libtessera.so", sizeof path - strlen(path) - 1);
  setenv("TSR_MPI_MODULE", path, 1);
  tsr_process_group* pg = (tsr_process_group*)SENTINEL;
  TSR_ASSERT_FAILS(init_mpi(&pg), TSR_ERR_UNSUPPORTED, "is not a tessera MPI module: symbol tsr_mpi_module_init is missing");
  cr_assert_eq(pg, (tsr_process_group*)SENTINEL, "out changed by a failed init");
}

/* Without TSR_MPI_MODULE: a build without Open MPI has no module beside
 * libtessera.so and says so; where the module is built, tests/mpi runs it. */
Test(distributed_mpi_loader, not_built) {
  char path[4096];
  library_directory(path, sizeof path);
  strncat(path, "libtessera_mpi.so", sizeof path - strlen(path) - 1);
  if (access(path, F_OK) == 0) cr_skip_test("the MPI module is built (%s): tests/mpi runs it under mpirun", path);
  unsetenv("TSR_MPI_MODULE");
  tsr_process_group* pg = (tsr_process_group*)SENTINEL;
  TSR_ASSERT_FAILS(init_mpi(&pg), TSR_ERR_UNSUPPORTED, "the MPI backend is not built in this tessera");
  cr_assert_eq(pg, (tsr_process_group*)SENTINEL, "out changed by a failed init");
}

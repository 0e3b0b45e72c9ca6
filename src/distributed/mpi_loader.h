// Loads the MPI module (libtessera_mpi.so, distributed/mpi_module.h) the
// first time a group asks for TSR_DIST_MPI, as plugin/cuda_loader.cpp loads
// the CUDA plugin: libtessera.so never links MPI, so a program that uses
// Gloo runs where Open MPI is not installed, and one that asks for MPI
// there gets TSR_ERR_UNSUPPORTED saying why.
//
// Where the module is looked for: $TSR_MPI_MODULE (a path) when set, else
// libtessera_mpi.so next to the library holding this code.
#pragma once

#include "distributed/mpi_module.h"

namespace tsr::distributed {

// The loaded module (loaded once; it stays loaded until exit, as MPI
// cannot be unloaded). Throws tsr::Error (TSR_ERR_UNSUPPORTED) when it is
// missing, not a tessera MPI module, or from another build; every later
// call repeats the first failure.
MpiModule& mpi_module();

}  // namespace tsr::distributed

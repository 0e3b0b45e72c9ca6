#!/bin/bash
# libtessera.so must run where no MPI is installed: no MPI library among its
# NEEDED entries and no undefined MPI symbol (the MPI backend is the
# dlopen'd module, src/distributed/mpi_loader.cpp); the module exports its
# entry point and nothing else.
#   check_no_mpi_link.sh LIBTESSERA LIBTESSERA_MPI
set -euo pipefail
lib=$1 module=$2
needed=$(readelf -d "$lib" | awk '/\(NEEDED\)/ {print $NF}')
if grep -Ei 'mpi|open-pal|open-rte|pmix' <<<"$needed"; then
  echo "FAILED: libtessera.so needs an MPI library (above)" >&2
  exit 1
fi
if nm -D --undefined-only "$lib" | awk '{print $NF}' | grep -E '^(MPI|PMPI|ompi)_'; then
  echo "FAILED: libtessera.so has undefined MPI symbols (above)" >&2
  exit 1
fi
exported=$(nm -D --defined-only "$module" | awk '{print $NF}')
if [ "$exported" != tsr_mpi_module_init ]; then
  echo "FAILED: $module exports more or other than tsr_mpi_module_init:" >&2
  echo "$exported" >&2
  exit 1
fi
readelf -d "$module" | grep -q 'NEEDED.*libmpi' || { echo "FAILED: $module does not link libmpi" >&2; exit 1; }
echo "libtessera.so needs no MPI library; $module links libmpi and exports tsr_mpi_module_init only"

#!/bin/bash
# libtessera.so must run where no CUDA is installed: no CUDA library among
# its NEEDED entries and no undefined symbol from one (the CUDA backend is
# the dlopen'd plugin, src/plugin/cuda_loader.cpp).
#   check_no_cuda_link.sh LIBTESSERA
set -euo pipefail
lib=$1
needed=$(readelf -d "$lib" | awk '/\(NEEDED\)/ {print $NF}')
echo "NEEDED entries of $lib:"
echo "$needed"
if grep -Ei 'cuda|cublas|nvrtc|nvidia' <<<"$needed"; then
  echo "FAILED: libtessera.so needs a CUDA library" >&2
  exit 1
fi
undefined=$(nm -D --undefined-only "$lib" | awk '{print $NF}')
if grep -Ei 'cuda|cublas' <<<"$undefined"; then
  echo "FAILED: libtessera.so has undefined CUDA symbols (above)" >&2
  exit 1
fi
# The loader's own entry point must be there to look for, and exported
# symbols naming cuda are tessera's own API (tsr_cuda_*).
defined=$(nm -D --defined-only "$lib" | awk '{print $NF}')
if ! grep -qx 'tsr_cuda_is_available' <<<"$defined"; then
  echo "FAILED: tsr_cuda_is_available is not exported" >&2
  exit 1
fi
echo "no CUDA library needed, $(wc -l <<<"$undefined") undefined symbols, none from CUDA"

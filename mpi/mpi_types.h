// tessera's dtypes and reductions as MPI datatypes and ops. MPI's own ops
// where their result is torch's (integer SUM/PRODUCT/MIN/MAX, floating SUM
// and PRODUCT, bool's or/and); user-defined ops (MPI_Op_create) that call
// libtessera's reduce functions elsewhere: float16 and bfloat16, which MPI
// 4.1 has no type for, compute in float32 and round once, and the floating
// MIN and MAX propagate NaN as torch's do (MPI_MIN need not).
#pragma once

#include <mpi.h>

#include <tessera/distributed.h>
#include <tessera/types.h>

#include "distributed/mpi_module.h"

namespace tsr::distributed::mpi {

// Caller holds mpi_mutex(). Throws tsr::Error (TSR_ERR_UNSUPPORTED) for a
// dtype MPI cannot carry (the storage-only ones).
MPI_Datatype datatype_of(tsr_dtype dtype);
// op is SUM, PRODUCT, MIN or MAX; fn computes it for a user-defined op.
MPI_Op op_for(tsr_dtype dtype, tsr_reduce_op op, MpiReduceFn fn);

}  // namespace tsr::distributed::mpi

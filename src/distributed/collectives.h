// The collectives on tensors (c10d's ProcessGroup ops): each checks its
// arguments on the caller's thread, then hands the group a Collective that
// stages non-contiguous tensors through contiguous copies and calls the
// backend of the tensors' device. async == false returns when done
// (throwing its failure).
#pragma once

#include <memory>

#include <tessera/distributed.h>

#include "core/tensor.h"
#include "distributed/process_group.h"

namespace tsr::distributed {

std::shared_ptr<Work> all_reduce(ProcessGroup& pg, const Tensor& tensor, tsr_reduce_op op, bool async);
std::shared_ptr<Work> broadcast(ProcessGroup& pg, const Tensor& tensor, int root, bool async);
std::shared_ptr<Work> all_gather_into_tensor(ProcessGroup& pg, const Tensor& output, const Tensor& input,
                                             bool async);
std::shared_ptr<Work> reduce_scatter_tensor(ProcessGroup& pg, const Tensor& output, const Tensor& input,
                                            tsr_reduce_op op, bool async);
std::shared_ptr<Work> barrier(ProcessGroup& pg, bool async);

// Point to point (torch's send / isend, recv / irecv): posted in issue
// order with the group's collectives, completed apart from them (see
// distributed.h). peer: a rank of pg (recv: -1 = any other); the returned
// Work's peer() is the sender of a receive once it completed.
std::shared_ptr<Work> send(ProcessGroup& pg, const Tensor& tensor, int dst, int tag, bool async);
std::shared_ptr<Work> recv(ProcessGroup& pg, const Tensor& tensor, int src, int tag, bool async);

}  // namespace tsr::distributed

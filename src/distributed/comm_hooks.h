// DistributedDataParallel's built-in communication hooks
// (torch/distributed/algorithms/ddp_comm_hooks/default_hooks.py): what a
// bucket sends and how the reduced values come back into it.
#pragma once

#include <tessera/distributed.h>

#include "core/tensor.h"

namespace tsr::distributed {

// Whether the reducer divides the gradients by the world size as it copies
// them into a bucket (no hook, as torch's reducer), or the hook divides.
bool reducer_divides(tsr_ddp_comm_hook hook);
// The tensor to all-reduce (sum) for a bucket: the bucket itself without a
// hook; for the compress hooks, the bucket cast to float16 / bfloat16 and
// divided by the world size in that dtype (torch's
// bucket.buffer().to(torch.float16).div_(world_size)).
Tensor comm_hook_input(tsr_ddp_comm_hook hook, const Tensor& contents, int world);
// Writes the all-reduced values back into the bucket (the compress hooks'
// decompress: contents.copy_(reduced)); nothing without a hook.
void comm_hook_output(tsr_ddp_comm_hook hook, const Tensor& contents, const Tensor& reduced);

}  // namespace tsr::distributed

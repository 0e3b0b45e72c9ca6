#include "distributed/comm_hooks.h"

#include "autograd/grad_mode.h"
#include "ops/layout.h"
#include "ops/loss_util.h"

namespace tsr::distributed {
namespace {

tsr_dtype compressed_dtype(tsr_ddp_comm_hook hook) {
  return hook == TSR_DDP_FP16_COMPRESS ? TSR_FLOAT16 : TSR_BFLOAT16;
}

}  // namespace

bool reducer_divides(tsr_ddp_comm_hook hook) { return hook == TSR_DDP_ALLREDUCE; }

Tensor comm_hook_input(tsr_ddp_comm_hook hook, const Tensor& contents, int world) {
  if (hook == TSR_DDP_ALLREDUCE) return contents;
  autograd::NoGradGuard no_grad;
  // Divided after the cast, in the compressed dtype, as torch's hooks do
  // (dividing first would avoid overflow in the cast, but would round
  // differently from torch).
  return ops::div_scalar(ops::to_dtype(contents, compressed_dtype(hook)), double(world));
}

void comm_hook_output(tsr_ddp_comm_hook hook, const Tensor& contents, const Tensor& reduced) {
  if (hook == TSR_DDP_ALLREDUCE) return;
  autograd::NoGradGuard no_grad;
  ops::copy_(contents, reduced);
}

}  // namespace tsr::distributed

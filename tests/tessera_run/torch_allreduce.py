# A worker for check.sh's torch case: PyTorch 1.13 joins the job from
# tessera-run's environment alone (init_process_group's env://: RANK,
# WORLD_SIZE, MASTER_ADDR, MASTER_PORT; rank 0 hosts the store) and sums
# rank + 1 over all ranks with gloo.
import torch
import torch.distributed as dist

dist.init_process_group("gloo")
t = torch.tensor([float(dist.get_rank() + 1)])
dist.all_reduce(t)
print(f"rank {dist.get_rank()}/{dist.get_world_size()} sum {t.item():g}")
dist.destroy_process_group()

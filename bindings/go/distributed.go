package tessera

import (
	"runtime"
	"time"

	"tessera.dev/tessera/internal/capi"
)

// ProcessGroup is torch.distributed's process group (PyTorch 1.13's
// init_process_group and collectives over include/tessera/distributed.h):
// every process of a job joins it with the same rendezvous settings, then
// calls the same collectives in the same order with matching tensors.
//
//	pg, err := tessera.NewProcessGroup(tessera.DefaultProcessGroupOptions()) // env://
//	defer pg.Close()
//	err = pg.AllReduce(grad, tessera.ReduceSum)           // returns when done
//	w, err := pg.AllReduceAsync(other, tessera.ReduceAvg) // runs in the background
//	err = w.Wait(0)                                       // the group's timeout
//	w.Close()
//
// Failures of the rendezvous or of a collective (a peer died or hung past
// the timeout) are errors with status Distributed. Close releases the group
// (after its queued collectives); a finalizer does if you do not. A group
// may be used from several goroutines; its collectives run in call order.
type ProcessGroup struct {
	handle capi.SwigcptrProcessGroup // 0 once closed
}

// DistBackend is the engine behind a group (torch.distributed.Backend).
type DistBackend int

// The values of tsr_dist_backend.
const (
	DistDefault DistBackend = 0 // Gloo for CPU tensors (NCCL for CUDA ones, not built yet)
	DistGloo    DistBackend = 1 // Gloo over TCP
	DistNCCL    DistBackend = 2 // not built yet: Unsupported
	DistMPI     DistBackend = 3 // not built yet: Unsupported
)

// ReduceOp is the reduction of a collective (torch.distributed.ReduceOp).
type ReduceOp int

// The values of tsr_reduce_op.
const (
	ReduceSum     ReduceOp = 0
	ReduceAvg     ReduceOp = 1 // the sum divided by the world size (truncating for integers)
	ReduceProduct ReduceOp = 2
	ReduceMin     ReduceOp = 3
	ReduceMax     ReduceOp = 4
	ReduceBand    ReduceOp = 5 // bitwise and: integer and bool tensors only
	ReduceBor     ReduceOp = 6 // bitwise or: integer and bool tensors only
	ReduceBxor    ReduceOp = 7 // bitwise exclusive or: integer and bool tensors only
)

// ProcessGroupOptions are init_process_group's arguments; start from
// DefaultProcessGroupOptions.
type ProcessGroupOptions struct {
	Backend    DistBackend
	InitMethod string        // "" or "env://", "tcp://host:port", "file:///dir"
	Rank       int32         // -1: RANK from the environment
	WorldSize  int32         // -1: WORLD_SIZE from the environment
	Timeout    time.Duration // the rendezvous and each collective; 0: 30 minutes
}

// DefaultProcessGroupOptions are torch's: env://, the default backend, rank
// and world size from the environment, 30 minutes.
func DefaultProcessGroupOptions() ProcessGroupOptions {
	return ProcessGroupOptions{Backend: DistDefault, Rank: -1, WorldSize: -1}
}

// NewProcessGroup is init_process_group(**opts): joins the rendezvous and
// connects to every other rank; returns when all have joined. Errors:
// InvalidArgument (a bad option or environment variable, a rank outside
// [0, world size)), Unsupported (NCCL, MPI), Distributed (the store is
// unreachable or not every rank joined within the timeout).
func NewProcessGroup(opts ProcessGroupOptions) (pg *ProcessGroup, err error) {
	defer recoverFailure(&err)
	h := capi.ProcessGroupCreate(capi.Enum_SS_tsr_dist_backend(opts.Backend), opts.InitMethod, int(opts.Rank),
		int(opts.WorldSize), opts.Timeout.Milliseconds())
	return own(&ProcessGroup{handle: capi.SwigcptrProcessGroup(h)}, (*ProcessGroup).Close), nil
}

// Close releases the group (destroy_process_group): waits for its queued
// collectives, then closes its connections. Idempotent; nil is fine.
func (pg *ProcessGroup) Close() error {
	if pg != nil {
		release(pg, &pg.handle, func(h capi.SwigcptrProcessGroup) { capi.DeleteProcessGroup(h) })
	}
	return nil
}

func (pg *ProcessGroup) c() capi.SwigcptrProcessGroup {
	if pg == nil {
		return 0
	}
	return pg.handle
}

// Rank is get_rank(): this process's rank in [0, Size()).
func (pg *ProcessGroup) Rank() (int, error) {
	defer runtime.KeepAlive(pg)
	return call(func() int { return pg.c().Rank() })
}

// Size is get_world_size().
func (pg *ProcessGroup) Size() (int, error) {
	defer runtime.KeepAlive(pg)
	return call(func() int { return pg.c().Size() })
}

// Backend is get_backend(): "gloo".
func (pg *ProcessGroup) Backend() (string, error) {
	defer runtime.KeepAlive(pg)
	return call(func() string { return pg.c().Backend() })
}

// collective runs issue (one wrapper call) and wraps the Work it returns
// (async) or checks that it returned none.
func (pg *ProcessGroup) collective(async bool, issue func(capi.SwigcptrProcessGroup) uintptr, keep ...*Tensor) (*Work, error) {
	defer runtime.KeepAlive(pg)
	defer runtime.KeepAlive(keep)
	h, err := call(func() uintptr { return issue(pg.c()) })
	if err != nil || !async {
		return nil, err
	}
	return own(&Work{handle: capi.SwigcptrWork(h)}, (*Work).Close), nil
}

// AllReduce is all_reduce(tensor, op): every rank's tensor (any strides,
// in place) becomes the reduction of all ranks' tensors.
func (pg *ProcessGroup) AllReduce(tensor *Tensor, op ReduceOp) error {
	_, err := pg.AllReduceWork(tensor, op, false)
	return err
}

// AllReduceAsync is all_reduce(tensor, op, async_op=True): tensor must not
// be used until the Work's Wait returns.
func (pg *ProcessGroup) AllReduceAsync(tensor *Tensor, op ReduceOp) (*Work, error) {
	return pg.AllReduceWork(tensor, op, true)
}

// AllReduceWork is all_reduce(tensor, op, async_op=async): a Work when
// async, else nil once complete.
func (pg *ProcessGroup) AllReduceWork(tensor *Tensor, op ReduceOp, async bool) (*Work, error) {
	return pg.collective(async, func(h capi.SwigcptrProcessGroup) uintptr {
		return h.All_reduce(tensor.cptr(), capi.Enum_SS_tsr_reduce_op(op), async)
	}, tensor)
}

// Broadcast is broadcast(tensor, src, async_op=async): every rank's tensor
// becomes rank src's. A Work when async, else nil once complete.
func (pg *ProcessGroup) Broadcast(tensor *Tensor, src int, async bool) (*Work, error) {
	return pg.collective(async, func(h capi.SwigcptrProcessGroup) uintptr {
		return h.Broadcast(tensor.cptr(), src, async)
	}, tensor)
}

// AllGatherIntoTensor is all_gather_into_tensor(output, input,
// async_op=async): output holds every rank's input, rank r's at elements
// [r·n, (r+1)·n) in C order.
func (pg *ProcessGroup) AllGatherIntoTensor(output, input *Tensor, async bool) (*Work, error) {
	return pg.collective(async, func(h capi.SwigcptrProcessGroup) uintptr {
		return h.All_gather_into_tensor(output.cptr(), input.cptr(), async)
	}, output, input)
}

// ReduceScatterTensor is reduce_scatter_tensor(output, input, op,
// async_op=async): output is chunk rank of the reduction of every rank's
// input (world size · output's numel elements).
func (pg *ProcessGroup) ReduceScatterTensor(output, input *Tensor, op ReduceOp, async bool) (*Work, error) {
	return pg.collective(async, func(h capi.SwigcptrProcessGroup) uintptr {
		return h.Reduce_scatter_tensor(output.cptr(), input.cptr(), capi.Enum_SS_tsr_reduce_op(op), async)
	}, output, input)
}

// Barrier is barrier(async_op=async): returns (or its Work completes) when
// every rank has entered it.
func (pg *ProcessGroup) Barrier(async bool) (*Work, error) {
	return pg.collective(async, func(h capi.SwigcptrProcessGroup) uintptr { return h.Barrier(async) })
}

// MonitoredBarrier is monitored_barrier(timeout=timeout,
// wait_all_ranks=waitAllRanks): a barrier after which rank 0 names the
// ranks that did not enter it within timeout (<= 0: the group's timeout),
// status Distributed: "[Rank 0]: Rank 1 failed to pass monitoredBarrier in
// 1000 ms" (every late rank with waitAllRanks), and on the other ranks
// "Rank r successfully reached monitoredBarrier, but rank 0 reported: ...".
// It goes through the group's store, leaves the group usable, and does not
// wait for queued async work.
func (pg *ProcessGroup) MonitoredBarrier(timeout time.Duration, waitAllRanks bool) error {
	defer runtime.KeepAlive(pg)
	return do(func() { pg.c().Monitored_barrier(timeout.Milliseconds(), waitAllRanks) })
}

// Work is torch's Work: a collective queued with async. Close drops the
// handle (the collective still runs to its end); a finalizer does if you
// do not.
type Work struct {
	handle capi.SwigcptrWork // 0 once closed
}

// Wait is Work.wait(timeout): nil when the collective succeeded, its
// failure (status Distributed) otherwise. timeout <= 0 is the group's
// timeout; a wait that times out aborts the group (the collective cannot
// be cancelled), so poll IsCompleted for a shorter check.
func (w *Work) Wait(timeout time.Duration) error {
	defer runtime.KeepAlive(w)
	ms := timeout.Milliseconds()
	if timeout <= 0 {
		ms = -1
	}
	return do(func() { w.c().Wait(ms) })
}

// IsCompleted is Work.is_completed(): whether the collective has finished
// (successfully or not); never blocks.
func (w *Work) IsCompleted() bool {
	defer runtime.KeepAlive(w)
	done, err := call(func() bool { return w.c().Is_completed() })
	return err == nil && done
}

// Close drops the handle; idempotent, and nil is fine.
func (w *Work) Close() error {
	if w != nil {
		release(w, &w.handle, func(h capi.SwigcptrWork) { capi.DeleteWork(h) })
	}
	return nil
}

func (w *Work) c() capi.SwigcptrWork {
	if w == nil {
		return 0
	}
	return w.handle
}

// NewGroup is new_group(ranks, timeout) (tsr_new_group): a group of some of
// pg's ranks (all of them for nil), renumbered in their sorted order, with
// connections of its own. Every rank of pg calls it, in the same order; the
// ranks not in ranks get a nil group and a nil error. timeout 0: pg's.
func (pg *ProcessGroup) NewGroup(ranks []int64, timeout time.Duration) (*ProcessGroup, error) {
	defer runtime.KeepAlive(pg)
	all := ranks == nil
	if all {
		ranks = []int64{}
	}
	h, err := call(func() uintptr { return pg.c().New_group(ranks, all, timeout.Milliseconds()) })
	if err != nil || h == 0 {
		return nil, err
	}
	return own(&ProcessGroup{handle: capi.SwigcptrProcessGroup(h)}, (*ProcessGroup).Close), nil
}

// GlobalRank is get_global_rank(pg, groupRank): the rank in the job's
// group of pg's rank groupRank.
func (pg *ProcessGroup) GlobalRank(groupRank int) (int, error) {
	defer runtime.KeepAlive(pg)
	return call(func() int { return pg.c().Global_rank(groupRank) })
}

// GroupRank is get_group_rank(pg, globalRank): pg's rank of the job's rank
// globalRank (InvalidArgument when it is not a member).
func (pg *ProcessGroup) GroupRank(globalRank int) (int, error) {
	defer runtime.KeepAlive(pg)
	return call(func() int { return pg.c().Group_rank(globalRank) })
}

// Send is send(tensor, dst, tag) (async: isend): to rank dst of pg.
func (pg *ProcessGroup) Send(tensor *Tensor, dst, tag int, async bool) (*Work, error) {
	return pg.collective(async, func(h capi.SwigcptrProcessGroup) uintptr {
		return h.Send(tensor.cptr(), dst, tag, async)
	}, tensor)
}

// Recv is recv(tensor, src, tag): receives from rank src of pg (-1: any)
// and returns the sender's rank.
func (pg *ProcessGroup) Recv(tensor *Tensor, src, tag int) (int, error) {
	defer runtime.KeepAlive(pg)
	defer runtime.KeepAlive(tensor)
	return call(func() int { return pg.c().Recv(tensor.cptr(), src, tag) })
}

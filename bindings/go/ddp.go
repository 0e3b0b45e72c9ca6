package tessera

import (
	"math"
	"runtime"
	"strings"
	"sync/atomic"

	"tessera.dev/tessera/internal/capi"
)

// DistributedDataParallel is torch.nn.parallel.DistributedDataParallel over
// a set of parameters (include/tessera/distributed.h's tsr_ddp): after
// NewDistributedDataParallel every backward reaching the parameters leaves
// each Grad averaged over the group.
//
//	ddp, err := tessera.NewDistributedDataParallel(pg, []*tessera.Tensor{w, b}, tessera.DefaultDDPOptions())
//	defer ddp.Close()
//	err = loss.Backward()                           // w.Grad(), b.Grad(): the ranks' average
//	err = ddp.NoSync(func() error { return loss2.Backward() }) // local accumulation
//
// It keeps its own references to the group and to every parameter (closing
// the caller's handles is fine); Close removes its hooks, and a finalizer
// does if you do not. One backward at a time may run through the
// parameters.
type DistributedDataParallel struct {
	handle      capi.SwigcptrDdp // 0 once closed
	requireSync atomic.Bool      // require_backward_grad_sync
}

// DDPCommHook is how buckets are reduced (torch's built-in DDP
// communication hooks).
type DDPCommHook int

// The values of tsr_ddp_comm_hook.
const (
	DDPAllReduce    DDPCommHook = 0 // all-reduce of the gradients divided by the world size (no hook)
	DDPFP16Compress DDPCommHook = 1 // torch's fp16_compress_hook
	DDPBF16Compress DDPCommHook = 2 // torch's bf16_compress_hook
)

// DDPOptions are DistributedDataParallel's arguments; start from
// DefaultDDPOptions.
type DDPOptions struct {
	BucketCapMB          float64     // MiB per bucket (the first holds 1 MiB, as torch's)
	FindUnusedParameters bool        // parameters may get no gradient in an iteration
	GradientAsBucketView bool        // each Grad becomes a view into its bucket
	CommHook             DDPCommHook // register_comm_hook with a built-in hook
}

// DefaultDDPOptions are torch's: 25 MiB buckets, no unused parameters,
// copies, no hook.
func DefaultDDPOptions() DDPOptions {
	return DDPOptions{BucketCapMB: 25, CommHook: DDPAllReduce}
}

// NewDistributedDataParallel is DistributedDataParallel(module,
// process_group=pg, ...) over params (distinct leaves that require grad,
// floating, CPU). Collective: every rank of pg calls it with its replica of
// the same parameters, whose values become rank 0's. Errors:
// InvalidArgument (bad parameters or options, ranks whose parameters
// differ), Unsupported (a parameter not on the CPU), Distributed (a rank
// missing or dead).
func NewDistributedDataParallel(pg *ProcessGroup, params []*Tensor, opts DDPOptions) (ddp *DistributedDataParallel, err error) {
	capBytes := math.Round(opts.BucketCapMB * 1024 * 1024)
	if !(opts.BucketCapMB > 0) || capBytes < 1 || capBytes > math.MaxInt64/2 {
		return nil, newError(InvalidArgument, "DistributedDataParallel: BucketCapMB must be positive and finite")
	}
	defer recoverFailure(&err)
	defer runtime.KeepAlive(pg)
	list := capi.SwigcptrTensorList(capi.NewTensorList().Swigcptr())
	defer capi.DeleteTensorList(list)
	fillList(list, params, false)
	h := capi.DdpCreate(uintptr(pg.c()), uintptr(list), int64(capBytes), opts.FindUnusedParameters,
		opts.GradientAsBucketView, capi.Enum_SS_tsr_ddp_comm_hook(opts.CommHook))
	ddp = &DistributedDataParallel{handle: capi.SwigcptrDdp(h)}
	ddp.requireSync.Store(true)
	return own(ddp, (*DistributedDataParallel).Close), nil
}

// Close drops the reducer (its hooks are removed with the last reference);
// idempotent, and nil is fine.
func (d *DistributedDataParallel) Close() error {
	if d != nil {
		release(d, &d.handle, func(h capi.SwigcptrDdp) { capi.DeleteDdp(h) })
	}
	return nil
}

func (d *DistributedDataParallel) c() capi.SwigcptrDdp {
	if d == nil {
		return 0
	}
	return d.handle
}

// SetRequireSync is what torch's no_sync() context toggles: while false,
// backward passes accumulate gradients locally without communication; the
// next backward with true averages what was accumulated.
func (d *DistributedDataParallel) SetRequireSync(requireSync bool) error {
	defer runtime.KeepAlive(d)
	err := do(func() { d.c().Set_require_sync(requireSync) })
	if err == nil {
		d.requireSync.Store(requireSync)
	}
	return err
}

// RequireSync is require_backward_grad_sync: false inside NoSync.
func (d *DistributedDataParallel) RequireSync() bool {
	return d != nil && d.requireSync.Load()
}

// NoSync is torch's `with ddp.no_sync():` around body: its backward passes
// keep their gradients local (accumulated); the previous setting is back
// (as torch's, so calls nest) when body returns or panics. It returns
// body's error, else the toggle's.
func (d *DistributedDataParallel) NoSync(body func() error) (err error) {
	old := d.RequireSync()
	if err := d.SetRequireSync(false); err != nil {
		return err
	}
	defer func() {
		if e := d.SetRequireSync(old); err == nil {
			err = e
		}
	}()
	return body()
}

// RegisterCommHook is register_comm_hook with a built-in hook; once per
// reducer (InvalidArgument for a second one, counting DDPOptions.CommHook).
func (d *DistributedDataParallel) RegisterCommHook(hook DDPCommHook) error {
	defer runtime.KeepAlive(d)
	return do(func() { d.c().Register_comm_hook(capi.Enum_SS_tsr_ddp_comm_hook(hook)) })
}

// SetParamNames names the parameters (module.named_parameters()), in the
// order given to NewDistributedDataParallel: the unused-parameter error
// lists them. A name may not hold a newline.
func (d *DistributedDataParallel) SetParamNames(names []string) error {
	for _, n := range names {
		if strings.ContainsRune(n, '\n') {
			return newError(InvalidArgument, "SetParamNames: a name holds a newline")
		}
	}
	defer runtime.KeepAlive(d)
	return do(func() { d.c().Set_param_names(strings.Join(names, "\n")) })
}

// NumParams is the number of parameters.
func (d *DistributedDataParallel) NumParams() (int64, error) {
	defer runtime.KeepAlive(d)
	return call(func() int64 { return d.c().Num_params() })
}

// BucketIndices is the bucket assignment in reduction order: each bucket's
// parameter indices.
func (d *DistributedDataParallel) BucketIndices() ([][]int64, error) {
	defer runtime.KeepAlive(d)
	flat, err := call(func() []int64 { return d.c().Bucket_indices() })
	if err != nil {
		return nil, err
	}
	nb := int(flat[0])
	buckets := make([][]int64, nb)
	at := 1 + nb
	for b := 0; b < nb; b++ {
		n := int(flat[1+b])
		buckets[b] = append([]int64(nil), flat[at:at+n]...)
		at += n
	}
	return buckets, nil
}

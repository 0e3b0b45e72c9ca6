package tessera_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"tessera.dev/tessera"
)

// DistributedDataParallel: two ranks, each this test binary run again with
// -test.run=^TestDDPRank$ and its rank in the environment, averaging a
// linear layer's gradients; and the options, NoSync and the errors in a
// group of one.

const (
	ddpWorld     = 2
	ddpTolerance = 1e-12
	ddpDeadline  = 60 * time.Second // both ranks; a hang fails the test, never the suite
)

func ddpInitial(rank, n int) []float64 {
	v := make([]float64, n)
	scale := 1.0
	if rank != 0 {
		scale = -3
	}
	for i := range v {
		v[i] = 0.125*float64(i+1)*scale + float64(rank)
	}
	return v
}

func ddpLeaf(t *testing.T, values []float64, sizes ...int64) *tessera.Tensor {
	x := got(tessera.FromFloat64s(values, sizes, tessera.Float64)).ok(t)
	noErr(t, x.SetRequiresGrad(true))
	return x
}

// ddpBackward is mse(x @ w.T + b, y) on rank's batch, then backward.
func ddpBackward(t *testing.T, w, b *tessera.Tensor, rank int) {
	xs, ys := make([]float64, 12), make([]float64, 8)
	for i := range xs {
		xs[i] = 0.25*float64((i*7+rank*5)%11) - 1
	}
	for i := range ys {
		ys[i] = 0.5*float64((i*3+rank)%5) - 1
	}
	var closers []*tessera.Tensor
	keep := func(x *tessera.Tensor) *tessera.Tensor { closers = append(closers, x); return x }
	defer func() {
		for _, c := range closers {
			c.Close()
		}
	}()
	x := keep(got(tessera.FromFloat64s(xs, []int64{4, 3}, tessera.Float64)).ok(t))
	y := keep(got(tessera.FromFloat64s(ys, []int64{4, 2}, tessera.Float64)).ok(t))
	wt := keep(got(w.T()).ok(t))
	xw := keep(got(x.Matmul(wt)).ok(t))
	pred := keep(got(xw.Add(b)).ok(t))
	diff := keep(got(pred.Sub(y)).ok(t))
	sq := keep(got(diff.Mul(diff)).ok(t))
	loss := keep(got(sq.Mean(nil, false)).ok(t))
	noErr(t, loss.Backward())
}

func ddpGrads(t *testing.T, w, b *tessera.Tensor) []float64 {
	gw := got(w.Grad()).ok(t)
	defer gw.Close()
	gb := got(b.Grad()).ok(t)
	defer gb.Close()
	return append(got(gw.Float64s()).ok(t), got(gb.Float64s()).ok(t)...)
}

// ddpLocalGradients are rank's gradients of rank 0's initial parameters,
// computed without DDP.
func ddpLocalGradients(t *testing.T, rank int) []float64 {
	w := ddpLeaf(t, ddpInitial(0, 6), 2, 3)
	defer w.Close()
	b := ddpLeaf(t, ddpInitial(0, 2), 2)
	defer b.Close()
	ddpBackward(t, w, b, rank)
	return ddpGrads(t, w, b)
}

func ddpCombine(a, b []float64, scale float64) []float64 {
	out := make([]float64, len(a))
	for i := range a {
		out[i] = (a[i] + b[i]) * scale
	}
	return out
}

func TestDDPTwoRanksAverageGradients(t *testing.T) {
	address := freeAddress(t)
	ctx, cancel := context.WithTimeout(context.Background(), ddpDeadline)
	defer cancel()
	cmds := make([]*exec.Cmd, ddpWorld)
	outs := make([]strings.Builder, ddpWorld)
	for rank := range cmds {
		cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestDDPRank$", "-test.count=1")
		cmd.Env = append(os.Environ(), "TSR_TEST_DDP_ADDRESS="+address, "TSR_TEST_DDP_RANK="+strconv.Itoa(rank))
		cmd.Stdout, cmd.Stderr = &outs[rank], &outs[rank]
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds[rank] = cmd
	}
	for rank, cmd := range cmds {
		err := cmd.Wait()
		if ctx.Err() != nil {
			t.Fatalf("rank %d did not finish within %v:\n%s", rank, ddpDeadline, outs[rank].String())
		}
		if err != nil || !strings.Contains(outs[rank].String(), "ddp rank "+strconv.Itoa(rank)+" ok") {
			t.Errorf("rank %d: %v:\n%s", rank, err, outs[rank].String())
		}
	}
}

// TestDDPRank is one rank of TestDDPTwoRanksAverageGradients (skipped
// unless started by it): a linear layer whose initial values differ per
// rank; DDP makes them rank 0's, a backward leaves the average of both
// ranks' gradients (computed here without DDP), NoSync leaves them local
// and the next backward averages the accumulation.
func TestDDPRank(t *testing.T) {
	address, rankText := os.Getenv("TSR_TEST_DDP_ADDRESS"), os.Getenv("TSR_TEST_DDP_RANK")
	if address == "" {
		t.Skip("a rank of TestDDPTwoRanksAverageGradients")
	}
	rank := got(strconv.Atoi(rankText)).ok(t)
	g0, g1 := ddpLocalGradients(t, 0), ddpLocalGradients(t, 1)
	if reflect.DeepEqual(g0, g1) {
		t.Fatal("the ranks' batches give the same gradients")
	}
	mine := g0
	if rank == 1 {
		mine = g1
	}
	w := ddpLeaf(t, ddpInitial(rank, 6), 2, 3)
	defer w.Close()
	b := ddpLeaf(t, ddpInitial(rank, 2), 2)
	defer b.Close()
	o := tessera.DefaultProcessGroupOptions()
	o.InitMethod, o.Rank, o.WorldSize, o.Timeout = address, int32(rank), ddpWorld, 20*time.Second
	pg := got(tessera.NewProcessGroup(o)).ok(t)
	opts := tessera.DefaultDDPOptions()
	opts.BucketCapMB = 1
	ddp := got(tessera.NewDistributedDataParallel(pg, []*tessera.Tensor{w, b}, opts)).ok(t)
	pg.Close() // the reducer keeps the group alive
	defer ddp.Close()

	if v := got(w.Float64s()).ok(t); !reflect.DeepEqual(v, ddpInitial(0, 6)) {
		t.Fatalf("weight not broadcast from rank 0: %v", v)
	}
	if v := got(b.Float64s()).ok(t); !reflect.DeepEqual(v, ddpInitial(0, 2)) {
		t.Fatalf("bias not broadcast from rank 0: %v", v)
	}
	ddpBackward(t, w, b, rank)
	if v := ddpGrads(t, w, b); !closeTo(v, ddpCombine(g0, g1, 0.5), ddpTolerance) {
		t.Fatalf("grads %v, want the ranks' average %v", v, ddpCombine(g0, g1, 0.5))
	}
	noErr(t, w.ZeroGrad())
	noErr(t, b.ZeroGrad())
	noErr(t, ddp.NoSync(func() error { ddpBackward(t, w, b, rank); return nil }))
	if v := ddpGrads(t, w, b); !closeTo(v, mine, ddpTolerance) {
		t.Fatalf("grads in NoSync %v, want local %v", v, mine)
	}
	ddpBackward(t, w, b, rank) // averages this pass plus what NoSync accumulated
	if v := ddpGrads(t, w, b); !closeTo(v, ddpCombine(g0, g1, 1), ddpTolerance) {
		t.Fatalf("grads after NoSync %v, want %v", v, ddpCombine(g0, g1, 1))
	}
	os.Stdout.WriteString("ddp rank " + rankText + " ok\n")
}

func TestDDPGroupOfOne(t *testing.T) {
	pg := got(tessera.NewProcessGroup(groupOptions(t, 0, 1))).ok(t)
	defer pg.Close()
	w := ddpLeaf(t, ddpInitial(0, 6), 2, 3)
	defer w.Close()
	b := ddpLeaf(t, ddpInitial(0, 2), 2)
	defer b.Close()
	opts := tessera.DDPOptions{BucketCapMB: 1, FindUnusedParameters: true, CommHook: tessera.DDPAllReduce}
	ddp := got(tessera.NewDistributedDataParallel(pg, []*tessera.Tensor{w, b}, opts)).ok(t)
	defer ddp.Close()
	if n := got(ddp.NumParams()).ok(t); n != 2 {
		t.Fatalf("NumParams %d", n)
	}
	noErr(t, ddp.SetParamNames([]string{"linear.weight", "linear.bias"}))
	if bk := got(ddp.BucketIndices()).ok(t); !reflect.DeepEqual(bk, [][]int64{{0, 1}}) {
		t.Fatalf("buckets %v", bk)
	}
	noErr(t, ddp.NoSync(func() error {
		noErr(t, ddp.NoSync(func() error {
			if ddp.RequireSync() {
				t.Error("sync inside NoSync")
			}
			return nil
		}))
		if ddp.RequireSync() {
			t.Error("an inner NoSync did not restore the outer one's setting (torch's no_sync)")
		}
		return nil
	}))
	if !ddp.RequireSync() {
		t.Fatal("no sync after NoSync")
	}
	want := ddpLocalGradients(t, 0)
	bodyErr := errors.New("the body's error")
	if err := ddp.NoSync(func() error { ddpBackward(t, w, b, 0); return bodyErr }); err != bodyErr {
		t.Fatalf("NoSync returned %v, want the body's error", err)
	}
	if v := ddpGrads(t, w, b); !closeTo(v, want, ddpTolerance) {
		t.Fatalf("grads %v, want %v", v, want)
	}
	ddpBackward(t, w, b, 0)
	if v := ddpGrads(t, w, b); !closeTo(v, ddpCombine(want, want, 1), ddpTolerance) {
		t.Fatalf("accumulated grads %v", v)
	}
}

func TestDDPErrors(t *testing.T) {
	pg := got(tessera.NewProcessGroup(groupOptions(t, 0, 1))).ok(t)
	w := ddpLeaf(t, []float64{1, 2}, 2)
	defer w.Close()
	frozen := got(tessera.FromFloat64s([]float64{1, 2}, []int64{2}, tessera.Float32)).ok(t)
	defer frozen.Close()
	def := tessera.DefaultDDPOptions()
	_, err := tessera.NewDistributedDataParallel(pg, nil, def)
	wantStatus(t, err, tessera.InvalidArgument)
	_, err = tessera.NewDistributedDataParallel(pg, []*tessera.Tensor{frozen}, def)
	wantStatus(t, err, tessera.InvalidArgument)
	_, err = tessera.NewDistributedDataParallel(pg, []*tessera.Tensor{w, w}, def)
	wantStatus(t, err, tessera.InvalidArgument)
	_, err = tessera.NewDistributedDataParallel(pg, []*tessera.Tensor{w}, tessera.DDPOptions{})
	wantStatus(t, err, tessera.InvalidArgument) // BucketCapMB 0
	opts := def
	opts.CommHook = tessera.DDPBF16Compress
	ddp := got(tessera.NewDistributedDataParallel(pg, []*tessera.Tensor{w}, opts)).ok(t)
	wantStatus(t, ddp.RegisterCommHook(tessera.DDPFP16Compress), tessera.InvalidArgument)
	wantStatus(t, ddp.SetParamNames([]string{"a", "b"}), tessera.InvalidArgument)
	ddp.Close()
	ddp.Close() // idempotent
	wantStatus(t, ddp.SetRequireSync(false), tessera.InvalidArgument)
	wantStatus(t, ddp.NoSync(func() error { t.Fatal("body ran on a closed reducer"); return nil }), tessera.InvalidArgument)
	pg.Close()
	_, err = tessera.NewDistributedDataParallel(pg, []*tessera.Tensor{w}, def)
	wantStatus(t, err, tessera.InvalidArgument)
}

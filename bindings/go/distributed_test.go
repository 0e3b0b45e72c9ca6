package tessera_test

import (
	"fmt"
	"net"
	"reflect"
	"testing"
	"time"

	"tessera.dev/tessera"
)

// Process groups in a group of one: tcp:// on a free port of 127.0.0.1.
// The collectives across processes are tested in C (tests/test_distributed.c)
// and Python (bindings/python/tests/test_distributed.py, against torch 1.13's
// Gloo).

func freeAddress(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return fmt.Sprintf("tcp://127.0.0.1:%d", l.Addr().(*net.TCPAddr).Port)
}

func groupOptions(t *testing.T, rank, world int32) tessera.ProcessGroupOptions {
	o := tessera.DefaultProcessGroupOptions()
	o.InitMethod, o.Rank, o.WorldSize = freeAddress(t), rank, world
	return o
}

func TestProcessGroupOfOne(t *testing.T) {
	pg := got(tessera.NewProcessGroup(groupOptions(t, 0, 1))).ok(t)
	defer pg.Close()
	if r, n, b := got(pg.Rank()).ok(t), got(pg.Size()).ok(t), got(pg.Backend()).ok(t); r != 0 || n != 1 || b != "gloo" {
		t.Fatalf("rank %d, size %d, backend %q", r, n, b)
	}
	x := got(tessera.FromFloat64s([]float64{1, 2, 3, 4}, []int64{2, 2}, tessera.Float32)).ok(t)
	defer x.Close()
	xt := got(x.T()).ok(t)
	defer xt.Close()
	if err := pg.AllReduce(xt, tessera.ReduceSum); err != nil {
		t.Fatal(err)
	}
	if w, err := pg.Broadcast(x, 0, false); err != nil || w != nil {
		t.Fatalf("a blocking broadcast: %v, %v", w, err)
	}
	out := got(tessera.FromFloat64s(make([]float64, 8), []int64{2, 4}, tessera.Float32)).ok(t)
	defer out.Close()
	half := got(out.Narrow(1, 0, 2)).ok(t)
	defer half.Close()
	w := got(pg.AllGatherIntoTensor(half, x, true)).ok(t)
	if err := w.Wait(0); err != nil || !w.IsCompleted() {
		t.Fatalf("Wait: %v, completed %v", err, w.IsCompleted())
	}
	w.Close()
	w.Close() // idempotent
	if v := got(out.Float64s()).ok(t); !reflect.DeepEqual(v, []float64{1, 2, 0, 0, 3, 4, 0, 0}) {
		t.Fatalf("all_gather_into_tensor into a strided view: %v", v)
	}
	if err := pg.MonitoredBarrier(time.Second, true); err != nil {
		t.Fatal(err)
	}
	b := got(pg.Barrier(true)).ok(t)
	defer b.Close()
	if err := b.Wait(10 * time.Second); err != nil {
		t.Fatal(err)
	}
}

func TestSubgroupAndPointToPointOfOne(t *testing.T) {
	pg := got(tessera.NewProcessGroup(groupOptions(t, 0, 1))).ok(t)
	defer pg.Close()
	sub := got(pg.NewGroup([]int64{0}, 0)).ok(t)
	defer sub.Close()
	if r, n := got(sub.Rank()).ok(t), got(sub.Size()).ok(t); r != 0 || n != 1 {
		t.Fatalf("subgroup rank %d, size %d", r, n)
	}
	if g := got(sub.GlobalRank(0)).ok(t); g != 0 {
		t.Fatalf("global rank %d", g)
	}
	x := got(tessera.FromFloat64s([]float64{6, 3}, []int64{2}, tessera.Int32)).ok(t)
	defer x.Close()
	if err := sub.AllReduce(x, tessera.ReduceBxor); err != nil {
		t.Fatal(err)
	}
	_, err := pg.NewGroup([]int64{0, 1}, 0)
	wantStatus(t, err, tessera.InvalidArgument)
	_, err = sub.GroupRank(1)
	wantStatus(t, err, tessera.InvalidArgument)
	_, err = pg.Send(x, 0, 0, false) // to itself
	wantStatus(t, err, tessera.InvalidArgument)
	_, err = pg.Recv(x, 1, 0)
	wantStatus(t, err, tessera.InvalidArgument)
	f := got(tessera.FromFloat64s([]float64{1}, []int64{1}, tessera.Float32)).ok(t)
	defer f.Close()
	wantStatus(t, pg.AllReduce(f, tessera.ReduceBand), tessera.DTypeMismatch)
}

func TestProcessGroupErrors(t *testing.T) {
	o := groupOptions(t, 0, 1)
	o.Backend = tessera.DistNCCL
	_, err := tessera.NewProcessGroup(o)
	wantStatus(t, err, tessera.Unsupported)
	_, err = tessera.NewProcessGroup(groupOptions(t, 1, 1))
	wantStatus(t, err, tessera.InvalidArgument)
	o = groupOptions(t, 1, 2)
	o.Timeout = 300 * time.Millisecond
	_, err = tessera.NewProcessGroup(o)
	wantStatus(t, err, tessera.Distributed)

	pg := got(tessera.NewProcessGroup(groupOptions(t, 0, 1))).ok(t)
	x := got(tessera.FromFloat64s([]float64{1, 2, 3}, []int64{3}, tessera.Float32)).ok(t)
	defer x.Close()
	small := got(tessera.FromFloat64s([]float64{0, 0}, []int64{2}, tessera.Float32)).ok(t)
	defer small.Close()
	_, err = pg.Broadcast(x, 1, false)
	wantStatus(t, err, tessera.InvalidArgument)
	_, err = pg.AllGatherIntoTensor(small, x, false)
	wantStatus(t, err, tessera.ShapeMismatch)
	pg.Close()
	wantStatus(t, pg.AllReduce(x, tessera.ReduceMax), tessera.InvalidArgument)
	wantStatus(t, pg.MonitoredBarrier(0, false), tessera.InvalidArgument)
}

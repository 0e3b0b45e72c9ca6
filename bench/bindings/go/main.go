// Command call_bench measures what one call through the Go binding costs: the
// five cases and the protocol of bench/bindings/c/call_bench.c (median over 15
// batches of 200,000 calls, monotonic clock, one warm-up batch per case),
// printing one line per case:
//
//	tessera-bench go CASE MEDIAN_NS
//
// Run it with bench/bindings/go/run [BUILD_DIR].
package main

import (
	"fmt"
	"os"
	"sort"
	"time"

	"tessera.dev/tessera"
)

const (
	batches = 15
	calls   = 200_000
)

var (
	subject *tessera.Tensor
	sink    int64 // keeps results observable
)

// Each case does one call's worth of work, as a user of the binding writes it.
var cases = []struct {
	name string
	run  func()
}{
	{"view", func() {
		v, err := subject.Transpose(0, 1)
		if err != nil {
			panic(err)
		}
		v.Close()
	}},
	{"shape", func() { sink = subject.Sizes()[0] }},
	{"ndim", func() {
		n, err := subject.Ndim()
		if err != nil {
			panic(err)
		}
		sink = n
	}},
	{"create_release", func() {
		x, err := tessera.Empty([]int64{4, 4}, tessera.Float32)
		if err != nil {
			panic(err)
		}
		x.Close()
	}},
	{"error", func() {
		// [4, 4] cannot be viewed as [7]: the library's error, returned as a
		// *tessera.Error whose message the caller reads.
		if _, err := subject.View(7); err != nil {
			sink = int64(len(err.(*tessera.Error).Message()))
		}
	}},
}

func measure(run func()) float64 {
	perCall := make([]float64, batches)
	for i := 0; i < calls; i++ { // warm-up
		run()
	}
	for b := range perCall {
		start := time.Now() // carries a monotonic reading; Since uses it
		for i := 0; i < calls; i++ {
			run()
		}
		perCall[b] = float64(time.Since(start).Nanoseconds()) / calls
	}
	sort.Float64s(perCall)
	return perCall[batches/2]
}

func main() {
	var err error
	subject, err = tessera.Empty([]int64{4, 4}, tessera.Float32)
	if err != nil {
		fmt.Fprintln(os.Stderr, "call_bench:", err)
		os.Exit(1)
	}
	defer subject.Close()
	for _, c := range cases {
		fmt.Printf("tessera-bench go %s %.1f\n", c.name, measure(c.run))
	}
}

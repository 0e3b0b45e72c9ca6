package tessera_test

import (
	"testing"

	"tessera.dev/tessera"
)

// The convolutional layers on x = arange(16) as [1, 1, 4, 4], with values
// worked out by hand (and by torch.nn.functional on the same input).
func TestCnnLayers(t *testing.T) {
	x := arange(t, []int64{1, 1, 4, 4})
	defer x.Close()
	ones := got(tessera.Full([]int64{1, 1, 2, 2}, 1, tessera.Float32)).ok(t)
	defer ones.Close()
	y := got(tessera.Conv2d(x, ones, nil, [2]int64{2, 2}, [2]int64{0, 0}, [2]int64{1, 1}, 1)).ok(t)
	defer y.Close()
	if v := got(y.Float64s()).ok(t); !closeTo(v, []float64{10, 18, 42, 50}, 0) {
		t.Errorf("conv2d %v", v)
	}
	values, indices, err := tessera.MaxPool2d(x, [2]int64{2, 2}, nil, [2]int64{0, 0}, [2]int64{1, 1}, false)
	noErr(t, err)
	defer values.Close()
	defer indices.Close()
	if v := got(values.Float64s()).ok(t); !closeTo(v, []float64{5, 7, 13, 15}, 0) {
		t.Errorf("max_pool2d values %v", v)
	}
	if v := got(indices.Int64s()).ok(t); !equalInts(v, []int64{5, 7, 13, 15}) {
		t.Errorf("max_pool2d indices %v", v)
	}
	a := got(tessera.AvgPool2d(x, [2]int64{2, 2}, nil, [2]int64{0, 0}, false, true)).ok(t)
	defer a.Close()
	if v := got(a.Float64s()).ok(t); !closeTo(v, []float64{2.5, 4.5, 10.5, 12.5}, 0) {
		t.Errorf("avg_pool2d %v", v)
	}
	m := got(tessera.AdaptiveAvgPool2d(x, [2]int64{1, 1})).ok(t)
	defer m.Close()
	if v := got(m.Float64s()).ok(t); !closeTo(v, []float64{7.5}, 0) {
		t.Errorf("adaptive_avg_pool2d %v", v)
	}
	rm := got(tessera.Full([]int64{1}, 0, tessera.Float32)).ok(t)
	defer rm.Close()
	rv := got(tessera.Full([]int64{1}, 1, tessera.Float32)).ok(t)
	defer rv.Close()
	b := got(tessera.BatchNorm(x, rm, rv, nil, nil, true, 0.1, 1e-5)).ok(t)
	defer b.Close()
	// mean 7.5, unbiased variance 22.666...: running 0.75 and 0.9 + 2.2666...
	if v := got(rm.Float64s()).ok(t); !closeTo(v, []float64{0.75}, 1e-6) {
		t.Errorf("running_mean %v", v)
	}
	if v := got(rv.Float64s()).ok(t); !closeTo(v, []float64{0.9 + 0.1*68.0/3.0}, 1e-6) {
		t.Errorf("running_var %v", v)
	}
	_, err = tessera.Conv2d(x, ones, nil, [2]int64{0, 1}, [2]int64{0, 0}, [2]int64{1, 1}, 1)
	wantStatus(t, err, tessera.InvalidArgument)
}

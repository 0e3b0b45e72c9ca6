package tessera

import "tessera.dev/tessera/internal/capi"

// SetNumThreads is torch.set_num_threads: the number of threads the CPU
// kernels use (n >= 1; InvalidArgument otherwise). Results do not depend on
// it, except that conv2d's output memory format follows torch's backend
// choice, which reads it (cnn.h).
func SetNumThreads(n int64) error { return do(func() { capi.Set_num_threads(n) }) }

// NumThreads is torch.get_num_threads: the CPU kernels' thread count.
func NumThreads() int64 { return capi.Get_num_threads() }

// The one place tessera meets oneDNN (Debian's libdnnl, 2.6, built with the
// OpenMP runtime): the CPU engine, a stream per calling thread, memory
// descriptors over tessera tensors (oneDNN reads and writes tessera's
// buffers in place: plain NCHW/NHWC strides need no reorder), the thread
// count, and the translation of oneDNN's errors into tessera's. Only files
// under src/cpu/dnnl/ include dnnl.hpp.
#pragma once

#include <unordered_map>

#include <oneapi/dnnl/dnnl.hpp>

#include "core/tensor.h"

namespace tsr::kernels::onednn {

dnnl::engine& engine();
// This thread's stream (oneDNN streams are not thread-safe; CPU streams
// are cheap, one per thread is kept).
dnnl::stream& stream();

// oneDNN's data type for float32 and bfloat16 (the only dtypes tessera
// hands it); any other is an internal error.
dnnl::memory::data_type data_type_of(tsr_dtype d);
// A plain (strided) descriptor of t: its sizes and strides in elements.
dnnl::memory::desc desc_of(const Tensor& t);
// The same with other dims/strides (grouped weights, cropped views).
dnnl::memory::desc desc_of(const Tensor& t, const dnnl::memory::dims& dims, const dnnl::memory::dims& strides);
dnnl::memory mem(const dnnl::memory::desc& d, const Tensor& t);

// Every primitive is made with a user scratchpad (attr()) and run through
// execute(), which hands it a scratchpad of its own for this call. oneDNN's
// default library scratchpad may be shared between primitives unless the
// library was built with DNNL_ENABLE_CONCURRENT_EXEC, which tessera cannot
// assume of a distribution's build; a scratchpad per call makes concurrent
// calls from several threads safe whatever the build.
const dnnl::primitive_attr& attr();
void execute(const dnnl::primitive& p, const dnnl::primitive_desc_base& pd,
             std::unordered_map<int, dnnl::memory> args);

// Runs body with OpenMP's thread count set to tsr_get_num_threads() for
// this thread's parallel regions, restored afterwards. oneDNN's OpenMP
// runtime sizes its parallel regions by omp_get_max_threads(), a per-thread
// setting (the nthreads-var ICV of the calling thread), so the scope
// changes nothing for the application's own OpenMP code on other threads
// or after the call. dnnl::error becomes TSR_ERR_INTERNAL (or
// TSR_ERR_OUT_OF_MEMORY) with oneDNN's message.
void run_impl(const char* what, void (*fn)(void*), void* ctx);
template <typename F>
void run(const char* what, F&& body) {
  run_impl(what, [](void* c) { (*static_cast<F*>(c))(); }, &body);
}

}  // namespace tsr::kernels::onednn

// The cuDNN entry points the CUDA plugin calls (gpu/cudnn_*.cpp), on the
// CUDA runtime double's simulated device: see tsr_cudnn_double.h for the
// model. Descriptors are checked as cuDNN checks them (sizes, data types,
// the output's dims against the convolution's), convolutions are queued on
// the handle's stream and computed by reference_conv.cpp with the device's
// memory open, and Find runs every candidate on the stream and waits for
// it, as cuDNN's blocking Find does.
#include <cudnn.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <functional>
#include <mutex>
#include <vector>

#include "reference_batch_norm.h"
#include "reference_conv.h"
#include "tsr_cuda_double.h"
#include "tsr_cudnn_double.h"

struct cudnnContext {
  cudaStream_t stream = nullptr;
};
struct cudnnTensorStruct {
  bool set = false;
  cudnnDataType_t type = CUDNN_DATA_FLOAT;
  int dims[4] = {};
  int strides[4] = {};
};
struct cudnnFilterStruct {
  bool set = false;
  cudnnDataType_t type = CUDNN_DATA_FLOAT;
  cudnnTensorFormat_t format = CUDNN_TENSOR_NCHW;
  int dims[4] = {};  // K, C, H, W whatever the format
};
struct cudnnPoolingStruct {
  bool set = false;
  cudnnPoolingMode_t mode = CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING;
  int window[2] = {}, padding[2] = {}, stride[2] = {};
};
struct cudnnConvolutionStruct {
  bool set = false;
  int pad[2] = {}, stride[2] = {}, dilation[2] = {};
  cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
  cudnnDataType_t compute = CUDNN_DATA_FLOAT;
  int groups = 1;
  cudnnMathType_t math = CUDNN_DEFAULT_MATH;
};

namespace {

using tsr::cudnn_double::Operand;
using tsr::cudnn_double::Pass;

std::mutex mu;  // guards counters
tsr_cudnn_double_counters counters = [] {
  tsr_cudnn_double_counters c{};
  for (int k = 0; k < 3; ++k) c.last_algo[k] = -1;
  return c;
}();

template <typename Fn>
void count(Fn fn) {
  std::lock_guard<std::mutex> g(mu);
  fn(counters);
}

// ---- the double's algorithms ---------------------------------------------------
struct AlgoModel {
  int algo;
  bool deterministic;
  int heuristic_rank;  // 0 best
  float find_ms;       // what Find reports
  bool workspace;      // wants one
};

const std::vector<AlgoModel>& models(Pass p) {
  static const std::vector<AlgoModel> fwd{{0, true, 1, 0.3f, false}, {1, true, 0, 0.2f, true}, {2, true, 2, 0.1f, true}};
  static const std::vector<AlgoModel> data{{0, false, 0, 0.1f, false}, {1, true, 1, 0.2f, true}};
  static const std::vector<AlgoModel> filter{
      {0, false, 0, 0.2f, false}, {1, true, 1, 0.3f, true}, {3, false, 2, 0.1f, true}};
  return p == Pass::Forward ? fwd : p == Pass::BackwardData ? data : filter;
}

const AlgoModel* find_model(Pass p, int algo) {
  for (const AlgoModel& m : models(p))
    if (m.algo == algo) return &m;
  return nullptr;
}

size_t element_size(cudnnDataType_t t) {
  return t == CUDNN_DATA_DOUBLE ? 8 : t == CUDNN_DATA_FLOAT ? 4 : 2;
}

bool supported_type(cudnnDataType_t t) {
  return t == CUDNN_DATA_FLOAT || t == CUDNN_DATA_DOUBLE || t == CUDNN_DATA_HALF || t == CUDNN_DATA_BFLOAT16;
}

tsr_dtype to_dtype(cudnnDataType_t t) {
  switch (t) {
    case CUDNN_DATA_DOUBLE: return TSR_FLOAT64;
    case CUDNN_DATA_HALF: return TSR_FLOAT16;
    case CUDNN_DATA_BFLOAT16: return TSR_BFLOAT16;
    default: return TSR_FLOAT32;
  }
}

// One convolution call's descriptors, in the forward's terms.
struct Problem {
  const cudnnTensorStruct* x;
  const cudnnFilterStruct* w;
  const cudnnConvolutionStruct* c;
  const cudnnTensorStruct* y;
};

int out_dim(int in, int pad, int dil, int k, int stride) { return (in + 2 * pad - dil * (k - 1) - 1) / stride + 1; }

// cuDNN's checks: everything set, one supported data type, the filter's
// channels times groups equal to x's, K divisible by groups, y's dims the
// convolution's output dims.
cudnnStatus_t check(const Problem& p) {
  if (!p.x || !p.w || !p.c || !p.y || !p.x->set || !p.w->set || !p.c->set || !p.y->set)
    return CUDNN_STATUS_BAD_PARAM;
  if (p.x->type != p.w->type || p.x->type != p.y->type || !supported_type(p.x->type)) return CUDNN_STATUS_BAD_PARAM;
  if (p.c->mode != CUDNN_CROSS_CORRELATION) return CUDNN_STATUS_NOT_SUPPORTED;
  const int g = p.c->groups;
  if (g < 1 || p.w->dims[1] * g != p.x->dims[1] || p.w->dims[0] % g != 0) return CUDNN_STATUS_BAD_PARAM;
  if (p.y->dims[0] != p.x->dims[0] || p.y->dims[1] != p.w->dims[0]) return CUDNN_STATUS_BAD_PARAM;
  for (int i = 0; i < 2; ++i)
    if (p.y->dims[2 + i] != out_dim(p.x->dims[2 + i], p.c->pad[i], p.c->dilation[i], p.w->dims[2 + i], p.c->stride[i]))
      return CUDNN_STATUS_BAD_PARAM;
  return CUDNN_STATUS_SUCCESS;
}

size_t workspace_bytes(Pass pass, int algo, const Problem& p) {
  const AlgoModel* m = find_model(pass, algo);
  if (!m || !m->workspace) return 0;
  // An im2col-sized buffer: (C/g * kH * kW) x (oH * oW) elements.
  const size_t cols = size_t(p.w->dims[1]) * size_t(p.w->dims[2]) * size_t(p.w->dims[3]);
  return cols * size_t(p.y->dims[2]) * size_t(p.y->dims[3]) * element_size(p.x->type) + size_t(algo) * 256;
}

Operand operand(const cudnnTensorStruct& t, const void* data) {
  Operand o{const_cast<void*>(data), to_dtype(t.type), {}, {}};
  for (int i = 0; i < 4; ++i) {
    o.sizes[i] = t.dims[i];
    o.strides[i] = t.strides[i];
  }
  return o;
}

Operand operand(const cudnnFilterStruct& w, const void* data) {
  Operand o{const_cast<void*>(data), to_dtype(w.type), {w.dims[0], w.dims[1], w.dims[2], w.dims[3]}, {}};
  const int64_t c = w.dims[1], h = w.dims[2], wd = w.dims[3];
  if (w.format == CUDNN_TENSOR_NHWC) {
    const int64_t s[4] = {h * wd * c, 1, wd * c, c};
    std::copy(s, s + 4, o.strides);
  } else {
    const int64_t s[4] = {c * h * wd, h * wd, wd, 1};
    std::copy(s, s + 4, o.strides);
  }
  return o;
}

int64_t span_bytes(const Operand& o) {
  int64_t last = 0;
  for (int i = 0; i < 4; ++i) last += (o.sizes[i] - 1) * o.strides[i];
  const int64_t elem = o.dtype == TSR_FLOAT64 ? 8 : o.dtype == TSR_FLOAT32 ? 4 : 2;
  return (last + 1) * elem;
}

int current_device() {
  int d = 0;
  (void)cudaGetDevice(&d);
  return d;
}

bool is_device(const void* p, size_t bytes) { return tsr_double_is_device_memory(current_device(), p, bytes) != 0; }

struct Work {
  Pass pass;
  Operand x, w, y;
  tsr::cudnn_double::ConvSpec spec;
  double alpha, beta;
  void* workspace;
  size_t workspace_bytes;
};

void run_work(void* item) {
  auto* work = static_cast<Work*>(item);
  // The algorithm may use all of its workspace: scribble over it, so that a
  // workspace shared with live data would show.
  if (work->workspace_bytes) std::memset(work->workspace, 0xA5, work->workspace_bytes);
  try {
    tsr::cudnn_double::compute(work->pass, work->x, work->w, work->y, work->spec, work->alpha, work->beta);
  } catch (...) {
    count([](tsr_cudnn_double_counters& c) { ++c.failed_runs; });
  }
}

void delete_work(void* item) { delete static_cast<Work*>(item); }

double scalar(const cudnnTensorStruct& t, const void* p) {
  return t.type == CUDNN_DATA_DOUBLE ? *static_cast<const double*>(p) : double(*static_cast<const float*>(p));
}

// Queues one convolution on the handle's stream.
cudnnStatus_t enqueue(cudnnHandle_t h, Pass pass, const Problem& p, const void* x, const void* w, const void* y,
                      const void* alpha, const void* beta, int algo, void* ws, size_t ws_bytes) {
  if (!h) return CUDNN_STATUS_BAD_PARAM;
  if (cudnnStatus_t st = check(p); st != CUDNN_STATUS_SUCCESS) return st;
  if (!find_model(pass, algo)) return CUDNN_STATUS_NOT_SUPPORTED;
  const size_t need = workspace_bytes(pass, algo, p);
  if (ws_bytes < need || (need > 0 && !is_device(ws, need))) return CUDNN_STATUS_BAD_PARAM;
  auto* work = new Work{pass, operand(*p.x, x), operand(*p.w, w), operand(*p.y, y), {}, 0, 0, ws, need};
  for (const Operand* o : {&work->x, &work->w, &work->y})
    if (!is_device(o->data, size_t(span_bytes(*o)))) {
      delete work;
      return CUDNN_STATUS_BAD_PARAM;
    }
  const cudnnConvolutionStruct& c = *p.c;
  work->spec = {{c.pad[0], c.pad[1]}, {c.stride[0], c.stride[1]}, {c.dilation[0], c.dilation[1]}, c.groups};
  work->alpha = scalar(*p.x, alpha);
  work->beta = scalar(*p.x, beta);
  const bool nhwc = p.x->strides[1] == 1 && p.x->dims[1] > 1;
  if (tsr_double_launch(h->stream, &run_work, work, &delete_work) != 0) return CUDNN_STATUS_EXECUTION_FAILED;
  count([&](tsr_cudnn_double_counters& k) {
    const int i = int(pass);
    ++k.runs[i];
    k.last_algo[i] = algo;
    k.last_channels_last[i] = nhwc ? 1 : 0;
    k.last_workspace_bytes[i] = int64_t(need);
  });
  return CUDNN_STATUS_SUCCESS;
}

// The perf list cuDNN's queries return: every algorithm of the kind,
// supported ones first in the given order, the rest NOT_SUPPORTED.
template <typename Perf, typename AlgoT>
int perf_list(Pass pass, const Problem& p, bool by_time, size_t ws_limit, int requested, Perf* out) {
  std::vector<AlgoModel> ms = models(pass);
  std::sort(ms.begin(), ms.end(), [&](const AlgoModel& a, const AlgoModel& b) {
    return by_time ? a.find_ms < b.find_ms : a.heuristic_rank < b.heuristic_rank;
  });
  int n = 0;
  for (const AlgoModel& m : ms) {
    if (n == requested) break;
    Perf r{};
    r.algo = AlgoT(m.algo);
    r.memory = workspace_bytes(pass, m.algo, p);
    r.status = r.memory <= ws_limit ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_ALLOC_FAILED;
    r.time = by_time ? m.find_ms : -1.0f;
    r.determinism = m.deterministic ? CUDNN_DETERMINISTIC : CUDNN_NON_DETERMINISTIC;
    r.mathType = p.c->math;
    out[n++] = r;
  }
  return n;
}

int algo_count(Pass pass) {
  if (pass == Pass::Forward) return int(CUDNN_CONVOLUTION_FWD_ALGO_COUNT);
  if (pass == Pass::BackwardData) return int(CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT);
  return int(CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT);
}

template <typename Perf, typename AlgoT>
cudnnStatus_t heuristic(Pass pass, const Problem& p, int requested, int* returned, Perf* out) {
  if (!returned || !out || requested < 1) return CUDNN_STATUS_BAD_PARAM;
  if (cudnnStatus_t st = check(p); st != CUDNN_STATUS_SUCCESS) return st;
  *returned = perf_list<Perf, AlgoT>(pass, p, false, SIZE_MAX, requested, out);
  count([&](tsr_cudnn_double_counters& c) { ++c.heuristic_queries[int(pass)]; });
  return CUDNN_STATUS_SUCCESS;
}

// Find: every supported candidate that fits the workspace runs on the
// stream (its result left in the output, as cuDNN's Find leaves one), then
// the host waits for the stream.
template <typename Perf, typename AlgoT>
cudnnStatus_t find(cudnnHandle_t h, Pass pass, const Problem& p, const void* x, const void* w, const void* y,
                   int requested, int* returned, Perf* out, void* ws, size_t ws_bytes) {
  if (!h || !returned || !out || requested < 1) return CUDNN_STATUS_BAD_PARAM;
  if (cudnnStatus_t st = check(p); st != CUDNN_STATUS_SUCCESS) return st;
  const double one_d = 1.0, zero_d = 0.0;
  const float one_f = 1.0f, zero_f = 0.0f;
  const bool dbl = p.x->type == CUDNN_DATA_DOUBLE;
  const void* one = dbl ? static_cast<const void*>(&one_d) : &one_f;
  const void* zero = dbl ? static_cast<const void*>(&zero_d) : &zero_f;
  const int n = perf_list<Perf, AlgoT>(pass, p, true, ws_bytes, requested, out);
  for (int i = 0; i < n; ++i) {
    if (out[i].status != CUDNN_STATUS_SUCCESS) continue;
    const cudnnStatus_t st = enqueue(h, pass, p, x, w, y, one, zero, int(out[i].algo), ws, ws_bytes);
    if (st != CUDNN_STATUS_SUCCESS) return st;
  }
  if (cudaStreamSynchronize(h->stream) != cudaSuccess) return CUDNN_STATUS_EXECUTION_FAILED;
  *returned = n;
  count([&](tsr_cudnn_double_counters& c) { ++c.find_calls[int(pass)]; });
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t max_count(Pass pass, int* n) {
  if (!n) return CUDNN_STATUS_BAD_PARAM;
  *n = algo_count(pass);
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t workspace(Pass pass, const Problem& p, int algo, size_t* bytes) {
  if (!bytes) return CUDNN_STATUS_BAD_PARAM;
  if (cudnnStatus_t st = check(p); st != CUDNN_STATUS_SUCCESS) return st;
  if (!find_model(pass, algo)) return CUDNN_STATUS_NOT_SUPPORTED;
  *bytes = workspace_bytes(pass, algo, p);
  return CUDNN_STATUS_SUCCESS;
}

template <typename T>
cudnnStatus_t create(T** out) {
  if (!out) return CUDNN_STATUS_BAD_PARAM;
  *out = new T();
  count([](tsr_cudnn_double_counters& c) { ++c.live_descriptors; });
  return CUDNN_STATUS_SUCCESS;
}

template <typename T>
cudnnStatus_t destroy(T* d) {
  if (!d) return CUDNN_STATUS_SUCCESS;
  delete d;
  count([](tsr_cudnn_double_counters& c) { --c.live_descriptors; });
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace

// ---- handles and descriptors ------------------------------------------------------
const char* cudnnGetErrorString(cudnnStatus_t status) {
  switch (status) {
    case CUDNN_STATUS_SUCCESS: return "CUDNN_STATUS_SUCCESS";
    case CUDNN_STATUS_BAD_PARAM: return "CUDNN_STATUS_BAD_PARAM";
    case CUDNN_STATUS_NOT_SUPPORTED: return "CUDNN_STATUS_NOT_SUPPORTED";
    case CUDNN_STATUS_ALLOC_FAILED: return "CUDNN_STATUS_ALLOC_FAILED";
    case CUDNN_STATUS_EXECUTION_FAILED: return "CUDNN_STATUS_EXECUTION_FAILED";
    default: return "CUDNN_STATUS_INTERNAL_ERROR";
  }
}

cudnnStatus_t cudnnCreate(cudnnHandle_t* handle) {
  if (!handle) return CUDNN_STATUS_BAD_PARAM;
  *handle = new cudnnContext();
  count([](tsr_cudnn_double_counters& c) { ++c.handles_created; });
  return CUDNN_STATUS_SUCCESS;
}
cudnnStatus_t cudnnDestroy(cudnnHandle_t handle) {
  delete handle;
  return CUDNN_STATUS_SUCCESS;
}
cudnnStatus_t cudnnSetStream(cudnnHandle_t handle, cudaStream_t stream) {
  if (!handle) return CUDNN_STATUS_BAD_PARAM;
  handle->stream = stream;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnCreateTensorDescriptor(cudnnTensorDescriptor_t* d) { return create(d); }
cudnnStatus_t cudnnDestroyTensorDescriptor(cudnnTensorDescriptor_t d) { return destroy(d); }
cudnnStatus_t cudnnSetTensorNdDescriptor(cudnnTensorDescriptor_t d, cudnnDataType_t type, int nb_dims,
                                         const int dims[], const int strides[]) {
  if (!d || nb_dims != 4 || !dims || !strides || !supported_type(type)) return CUDNN_STATUS_BAD_PARAM;
  for (int i = 0; i < 4; ++i)
    if (dims[i] < 1 || strides[i] < 1) return CUDNN_STATUS_BAD_PARAM;
  d->type = type;
  std::copy(dims, dims + 4, d->dims);
  std::copy(strides, strides + 4, d->strides);
  d->set = true;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnCreateFilterDescriptor(cudnnFilterDescriptor_t* d) { return create(d); }
cudnnStatus_t cudnnDestroyFilterDescriptor(cudnnFilterDescriptor_t d) { return destroy(d); }
cudnnStatus_t cudnnSetFilter4dDescriptor(cudnnFilterDescriptor_t d, cudnnDataType_t type, cudnnTensorFormat_t format,
                                         int k, int c, int h, int w) {
  if (!d || !supported_type(type) || k < 1 || c < 1 || h < 1 || w < 1) return CUDNN_STATUS_BAD_PARAM;
  if (format != CUDNN_TENSOR_NCHW && format != CUDNN_TENSOR_NHWC) return CUDNN_STATUS_BAD_PARAM;
  d->type = type;
  d->format = format;
  const int dims[4] = {k, c, h, w};
  std::copy(dims, dims + 4, d->dims);
  d->set = true;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnCreateConvolutionDescriptor(cudnnConvolutionDescriptor_t* d) { return create(d); }
cudnnStatus_t cudnnDestroyConvolutionDescriptor(cudnnConvolutionDescriptor_t d) { return destroy(d); }
cudnnStatus_t cudnnSetConvolution2dDescriptor(cudnnConvolutionDescriptor_t d, int pad_h, int pad_w, int u, int v,
                                              int dilation_h, int dilation_w, cudnnConvolutionMode_t mode,
                                              cudnnDataType_t compute) {
  if (!d || pad_h < 0 || pad_w < 0 || u < 1 || v < 1 || dilation_h < 1 || dilation_w < 1) return CUDNN_STATUS_BAD_PARAM;
  if (compute != CUDNN_DATA_FLOAT && compute != CUDNN_DATA_DOUBLE) return CUDNN_STATUS_BAD_PARAM;
  d->pad[0] = pad_h;
  d->pad[1] = pad_w;
  d->stride[0] = u;
  d->stride[1] = v;
  d->dilation[0] = dilation_h;
  d->dilation[1] = dilation_w;
  d->mode = mode;
  d->compute = compute;
  d->set = true;
  return CUDNN_STATUS_SUCCESS;
}
cudnnStatus_t cudnnSetConvolutionGroupCount(cudnnConvolutionDescriptor_t d, int groups) {
  if (!d || groups < 1) return CUDNN_STATUS_BAD_PARAM;
  d->groups = groups;
  return CUDNN_STATUS_SUCCESS;
}
cudnnStatus_t cudnnSetConvolutionMathType(cudnnConvolutionDescriptor_t d, cudnnMathType_t math) {
  if (!d) return CUDNN_STATUS_BAD_PARAM;
  d->math = math;
  return CUDNN_STATUS_SUCCESS;
}

// ---- forward ------------------------------------------------------------------------
cudnnStatus_t cudnnGetConvolutionForwardAlgorithmMaxCount(cudnnHandle_t, int* count) {
  return max_count(Pass::Forward, count);
}
cudnnStatus_t cudnnGetConvolutionForwardAlgorithm_v7(cudnnHandle_t, const cudnnTensorDescriptor_t x,
                                                     const cudnnFilterDescriptor_t w,
                                                     const cudnnConvolutionDescriptor_t c,
                                                     const cudnnTensorDescriptor_t y, const int requested,
                                                     int* returned, cudnnConvolutionFwdAlgoPerf_t* perf) {
  return heuristic<cudnnConvolutionFwdAlgoPerf_t, cudnnConvolutionFwdAlgo_t>(Pass::Forward, {x, w, c, y}, requested,
                                                                               returned, perf);
}
cudnnStatus_t cudnnFindConvolutionForwardAlgorithmEx(cudnnHandle_t h, const cudnnTensorDescriptor_t xd,
                                                     const void* x, const cudnnFilterDescriptor_t wd, const void* w,
                                                     const cudnnConvolutionDescriptor_t c,
                                                     const cudnnTensorDescriptor_t yd, void* y, const int requested,
                                                     int* returned, cudnnConvolutionFwdAlgoPerf_t* perf, void* ws,
                                                     size_t ws_bytes) {
  return find<cudnnConvolutionFwdAlgoPerf_t, cudnnConvolutionFwdAlgo_t>(h, Pass::Forward, {xd, wd, c, yd}, x, w, y,
                                                                          requested, returned, perf, ws, ws_bytes);
}
cudnnStatus_t cudnnGetConvolutionForwardWorkspaceSize(cudnnHandle_t, const cudnnTensorDescriptor_t x,
                                                      const cudnnFilterDescriptor_t w,
                                                      const cudnnConvolutionDescriptor_t c,
                                                      const cudnnTensorDescriptor_t y, cudnnConvolutionFwdAlgo_t algo,
                                                      size_t* bytes) {
  return workspace(Pass::Forward, {x, w, c, y}, int(algo), bytes);
}
cudnnStatus_t cudnnConvolutionForward(cudnnHandle_t h, const void* alpha, const cudnnTensorDescriptor_t xd,
                                      const void* x, const cudnnFilterDescriptor_t wd, const void* w,
                                      const cudnnConvolutionDescriptor_t c, cudnnConvolutionFwdAlgo_t algo, void* ws,
                                      size_t ws_bytes, const void* beta, const cudnnTensorDescriptor_t yd, void* y) {
  return enqueue(h, Pass::Forward, {xd, wd, c, yd}, x, w, y, alpha, beta, int(algo), ws, ws_bytes);
}

// ---- backward data --------------------------------------------------------------------
cudnnStatus_t cudnnGetConvolutionBackwardDataAlgorithmMaxCount(cudnnHandle_t, int* count) {
  return max_count(Pass::BackwardData, count);
}
cudnnStatus_t cudnnGetConvolutionBackwardDataAlgorithm_v7(cudnnHandle_t, const cudnnFilterDescriptor_t w,
                                                          const cudnnTensorDescriptor_t dy,
                                                          const cudnnConvolutionDescriptor_t c,
                                                          const cudnnTensorDescriptor_t dx, const int requested,
                                                          int* returned, cudnnConvolutionBwdDataAlgoPerf_t* perf) {
  return heuristic<cudnnConvolutionBwdDataAlgoPerf_t, cudnnConvolutionBwdDataAlgo_t>(
      Pass::BackwardData, {dx, w, c, dy}, requested, returned, perf);
}
cudnnStatus_t cudnnFindConvolutionBackwardDataAlgorithmEx(cudnnHandle_t h, const cudnnFilterDescriptor_t wd,
                                                          const void* w, const cudnnTensorDescriptor_t dyd,
                                                          const void* dy, const cudnnConvolutionDescriptor_t c,
                                                          const cudnnTensorDescriptor_t dxd, void* dx,
                                                          const int requested, int* returned,
                                                          cudnnConvolutionBwdDataAlgoPerf_t* perf, void* ws,
                                                          size_t ws_bytes) {
  return find<cudnnConvolutionBwdDataAlgoPerf_t, cudnnConvolutionBwdDataAlgo_t>(
      h, Pass::BackwardData, {dxd, wd, c, dyd}, dx, w, dy, requested, returned, perf, ws, ws_bytes);
}
cudnnStatus_t cudnnGetConvolutionBackwardDataWorkspaceSize(cudnnHandle_t, const cudnnFilterDescriptor_t w,
                                                           const cudnnTensorDescriptor_t dy,
                                                           const cudnnConvolutionDescriptor_t c,
                                                           const cudnnTensorDescriptor_t dx,
                                                           cudnnConvolutionBwdDataAlgo_t algo, size_t* bytes) {
  return workspace(Pass::BackwardData, {dx, w, c, dy}, int(algo), bytes);
}
cudnnStatus_t cudnnConvolutionBackwardData(cudnnHandle_t h, const void* alpha, const cudnnFilterDescriptor_t wd,
                                           const void* w, const cudnnTensorDescriptor_t dyd, const void* dy,
                                           const cudnnConvolutionDescriptor_t c, cudnnConvolutionBwdDataAlgo_t algo,
                                           void* ws, size_t ws_bytes, const void* beta,
                                           const cudnnTensorDescriptor_t dxd, void* dx) {
  return enqueue(h, Pass::BackwardData, {dxd, wd, c, dyd}, dx, w, dy, alpha, beta, int(algo), ws, ws_bytes);
}

// ---- backward filter ------------------------------------------------------------------
cudnnStatus_t cudnnGetConvolutionBackwardFilterAlgorithmMaxCount(cudnnHandle_t, int* count) {
  return max_count(Pass::BackwardFilter, count);
}
cudnnStatus_t cudnnGetConvolutionBackwardFilterAlgorithm_v7(cudnnHandle_t, const cudnnTensorDescriptor_t x,
                                                            const cudnnTensorDescriptor_t dy,
                                                            const cudnnConvolutionDescriptor_t c,
                                                            const cudnnFilterDescriptor_t dw, const int requested,
                                                            int* returned, cudnnConvolutionBwdFilterAlgoPerf_t* perf) {
  return heuristic<cudnnConvolutionBwdFilterAlgoPerf_t, cudnnConvolutionBwdFilterAlgo_t>(
      Pass::BackwardFilter, {x, dw, c, dy}, requested, returned, perf);
}
cudnnStatus_t cudnnFindConvolutionBackwardFilterAlgorithmEx(cudnnHandle_t h, const cudnnTensorDescriptor_t xd,
                                                            const void* x, const cudnnTensorDescriptor_t dyd,
                                                            const void* dy, const cudnnConvolutionDescriptor_t c,
                                                            const cudnnFilterDescriptor_t dwd, void* dw,
                                                            const int requested, int* returned,
                                                            cudnnConvolutionBwdFilterAlgoPerf_t* perf, void* ws,
                                                            size_t ws_bytes) {
  return find<cudnnConvolutionBwdFilterAlgoPerf_t, cudnnConvolutionBwdFilterAlgo_t>(
      h, Pass::BackwardFilter, {xd, dwd, c, dyd}, x, dw, dy, requested, returned, perf, ws, ws_bytes);
}
cudnnStatus_t cudnnGetConvolutionBackwardFilterWorkspaceSize(cudnnHandle_t, const cudnnTensorDescriptor_t x,
                                                             const cudnnTensorDescriptor_t dy,
                                                             const cudnnConvolutionDescriptor_t c,
                                                             const cudnnFilterDescriptor_t dw,
                                                             cudnnConvolutionBwdFilterAlgo_t algo, size_t* bytes) {
  return workspace(Pass::BackwardFilter, {x, dw, c, dy}, int(algo), bytes);
}
cudnnStatus_t cudnnConvolutionBackwardFilter(cudnnHandle_t h, const void* alpha, const cudnnTensorDescriptor_t xd,
                                             const void* x, const cudnnTensorDescriptor_t dyd, const void* dy,
                                             const cudnnConvolutionDescriptor_t c,
                                             cudnnConvolutionBwdFilterAlgo_t algo, void* ws, size_t ws_bytes,
                                             const void* beta, const cudnnFilterDescriptor_t dwd, void* dw) {
  return enqueue(h, Pass::BackwardFilter, {xd, dwd, c, dyd}, x, dw, dy, alpha, beta, int(algo), ws, ws_bytes);
}

// ---- batch norm ---------------------------------------------------------------------------
namespace {

using Job = std::function<void()>;

void run_job(void* item) {
  try {
    (*static_cast<Job*>(item))();
  } catch (...) {
    count([](tsr_cudnn_double_counters& c) { ++c.failed_runs; });
  }
}
void delete_job(void* item) { delete static_cast<Job*>(item); }

// cuDNN's checks for the spatial batch norm: x and y alike (4-D, one
// type), the parameters' descriptor [1, C, 1, 1] of float (double for
// double data), eps at least CUDNN_BN_MIN_EPSILON, every pointer device
// memory (the callers check alpha 1 and beta 0, all the double computes).
cudnnStatus_t check_bn(cudnnHandle_t h, cudnnBatchNormMode_t mode, const cudnnTensorStruct* x,
                       const cudnnTensorStruct* y, const cudnnTensorStruct* bn, double eps,
                       std::initializer_list<std::pair<const void*, const cudnnTensorStruct*>> data,
                       std::initializer_list<const void*> params) {
  if (!h || !x || !y || !bn || !x->set || !y->set || !bn->set) return CUDNN_STATUS_BAD_PARAM;
  if (mode != CUDNN_BATCHNORM_SPATIAL) return CUDNN_STATUS_NOT_SUPPORTED;
  if (x->type != y->type || !std::equal(x->dims, x->dims + 4, y->dims)) return CUDNN_STATUS_BAD_PARAM;
  const cudnnDataType_t pt = x->type == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
  const int want[4] = {1, x->dims[1], 1, 1};
  if (bn->type != pt || !std::equal(want, want + 4, bn->dims)) return CUDNN_STATUS_BAD_PARAM;
  if (eps < CUDNN_BN_MIN_EPSILON) return CUDNN_STATUS_BAD_PARAM;
  for (auto [p, t] : data)
    if (!p || !is_device(p, size_t(span_bytes(operand(*t, p))))) return CUDNN_STATUS_BAD_PARAM;
  for (const void* p : params)
    if (p && !is_device(p, size_t(x->dims[1]) * element_size(pt))) return CUDNN_STATUS_BAD_PARAM;
  return CUDNN_STATUS_SUCCESS;
}

bool unit_blend(const cudnnTensorStruct* x, const void* alpha, const void* beta) {
  auto value = [&](const void* p) {
    return x->type == CUDNN_DATA_DOUBLE ? *static_cast<const double*>(p) : double(*static_cast<const float*>(p));
  };
  return alpha && beta && value(alpha) == 1.0 && value(beta) == 0.0;
}

tsr::cudnn_double::Params params(const cudnnTensorStruct* x, const void* p) {
  return {const_cast<void*>(p), x->type == CUDNN_DATA_DOUBLE ? TSR_FLOAT64 : TSR_FLOAT32, x->dims[1]};
}

cudnnStatus_t queue_bn(cudnnHandle_t h, int kind, Job job) {
  if (tsr_double_launch(h->stream, &run_job, new Job(std::move(job)), &delete_job) != 0)
    return CUDNN_STATUS_EXECUTION_FAILED;
  count([&](tsr_cudnn_double_counters& c) { ++c.batch_norm_calls[kind]; });
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace

cudnnStatus_t cudnnDeriveBNTensorDescriptor(cudnnTensorDescriptor_t derived, const cudnnTensorDescriptor_t x,
                                            cudnnBatchNormMode_t mode) {
  if (!derived || !x || !x->set) return CUDNN_STATUS_BAD_PARAM;
  if (mode != CUDNN_BATCHNORM_SPATIAL) return CUDNN_STATUS_NOT_SUPPORTED;
  derived->type = x->type == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
  const int dims[4] = {1, x->dims[1], 1, 1}, strides[4] = {x->dims[1], 1, 1, 1};
  std::copy(dims, dims + 4, derived->dims);
  std::copy(strides, strides + 4, derived->strides);
  derived->set = true;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnBatchNormalizationForwardTraining(
    cudnnHandle_t h, cudnnBatchNormMode_t mode, const void* alpha, const void* beta, const cudnnTensorDescriptor_t xd,
    const void* x, const cudnnTensorDescriptor_t yd, void* y, const cudnnTensorDescriptor_t bn, const void* scale,
    const void* bias, double factor, void* running_mean, void* running_var, double eps, void* save_mean,
    void* save_invstd) {
  if (cudnnStatus_t st = check_bn(h, mode, xd, yd, bn, eps, {{x, xd}, {y, yd}},
                                  {scale, bias, running_mean, running_var, save_mean, save_invstd});
      st != CUDNN_STATUS_SUCCESS)
    return st;
  if (!scale || !bias || !unit_blend(xd, alpha, beta)) return CUDNN_STATUS_BAD_PARAM;
  // Running statistics: both or neither; saved ones likewise.
  if (!running_mean != !running_var || !save_mean != !save_invstd) return CUDNN_STATUS_BAD_PARAM;
  const Operand xo = operand(*xd, x), yo = operand(*yd, y);
  const auto sp = params(xd, scale), bp = params(xd, bias), rm = params(xd, running_mean),
             rv = params(xd, running_var), sm = params(xd, save_mean), si = params(xd, save_invstd);
  return queue_bn(h, 0, [=] { tsr::cudnn_double::batch_norm_training(xo, yo, sp, bp, factor, rm, rv, eps, sm, si); });
}

cudnnStatus_t cudnnBatchNormalizationForwardInference(cudnnHandle_t h, cudnnBatchNormMode_t mode, const void* alpha,
                                                      const void* beta, const cudnnTensorDescriptor_t xd,
                                                      const void* x, const cudnnTensorDescriptor_t yd, void* y,
                                                      const cudnnTensorDescriptor_t bn, const void* scale,
                                                      const void* bias, const void* mean, const void* var,
                                                      double eps) {
  if (cudnnStatus_t st = check_bn(h, mode, xd, yd, bn, eps, {{x, xd}, {y, yd}}, {scale, bias, mean, var});
      st != CUDNN_STATUS_SUCCESS)
    return st;
  if (!scale || !bias || !mean || !var || !unit_blend(xd, alpha, beta)) return CUDNN_STATUS_BAD_PARAM;
  const Operand xo = operand(*xd, x), yo = operand(*yd, y);
  const auto sp = params(xd, scale), bp = params(xd, bias), mp = params(xd, mean), vp = params(xd, var);
  return queue_bn(h, 1, [=] { tsr::cudnn_double::batch_norm_inference(xo, yo, sp, bp, mp, vp, eps); });
}

cudnnStatus_t cudnnBatchNormalizationBackward(cudnnHandle_t h, cudnnBatchNormMode_t mode, const void* alpha_data,
                                              const void* beta_data, const void* alpha_param, const void* beta_param,
                                              const cudnnTensorDescriptor_t xd, const void* x,
                                              const cudnnTensorDescriptor_t dyd, const void* dy,
                                              const cudnnTensorDescriptor_t dxd, void* dx,
                                              const cudnnTensorDescriptor_t bn, const void* scale, void* dscale,
                                              void* dbias, double eps, const void* saved_mean,
                                              const void* saved_invstd) {
  if (!dyd || !dyd->set || !xd || !std::equal(xd->dims, xd->dims + 4, dyd->dims) || xd->type != dyd->type)
    return CUDNN_STATUS_BAD_PARAM;
  if (cudnnStatus_t st = check_bn(h, mode, xd, dxd, bn, eps, {{x, xd}, {dy, dyd}, {dx, dxd}},
                                  {scale, dscale, dbias, saved_mean, saved_invstd});
      st != CUDNN_STATUS_SUCCESS)
    return st;
  if (!scale || !dscale || !dbias || !unit_blend(xd, alpha_data, beta_data) || !unit_blend(xd, alpha_param, beta_param))
    return CUDNN_STATUS_BAD_PARAM;
  if (!saved_mean != !saved_invstd) return CUDNN_STATUS_BAD_PARAM;
  const Operand xo = operand(*xd, x), dyo = operand(*dyd, dy), dxo = operand(*dxd, dx);
  const auto sp = params(xd, scale), ds = params(xd, dscale), db = params(xd, dbias);
  return queue_bn(h, 2, [=] { tsr::cudnn_double::batch_norm_backward(xo, dyo, dxo, sp, ds, db, eps); });
}

// ---- pooling ------------------------------------------------------------------------------
cudnnStatus_t cudnnCreatePoolingDescriptor(cudnnPoolingDescriptor_t* d) { return create(d); }
cudnnStatus_t cudnnDestroyPoolingDescriptor(cudnnPoolingDescriptor_t d) { return destroy(d); }
cudnnStatus_t cudnnSetPooling2dDescriptor(cudnnPoolingDescriptor_t d, cudnnPoolingMode_t mode,
                                          cudnnNanPropagation_t, int window_h, int window_w, int pad_h, int pad_w,
                                          int stride_h, int stride_w) {
  if (!d || window_h < 1 || window_w < 1 || pad_h < 0 || pad_w < 0 || stride_h < 1 || stride_w < 1)
    return CUDNN_STATUS_BAD_PARAM;
  if (mode != CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING && mode != CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING)
    return CUDNN_STATUS_NOT_SUPPORTED;
  d->mode = mode;
  d->window[0] = window_h;
  d->window[1] = window_w;
  d->padding[0] = pad_h;
  d->padding[1] = pad_w;
  d->stride[0] = stride_h;
  d->stride[1] = stride_w;
  d->set = true;
  return CUDNN_STATUS_SUCCESS;
}

namespace {

// cuDNN's pooling checks: x and y of one type, N and C alike, y's spatial
// dims the floor rule's, the pointers device memory, alpha 1 and beta 0
// (all the double computes).
cudnnStatus_t check_pool(cudnnHandle_t h, const cudnnPoolingStruct* p, const cudnnTensorStruct* x, const void* xp,
                         const cudnnTensorStruct* y, const void* yp, const void* alpha, const void* beta) {
  if (!h || !p || !p->set || !x || !x->set || !y || !y->set) return CUDNN_STATUS_BAD_PARAM;
  if (x->type != y->type || x->dims[0] != y->dims[0] || x->dims[1] != y->dims[1]) return CUDNN_STATUS_BAD_PARAM;
  for (int i = 0; i < 2; ++i)
    if (y->dims[2 + i] != (x->dims[2 + i] + 2 * p->padding[i] - p->window[i]) / p->stride[i] + 1)
      return CUDNN_STATUS_BAD_PARAM;
  if (!xp || !yp || !is_device(xp, size_t(span_bytes(operand(*x, xp)))) ||
      !is_device(yp, size_t(span_bytes(operand(*y, yp)))))
    return CUDNN_STATUS_BAD_PARAM;
  if (!unit_blend(x, alpha, beta)) return CUDNN_STATUS_NOT_SUPPORTED;
  return CUDNN_STATUS_SUCCESS;
}

tsr::cudnn_double::PoolSpec pool_spec(const cudnnPoolingStruct& p) {
  return {{p.window[0], p.window[1]},
          {p.stride[0], p.stride[1]},
          {p.padding[0], p.padding[1]},
          p.mode == CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING};
}

cudnnStatus_t queue_pool(cudnnHandle_t h, int kind, Job job) {
  if (tsr_double_launch(h->stream, &run_job, new Job(std::move(job)), &delete_job) != 0)
    return CUDNN_STATUS_EXECUTION_FAILED;
  count([&](tsr_cudnn_double_counters& c) { ++c.pooling_calls[kind]; });
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace

cudnnStatus_t cudnnPoolingForward(cudnnHandle_t h, const cudnnPoolingDescriptor_t p, const void* alpha,
                                  const cudnnTensorDescriptor_t xd, const void* x, const void* beta,
                                  const cudnnTensorDescriptor_t yd, void* y) {
  if (cudnnStatus_t st = check_pool(h, p, xd, x, yd, y, alpha, beta); st != CUDNN_STATUS_SUCCESS) return st;
  const Operand xo = operand(*xd, x), yo = operand(*yd, y);
  const auto spec = pool_spec(*p);
  return queue_pool(h, 0, [=] { tsr::cudnn_double::avg_pool_forward(xo, yo, spec); });
}

cudnnStatus_t cudnnPoolingBackward(cudnnHandle_t h, const cudnnPoolingDescriptor_t p, const void* alpha,
                                   const cudnnTensorDescriptor_t yd, const void* y, const cudnnTensorDescriptor_t dyd,
                                   const void* dy, const cudnnTensorDescriptor_t xd, const void* x, const void* beta,
                                   const cudnnTensorDescriptor_t dxd, void* dx) {
  if (!yd || !dyd || !xd || !dxd || !y || !x) return CUDNN_STATUS_BAD_PARAM;
  if (cudnnStatus_t st = check_pool(h, p, dxd, dx, dyd, dy, alpha, beta); st != CUDNN_STATUS_SUCCESS) return st;
  const Operand dyo = operand(*dyd, dy), dxo = operand(*dxd, dx);
  const auto spec = pool_spec(*p);
  return queue_pool(h, 1, [=] { tsr::cudnn_double::avg_pool_backward(dyo, dxo, spec); });
}

// ---- controls ---------------------------------------------------------------------------
tsr_cudnn_double_counters tsr_cudnn_double_get_counters(void) {
  std::lock_guard<std::mutex> g(mu);
  return counters;
}

void tsr_cudnn_double_reset_counters(void) {
  std::lock_guard<std::mutex> g(mu);
  tsr_cudnn_double_counters fresh{};
  fresh.live_descriptors = counters.live_descriptors;
  fresh.handles_created = counters.handles_created;
  for (int k = 0; k < 3; ++k) fresh.last_algo[k] = -1;
  counters = fresh;
}

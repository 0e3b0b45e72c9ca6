// conv2d forward, backward-data and backward-filter through cuDNN's legacy
// convolution API (libcudnn_cnn in cuDNN 9), with algorithm choice as
// PyTorch's cudnn/Conv_v7.cpp: benchmark mode runs
// cudnnFind*AlgorithmEx once per shape (timing every candidate with a
// workspace from the caching allocator), otherwise cudnnGet*Algorithm_v7's
// heuristic ranking; deterministic mode skips algorithms cuDNN marks
// CUDNN_NON_DETERMINISTIC. Either choice is cached per shape and policy.
#include <map>
#include <mutex>
#include <vector>

#include "cudnn_batch_norm.h"
#include "cudnn_pooling.h"
#include "cudnn_support.h"
#include "plugin_kernels.h"

namespace tsr::cuda {
namespace {

enum class Kind : int { Forward, BackwardData, BackwardFilter };

// The operands of one call in the forward's terms: x (input), w (filter),
// y (output); the kind says which of them is written (y, x or w).
struct Call {
  Kind kind;
  const DnnTensor &x, &w, &y;
  const DnnConvParams& p;
  TensorDesc xd, yd;
  FilterDesc wd;
  ConvDesc cd;
  Call(Kind k, const DnnTensor& x_, const DnnTensor& w_, const DnnTensor& y_, const DnnConvParams& p_)
      : kind(k), x(x_), w(w_), y(y_), p(p_), xd(x_), yd(y_), wd(w_), cd(p_, x_.dtype) {}
};

struct Choice {
  int algo;
  cudnnMathType_t math;
};

// The cache's key: everything the choice depends on.
std::vector<int64_t> key_of(const Call& c, int device) {
  std::vector<int64_t> k{int64_t(c.kind), device, int64_t(c.x.dtype)};
  for (const DnnTensor* t : {&c.x, &c.w, &c.y}) {
    k.insert(k.end(), t->sizes, t->sizes + 4);
    k.insert(k.end(), t->strides, t->strides + 4);
  }
  k.insert(k.end(), {c.p.stride[0], c.p.stride[1], c.p.padding[0], c.p.padding[1], c.p.dilation[0],
                     c.p.dilation[1], c.p.groups, c.p.policy.benchmark, c.p.policy.deterministic,
                     c.p.policy.allow_tf32});
  return k;
}

std::mutex cache_mu;
std::map<std::vector<int64_t>, Choice>& cache() {
  static auto* c = new std::map<std::vector<int64_t>, Choice>();  // lives as the plugin does
  return *c;
}

// One kind's entry points, behind one signature each.
template <Kind K>
struct Api;

template <>
struct Api<Kind::Forward> {
  using Perf = cudnnConvolutionFwdAlgoPerf_t;
  static constexpr int kAlgos = CUDNN_CONVOLUTION_FWD_ALGO_COUNT;
  static constexpr const char* kName = "cudnnConvolutionForward";
  static cudnnStatus_t max_count(cudnnHandle_t h, int* n) { return cudnnGetConvolutionForwardAlgorithmMaxCount(h, n); }
  static cudnnStatus_t heuristic(cudnnHandle_t h, const Call& c, int n, int* got, Perf* r) {
    return cudnnGetConvolutionForwardAlgorithm_v7(h, c.xd.get(), c.wd.get(), c.cd.get(), c.yd.get(), n, got, r);
  }
  static cudnnStatus_t find(cudnnHandle_t h, const Call& c, int n, int* got, Perf* r, void* ws, size_t bytes) {
    return cudnnFindConvolutionForwardAlgorithmEx(h, c.xd.get(), c.x.data, c.wd.get(), c.w.data, c.cd.get(),
                                                  c.yd.get(), c.y.data, n, got, r, ws, bytes);
  }
  static cudnnStatus_t workspace(cudnnHandle_t h, const Call& c, int algo, size_t* bytes) {
    return cudnnGetConvolutionForwardWorkspaceSize(h, c.xd.get(), c.wd.get(), c.cd.get(), c.yd.get(),
                                                   cudnnConvolutionFwdAlgo_t(algo), bytes);
  }
  static cudnnStatus_t run(cudnnHandle_t h, const Call& c, int algo, const void* one, const void* zero, void* ws,
                           size_t bytes) {
    return cudnnConvolutionForward(h, one, c.xd.get(), c.x.data, c.wd.get(), c.w.data, c.cd.get(),
                                   cudnnConvolutionFwdAlgo_t(algo), ws, bytes, zero, c.yd.get(), c.y.data);
  }
};

template <>
struct Api<Kind::BackwardData> {
  using Perf = cudnnConvolutionBwdDataAlgoPerf_t;
  static constexpr int kAlgos = CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT;
  static constexpr const char* kName = "cudnnConvolutionBackwardData";
  static cudnnStatus_t max_count(cudnnHandle_t h, int* n) {
    return cudnnGetConvolutionBackwardDataAlgorithmMaxCount(h, n);
  }
  static cudnnStatus_t heuristic(cudnnHandle_t h, const Call& c, int n, int* got, Perf* r) {
    return cudnnGetConvolutionBackwardDataAlgorithm_v7(h, c.wd.get(), c.yd.get(), c.cd.get(), c.xd.get(), n, got, r);
  }
  static cudnnStatus_t find(cudnnHandle_t h, const Call& c, int n, int* got, Perf* r, void* ws, size_t bytes) {
    return cudnnFindConvolutionBackwardDataAlgorithmEx(h, c.wd.get(), c.w.data, c.yd.get(), c.y.data, c.cd.get(),
                                                       c.xd.get(), c.x.data, n, got, r, ws, bytes);
  }
  static cudnnStatus_t workspace(cudnnHandle_t h, const Call& c, int algo, size_t* bytes) {
    return cudnnGetConvolutionBackwardDataWorkspaceSize(h, c.wd.get(), c.yd.get(), c.cd.get(), c.xd.get(),
                                                        cudnnConvolutionBwdDataAlgo_t(algo), bytes);
  }
  static cudnnStatus_t run(cudnnHandle_t h, const Call& c, int algo, const void* one, const void* zero, void* ws,
                           size_t bytes) {
    return cudnnConvolutionBackwardData(h, one, c.wd.get(), c.w.data, c.yd.get(), c.y.data, c.cd.get(),
                                        cudnnConvolutionBwdDataAlgo_t(algo), ws, bytes, zero, c.xd.get(), c.x.data);
  }
};

template <>
struct Api<Kind::BackwardFilter> {
  using Perf = cudnnConvolutionBwdFilterAlgoPerf_t;
  static constexpr int kAlgos = CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT;
  static constexpr const char* kName = "cudnnConvolutionBackwardFilter";
  static cudnnStatus_t max_count(cudnnHandle_t h, int* n) {
    return cudnnGetConvolutionBackwardFilterAlgorithmMaxCount(h, n);
  }
  static cudnnStatus_t heuristic(cudnnHandle_t h, const Call& c, int n, int* got, Perf* r) {
    return cudnnGetConvolutionBackwardFilterAlgorithm_v7(h, c.xd.get(), c.yd.get(), c.cd.get(), c.wd.get(), n, got,
                                                         r);
  }
  static cudnnStatus_t find(cudnnHandle_t h, const Call& c, int n, int* got, Perf* r, void* ws, size_t bytes) {
    return cudnnFindConvolutionBackwardFilterAlgorithmEx(h, c.xd.get(), c.x.data, c.yd.get(), c.y.data, c.cd.get(),
                                                         c.wd.get(), c.w.data, n, got, r, ws, bytes);
  }
  static cudnnStatus_t workspace(cudnnHandle_t h, const Call& c, int algo, size_t* bytes) {
    return cudnnGetConvolutionBackwardFilterWorkspaceSize(h, c.xd.get(), c.yd.get(), c.cd.get(), c.wd.get(),
                                                          cudnnConvolutionBwdFilterAlgo_t(algo), bytes);
  }
  static cudnnStatus_t run(cudnnHandle_t h, const Call& c, int algo, const void* one, const void* zero, void* ws,
                           size_t bytes) {
    return cudnnConvolutionBackwardFilter(h, one, c.xd.get(), c.x.data, c.yd.get(), c.y.data, c.cd.get(),
                                          cudnnConvolutionBwdFilterAlgo_t(algo), ws, bytes, zero, c.wd.get(),
                                          c.w.data);
  }
};

// The largest workspace any algorithm asks for (those that fail to say are
// skipped), as torch's getMaxWorkspaceSize.
template <Kind K>
size_t max_workspace(cudnnHandle_t h, const Call& c) {
  size_t most = 0;
  for (int a = 0; a < Api<K>::kAlgos; ++a) {
    size_t bytes = 0;
    if (Api<K>::workspace(h, c, a, &bytes) == CUDNN_STATUS_SUCCESS && bytes > most) most = bytes;
  }
  return most;
}

// float32 without TF32: CUDNN_FMA_MATH stays set whatever an algorithm's
// perf says.
bool fma_only(const Call& c) { return c.x.dtype == TSR_FLOAT32 && !c.p.policy.allow_tf32; }

template <Kind K>
Choice choose(cudnnHandle_t h, const Call& c, int device, DnnWorkspace& ws) {
  const std::vector<int64_t> key = key_of(c, device);
  {
    std::lock_guard<std::mutex> g(cache_mu);
    auto it = cache().find(key);
    if (it != cache().end()) return it->second;
  }
  using Perf = typename Api<K>::Perf;
  int n = 0;
  check_cudnn(Api<K>::max_count(h, &n), "cudnnGetConvolution*AlgorithmMaxCount");
  std::vector<Perf> perfs(size_t(n > 0 ? n : 1));
  int got = 0;
  size_t ws_bytes = SIZE_MAX;
  if (c.p.policy.benchmark) {
    // Every candidate runs once on the call's operands (the output is
    // written, then overwritten by the real run) with the most workspace
    // any of them wants; an algorithm wanting more than the allocator could
    // give is left out, as in torch.
    ws_bytes = max_workspace<K>(h, c);
    void* buf = nullptr;
    try {
      buf = ws.get(ws_bytes);
    } catch (const Error& e) {
      if (e.status() != TSR_ERR_OUT_OF_MEMORY) throw;
      ws_bytes = 0;
    }
    check_cudnn(Api<K>::find(h, c, n, &got, perfs.data(), buf, ws_bytes), "cudnnFindConvolution*AlgorithmEx");
  } else {
    check_cudnn(Api<K>::heuristic(h, c, n, &got, perfs.data()), "cudnnGetConvolution*Algorithm_v7");
  }
  // Fastest first (Find) or best first (heuristics): the first usable one.
  for (int i = 0; i < got; ++i) {
    const Perf& r = perfs[size_t(i)];
    if (r.status != CUDNN_STATUS_SUCCESS) continue;
    if (c.p.policy.deterministic && r.determinism != CUDNN_DETERMINISTIC) continue;
    if (r.memory > ws_bytes) continue;
    // TF32 not allowed: no tensor-core algorithm for float32.
    if (fma_only(c) && r.mathType != CUDNN_FMA_MATH && r.mathType != CUDNN_DEFAULT_MATH) continue;
    const Choice choice{int(r.algo), r.mathType};
    std::lock_guard<std::mutex> g(cache_mu);
    cache().emplace(key, choice);
    return choice;
  }
  throw Error(TSR_ERR_UNSUPPORTED, str(Api<K>::kName, ": cuDNN offers no ",
                                       c.p.policy.deterministic ? "deterministic " : "", "algorithm for this convolution"));
}

template <Kind K>
void convolve(const Call& c, DnnWorkspace& ws, Stream s) {
  CudnnSession session(s);
  const Choice choice = choose<K>(session.handle(), c, s.device.index, ws);
  // The algorithm's own math type (a tensor-core algorithm wants
  // CUDNN_TENSOR_OP_MATH set), as torch sets it from the chosen perf.
  if (!fma_only(c))
    check_cudnn(cudnnSetConvolutionMathType(c.cd.get(), choice.math), "cudnnSetConvolutionMathType");
  size_t bytes = 0;
  check_cudnn(Api<K>::workspace(session.handle(), c, choice.algo, &bytes), "cudnnGetConvolution*WorkspaceSize");
  void* buf = ws.get(bytes);
  const double one_d = 1.0, zero_d = 0.0;
  const float one_f = 1.0f, zero_f = 0.0f;
  const bool dbl = c.x.dtype == TSR_FLOAT64;
  check_cudnn(Api<K>::run(session.handle(), c, choice.algo, dbl ? static_cast<const void*>(&one_d) : &one_f,
                          dbl ? static_cast<const void*>(&zero_d) : &zero_f, buf, bytes),
              Api<K>::kName);
}

class CudnnKernels final : public DnnKernels {
 public:
  void conv2d_forward(const DnnTensor& y, const DnnTensor& x, const DnnTensor& w, const DnnConvParams& p,
                      DnnWorkspace& ws, Stream s) override {
    convolve<Kind::Forward>(Call(Kind::Forward, x, w, y, p), ws, s);
  }
  void conv2d_backward_data(const DnnTensor& dx, const DnnTensor& dy, const DnnTensor& w, const DnnConvParams& p,
                            DnnWorkspace& ws, Stream s) override {
    convolve<Kind::BackwardData>(Call(Kind::BackwardData, dx, w, dy, p), ws, s);
  }
  void conv2d_backward_filter(const DnnTensor& dw, const DnnTensor& dy, const DnnTensor& x, const DnnConvParams& p,
                              DnnWorkspace& ws, Stream s) override {
    convolve<Kind::BackwardFilter>(Call(Kind::BackwardFilter, x, dw, dy, p), ws, s);
  }
  void batch_norm_training(const DnnTensor& y, const DnnTensor& x, const void* weight, const void* bias,
                           tsr_dtype param_dtype, double eps, void* mean, void* unbiased_var, Stream s) override {
    cudnn_batch_norm_training(y, x, weight, bias, param_dtype, eps, mean, unbiased_var, s);
  }
  void batch_norm_inference(const DnnTensor& y, const DnnTensor& x, const void* weight, const void* bias,
                            tsr_dtype param_dtype, const void* mean, const void* var, double eps, Stream s) override {
    cudnn_batch_norm_inference(y, x, weight, bias, param_dtype, mean, var, eps, s);
  }
  void batch_norm_backward(const DnnTensor& dx, const DnnTensor& dy, const DnnTensor& x, const void* weight,
                           void* dweight, void* dbias, tsr_dtype param_dtype, double eps, Stream s) override {
    cudnn_batch_norm_backward(dx, dy, x, weight, dweight, dbias, param_dtype, eps, s);
  }
  void avg_pool2d_forward(const DnnTensor& y, const DnnTensor& x, const DnnPoolParams& p, Stream s) override {
    cudnn_avg_pool2d_forward(y, x, p, s);
  }
  void avg_pool2d_backward(const DnnTensor& dx, const DnnTensor& dy, const DnnPoolParams& p, Stream s) override {
    cudnn_avg_pool2d_backward(dx, dy, p, s);
  }
};

}  // namespace

DnnKernels* plugin_dnn_kernels() {
  static auto* k = new CudnnKernels();  // lives as the plugin does
  return k;
}

}  // namespace tsr::cuda

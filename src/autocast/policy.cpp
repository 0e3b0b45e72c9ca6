#include "autocast/policy.h"

#include <unordered_map>

namespace tsr::autocast {

namespace {

using Table = std::unordered_map<std::string_view, CastPolicy>;

void add(Table& table, std::initializer_list<std::string_view> ops, CastPolicy p) {
  for (std::string_view op : ops) table.emplace(op, p);
}

// AutocastCPU in torch 1.13. "convolution" is tessera's primitive behind
// conv2d (torch lists conv1d/2d/3d and _convolution); names tessera has no
// op for yet are kept so the table reads as torch's.
Table cpu_table() {
  Table t;
  add(t,
      {"conv1d", "conv2d", "conv3d", "convolution", "_convolution", "bmm", "mm", "baddbmm", "addmm",
       "addbmm", "linear", "matmul", "conv_tbc", "conv_transpose1d", "conv_transpose2d",
       "conv_transpose3d", "prelu", "scaled_dot_product_attention"},
      CastPolicy::LowerPrecision);
  add(t,
      {"avg_pool3d", "binary_cross_entropy", "grid_sampler", "polar", "prod", "quantile",
       "nanquantile", "stft", "cdist", "trace", "view_as_complex", "cholesky", "cholesky_inverse",
       "cholesky_solve", "inverse", "lu_solve", "orgqr", "ormqr", "pinverse", "max_pool3d",
       "max_unpool2d", "max_unpool3d", "adaptive_avg_pool3d", "reflection_pad1d",
       "reflection_pad2d", "replication_pad1d", "replication_pad2d", "replication_pad3d",
       "mse_loss", "ctc_loss", "kl_div", "multilabel_margin_loss", "fft_fft", "fft_ifft",
       "fft_fft2", "fft_ifft2", "fft_fftn", "fft_ifftn", "fft_rfft", "fft_irfft", "fft_rfft2",
       "fft_irfft2", "fft_rfftn", "fft_irfftn", "fft_hfft", "fft_ihfft", "cosine_embedding_loss",
       "nll_loss", "nll_loss2d", "hinge_embedding_loss", "poisson_nll_loss", "smooth_l1_loss",
       "cross_entropy_loss", "l1_loss", "huber_loss", "margin_ranking_loss", "soft_margin_loss",
       "triplet_margin_loss", "multi_margin_loss", "binary_cross_entropy_with_logits",
       "linalg_cond", "linalg_matrix_rank", "linalg_solve", "linalg_cholesky", "linalg_svdvals",
       "linalg_eigvals", "linalg_eigvalsh", "linalg_inv", "linalg_householder_product",
       "linalg_tensorinv", "linalg_tensorsolve", "fake_quantize_per_tensor_affine", "geqrf",
       "_lu_with_info", "qr", "svd", "symeig", "triangular_solve", "fractional_max_pool2d",
       "fractional_max_pool3d", "adaptive_max_pool3d", "linalg_qr", "linalg_cholesky_ex",
       "linalg_svd", "linalg_eig", "linalg_eigh", "linalg_lstsq", "linalg_inv_ex"},
      CastPolicy::Float32);
  add(t, {"stack", "cat", "index_copy"}, CastPolicy::Promote);
  return t;
}

// AutocastCUDA in torch 1.13 (the fp32_set_opt_dtype and fp32_append_dtype
// ops run in float32 as the fp32 ones do).
Table cuda_table() {
  Table t;
  add(t,
      {"_convolution", "conv1d", "conv2d", "conv3d", "conv_tbc", "conv_transpose1d",
       "conv_transpose2d", "conv_transpose3d", "convolution", "cudnn_convolution",
       "cudnn_convolution_transpose", "prelu", "addmm", "addmv", "addr", "matmul", "einsum", "mm",
       "mv", "linear", "addbmm", "baddbmm", "bmm", "chain_matmul", "linalg_multi_dot",
       "_thnn_fused_lstm_cell", "_thnn_fused_gru_cell", "lstm_cell", "gru_cell", "rnn_tanh_cell",
       "rnn_relu_cell", "scaled_dot_product_attention"},
      CastPolicy::LowerPrecision);
  add(t,
      {"acos", "asin", "cosh", "erfinv", "exp", "expm1", "log", "log10", "log2", "log1p",
       "reciprocal", "rsqrt", "sinh", "tan", "pow", "softplus", "layer_norm", "native_layer_norm",
       "group_norm", "frobenius_norm", "nuclear_norm", "cosine_similarity", "poisson_nll_loss",
       "cosine_embedding_loss", "nll_loss", "nll_loss2d", "hinge_embedding_loss", "kl_div",
       "l1_loss", "smooth_l1_loss", "huber_loss", "mse_loss", "margin_ranking_loss",
       "multilabel_margin_loss", "soft_margin_loss", "triplet_margin_loss", "multi_margin_loss",
       "binary_cross_entropy_with_logits", "dist", "pdist", "cdist", "renorm", "logsumexp",
       "prod", "softmax", "log_softmax", "cumprod", "cumsum", "linalg_vector_norm",
       "linalg_matrix_norm", "sum", "norm"},
      CastPolicy::Float32);
  add(t,
      {"addcdiv", "addcmul", "atan2", "bilinear", "cross", "dot", "grid_sampler", "index_put",
       "tensordot", "scatter_add", "cat", "stack", "index_copy"},
      CastPolicy::Promote);
  add(t, {"binary_cross_entropy"}, CastPolicy::Banned);
  return t;
}

}  // namespace

CastPolicy policy(std::string_view op, tsr_device_type device_type) {
  static const Table cpu = cpu_table();
  static const Table cuda = cuda_table();
  const Table* table = device_type == TSR_DEVICE_CPU ? &cpu : device_type == TSR_DEVICE_CUDA ? &cuda : nullptr;
  if (!table) return CastPolicy::None;
  auto it = table->find(op);
  return it == table->end() ? CastPolicy::None : it->second;
}

}  // namespace tsr::autocast

// C API: scaled dot-product attention (attention.h).
#include <tessera/attention.h>

#include "capi/barrier.h"
#include "capi/generator_handle.h"
#include "capi/handles.h"
#include "ops/attention.h"

using namespace tsr;
using namespace tsr::capi;

TSR_EXTERN tsr_status tsr_scaled_dot_product_attention(const tsr_tensor* query, const tsr_tensor* key,
                                                       const tsr_tensor* value, const tsr_tensor* attn_mask,
                                                       double dropout_p, bool is_causal, double scale,
                                                       tsr_generator* generator, tsr_tensor** out) {
  return guarded([&] {
    const Tensor& q = tensor_of(query, "query");
    const Tensor& k = tensor_of(key, "key");
    const Tensor& v = tensor_of(value, "value");
    const Tensor mask = attn_mask ? tensor_of(attn_mask, "attn_mask") : Tensor();
    require(out, "out");
    emit(out, ops::scaled_dot_product_attention(q, k, v, mask, dropout_p, is_causal, scale,
                                                generator ? generator->shared : nullptr));
  });
}

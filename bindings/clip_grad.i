/* bindings/clip_grad.i — Gradient clipping (torch.nn.utils.clip_grad_norm_, clip_grad_value_).
 * Over include/tessera/clip_grad.h. Included at the end of tessera.i, so
 * tessera.i's conventions hold (error bracket, TSR_RETURN_TENSOR, array
 * typemaps). Parameters cross as a TensorList; each language's layer
 * supplies torch's defaults (norm_type 2.0, error_if_nonfinite false). */

%{
/* clip_grad_norm_(params, max_norm, norm_type, error_if_nonfinite): the
 * total norm, a 0-dim tensor. */
static TsrTensor* bind_clip_grad_norm(TsrTensorList* params, double max_norm, double norm_type,
                                      bool error_if_nonfinite) {
  if (!params) {
    tsr_bind_fail(TSR_ERR_INVALID_ARGUMENT, "clip_grad_norm_: the parameter list is NULL or closed");
    return NULL;
  }
  TSR_RETURN_TENSOR(tsr_clip_grad_norm_(params->items, (size_t)params->size, max_norm, norm_type,
                                        error_if_nonfinite, &out));
}
/* clip_grad_value_(params, clip_value). */
static void bind_clip_grad_value(TsrTensorList* params, double clip_value) {
  if (!params) {
    tsr_bind_fail(TSR_ERR_INVALID_ARGUMENT, "clip_grad_value_: the parameter list is NULL or closed");
    return;
  }
  tsr_clip_grad_value_(params->items, (size_t)params->size, clip_value);
}
%}

%newobject bind_clip_grad_norm;
%rename(clip_grad_norm) bind_clip_grad_norm;
TsrTensor* bind_clip_grad_norm(TsrTensorList* params, double max_norm, double norm_type, bool error_if_nonfinite);
%rename(clip_grad_value) bind_clip_grad_value;
void bind_clip_grad_value(TsrTensorList* params, double clip_value);

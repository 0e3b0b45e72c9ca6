/* bindings/clip_grad.i — Gradient clipping (torch.nn.utils.clip_grad_norm_, clip_grad_value_).
 * Over include/tessera/clip_grad.h. Included at the end of tessera.i, so
 * tessera.i's conventions hold (error bracket, TSR_RETURN_TENSOR, array
 * typemaps). */

/* bindings/loss.i — Loss functions (torch.nn.functional): mse, l1, smooth_l1, huber, kl_div, nll, cross_entropy, binary cross entropy.
 * Over include/tessera/loss.h. Included at the end of tessera.i, so
 * tessera.i's conventions hold (error bracket, TSR_RETURN_TENSOR, array
 * typemaps). */

%{
/* The losses of loss.h; reduction is a tsr_loss_reduction value (the
 * Python layer maps torch's strings onto it). Bindings pass an int, which
 * the C API checks against the enum's range. */
static TsrTensor* bind_mse_loss(TsrTensor* input, TsrTensor* target, int reduction) {
  TSR_RETURN_TENSOR(tsr_mse_loss(input, target, (tsr_loss_reduction)reduction, &out));
}
static TsrTensor* bind_l1_loss(TsrTensor* input, TsrTensor* target, int reduction) {
  TSR_RETURN_TENSOR(tsr_l1_loss(input, target, (tsr_loss_reduction)reduction, &out));
}
static TsrTensor* bind_smooth_l1_loss(TsrTensor* input, TsrTensor* target, int reduction, double beta) {
  TSR_RETURN_TENSOR(tsr_smooth_l1_loss(input, target, (tsr_loss_reduction)reduction, beta, &out));
}
static TsrTensor* bind_huber_loss(TsrTensor* input, TsrTensor* target, int reduction, double delta) {
  TSR_RETURN_TENSOR(tsr_huber_loss(input, target, (tsr_loss_reduction)reduction, delta, &out));
}
static TsrTensor* bind_kl_div(TsrTensor* input, TsrTensor* target, int reduction, bool log_target) {
  TSR_RETURN_TENSOR(tsr_kl_div(input, target, (tsr_loss_reduction)reduction, log_target, &out));
}
%}

%newobject bind_mse_loss;
%rename(mse_loss) bind_mse_loss;
TsrTensor* bind_mse_loss(TsrTensor* input, TsrTensor* target, int reduction);
%newobject bind_l1_loss;
%rename(l1_loss) bind_l1_loss;
TsrTensor* bind_l1_loss(TsrTensor* input, TsrTensor* target, int reduction);
%newobject bind_smooth_l1_loss;
%rename(smooth_l1_loss) bind_smooth_l1_loss;
TsrTensor* bind_smooth_l1_loss(TsrTensor* input, TsrTensor* target, int reduction, double beta);
%newobject bind_huber_loss;
%rename(huber_loss) bind_huber_loss;
TsrTensor* bind_huber_loss(TsrTensor* input, TsrTensor* target, int reduction, double delta);
%newobject bind_kl_div;
%rename(kl_div) bind_kl_div;
TsrTensor* bind_kl_div(TsrTensor* input, TsrTensor* target, int reduction, bool log_target);

%{
/* weight NULL for none. */
static TsrTensor* bind_nll_loss(TsrTensor* input, TsrTensor* target, TsrTensor* weight, int reduction,
                                int64_t ignore_index) {
  TSR_RETURN_TENSOR(tsr_nll_loss(input, target, weight, (tsr_loss_reduction)reduction, ignore_index, &out));
}
static TsrTensor* bind_cross_entropy_loss(TsrTensor* input, TsrTensor* target, TsrTensor* weight, int reduction,
                                          int64_t ignore_index, double label_smoothing) {
  TSR_RETURN_TENSOR(tsr_cross_entropy_loss(input, target, weight, (tsr_loss_reduction)reduction, ignore_index, label_smoothing, &out));
}
%}
%newobject bind_nll_loss;
%rename(nll_loss) bind_nll_loss;
TsrTensor* bind_nll_loss(TsrTensor* input, TsrTensor* target, TsrTensor* weight, int reduction, int64_t ignore_index);
%newobject bind_cross_entropy_loss;
%rename(cross_entropy_loss) bind_cross_entropy_loss;
TsrTensor* bind_cross_entropy_loss(TsrTensor* input, TsrTensor* target, TsrTensor* weight, int reduction, int64_t ignore_index, double label_smoothing);

%{
/* weight, pos_weight NULL for none. */
static TsrTensor* bind_binary_cross_entropy(TsrTensor* input, TsrTensor* target, TsrTensor* weight, int reduction) {
  TSR_RETURN_TENSOR(tsr_binary_cross_entropy(input, target, weight, (tsr_loss_reduction)reduction, &out));
}
static TsrTensor* bind_binary_cross_entropy_with_logits(TsrTensor* input, TsrTensor* target, TsrTensor* weight,
                                                        TsrTensor* pos_weight, int reduction) {
  TSR_RETURN_TENSOR(tsr_binary_cross_entropy_with_logits(input, target, weight, pos_weight, (tsr_loss_reduction)reduction, &out));
}
%}
%newobject bind_binary_cross_entropy;
%rename(binary_cross_entropy) bind_binary_cross_entropy;
TsrTensor* bind_binary_cross_entropy(TsrTensor* input, TsrTensor* target, TsrTensor* weight, int reduction);
%newobject bind_binary_cross_entropy_with_logits;
%rename(binary_cross_entropy_with_logits) bind_binary_cross_entropy_with_logits;
TsrTensor* bind_binary_cross_entropy_with_logits(TsrTensor* input, TsrTensor* target, TsrTensor* weight, TsrTensor* pos_weight, int reduction);

/* The languages' own forms of the issue 33 ops (Tensor methods the proxies
 * gain; C# and Go write theirs in hand-written files). */
#if defined(SWIGJAVA)
%include "java/java_training_ops.i"
#endif

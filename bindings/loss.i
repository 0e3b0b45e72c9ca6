/* bindings/loss.i — Loss functions (torch.nn.functional): mse, l1, smooth_l1, huber, kl_div, nll, cross_entropy, binary cross entropy.
 * Over include/tessera/loss.h. Included at the end of tessera.i, so
 * tessera.i's conventions hold (error bracket, TSR_RETURN_TENSOR, array
 * typemaps). */

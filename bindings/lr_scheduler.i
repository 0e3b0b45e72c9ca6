/* bindings/lr_scheduler.i — Learning-rate schedulers (torch.optim.lr_scheduler).
 * Over include/tessera/lr_scheduler.h. Included at the end of tessera.i, so
 * tessera.i's conventions hold (error bracket, TSR_RETURN_TENSOR, array
 * typemaps). */

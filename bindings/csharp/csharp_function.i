/* bindings/csharp/csharp_function.i — Tessera.Function over function.h.
 * C#-only (included by bindings/function.i).
 *
 * One apply's state is a C# object, the record (src/FunctionApply.cs): the
 * definition's user_data is a GCHandle to it, freed by release_user_data
 * when the library no longer needs it. The C callbacks below call three
 * delegates FunctionApply registers once (static, so never collected):
 * forward, backward and release, passing the GCHandle and the raw arrays.
 * The delegates never let an exception out (it must not unwind through the
 * library): they keep it (src/CallbackErrors.cs), record its status and
 * message with tsr_set_last_error and return the status; the entry point's
 * error delegate (csharp.i) then throws the kept exception itself.
 *
 * The other entry points are plain exported functions: each returns the
 * status, and on failure leaves the pending exception (tsr_cs_raise) that
 * the C# side throws. */

%{
#include <tessera/function.h>

typedef int (SWIGSTDCALL* tsr_cs_fn_forward)(void* record, tsr_function_ctx* ctx, int64_t n_inputs,
                                             tsr_tensor* const* inputs, int64_t max_outputs, int64_t* n_outputs,
                                             tsr_tensor** outputs);
typedef int (SWIGSTDCALL* tsr_cs_fn_backward)(void* record, tsr_function_ctx* ctx, int64_t n_grads,
                                              tsr_tensor* const* grads, int64_t n_inputs, tsr_tensor** grad_inputs);
typedef void (SWIGSTDCALL* tsr_cs_fn_release)(void* record);
static tsr_cs_fn_forward tsr_cs_fn_forward_cb;
static tsr_cs_fn_backward tsr_cs_fn_backward_cb;
static tsr_cs_fn_release tsr_cs_fn_release_cb;

static tsr_status tsr_cs_fn_forward_tramp(tsr_function_ctx* ctx, int64_t n_inputs, tsr_tensor* const* inputs,
                                          int64_t max_outputs, int64_t* n_outputs, tsr_tensor** outputs,
                                          void* record) {
  tsr_status status = (tsr_status)tsr_cs_fn_forward_cb(record, ctx, n_inputs, inputs, max_outputs, n_outputs, outputs);
  tsr_bind_code = TSR_OK; /* failures of wrapped calls inside were the record's to handle */
  return status;
}

static tsr_status tsr_cs_fn_backward_tramp(tsr_function_ctx* ctx, int64_t n_grads, tsr_tensor* const* grads,
                                           int64_t n_inputs, tsr_tensor** grad_inputs, void* record) {
  tsr_status status = (tsr_status)tsr_cs_fn_backward_cb(record, ctx, n_grads, grads, n_inputs, grad_inputs);
  tsr_bind_code = TSR_OK;
  return status;
}

static void tsr_cs_fn_release_tramp(void* record) { tsr_cs_fn_release_cb(record); }

/* A failure of the call just made: the pending exception for C#. */
static int tsr_cs_fn_status(tsr_status status) {
  if (status != TSR_OK) tsr_cs_raise(status, tsr_last_error_message());
  return (int)status;
}

#ifdef __cplusplus
extern "C" {
#endif

SWIGEXPORT void SWIGSTDCALL TesseraCSharp_FunctionRegister(tsr_cs_fn_forward forward, tsr_cs_fn_backward backward,
                                                           tsr_cs_fn_release release) {
  tsr_cs_fn_forward_cb = forward;
  tsr_cs_fn_backward_cb = backward;
  tsr_cs_fn_release_cb = release;
}

SWIGEXPORT int SWIGSTDCALL TesseraCSharp_FunctionApply(const char* name, void* record, int64_t n_inputs,
                                                       tsr_tensor* const* inputs, int64_t max_outputs,
                                                       int64_t* n_outputs, tsr_tensor** outputs) {
  tsr_bind_clear();
  tsr_function_def def = TSR_FUNCTION_DEF_INIT;
  def.name = name;
  def.forward = tsr_cs_fn_forward_tramp;
  def.backward = tsr_cs_fn_backward_tramp;
  def.user_data = record;
  def.release_user_data = tsr_cs_fn_release_tramp; /* also when apply fails */
  return tsr_cs_fn_status(tsr_function_apply(&def, n_inputs, inputs, max_outputs, n_outputs, outputs));
}

SWIGEXPORT tsr_tensor* SWIGSTDCALL TesseraCSharp_TensorRetain(tsr_tensor* tensor) {
  tsr_tensor_retain(tensor);
  return tensor;
}

SWIGEXPORT void SWIGSTDCALL TesseraCSharp_SetLastError(int status, const char* message) {
  tsr_set_last_error((tsr_status)status, message);
}

SWIGEXPORT int SWIGSTDCALL TesseraCSharp_FunctionCtxSave(tsr_function_ctx* ctx, int64_t n, tsr_tensor* const* tensors) {
  tsr_bind_clear();
  return tsr_cs_fn_status(tsr_function_ctx_save_for_backward(ctx, n, tensors));
}

SWIGEXPORT int SWIGSTDCALL TesseraCSharp_FunctionCtxSaved(tsr_function_ctx* ctx, int64_t max, int64_t* n,
                                                          tsr_tensor** out) {
  tsr_bind_clear();
  return tsr_cs_fn_status(tsr_function_ctx_saved_tensors(ctx, max, n, out));
}

SWIGEXPORT int SWIGSTDCALL TesseraCSharp_FunctionCtxNeedsInputGrad(tsr_function_ctx* ctx, int64_t i, int* out) {
  tsr_bind_clear();
  bool needs = false;
  int status = tsr_cs_fn_status(tsr_function_ctx_needs_input_grad(ctx, i, &needs));
  *out = needs ? 1 : 0;
  return status;
}

SWIGEXPORT int SWIGSTDCALL TesseraCSharp_FunctionCtxMark(tsr_function_ctx* ctx, int dirty, int64_t n,
                                                         tsr_tensor* const* tensors) {
  tsr_bind_clear();
  return tsr_cs_fn_status(dirty ? tsr_function_ctx_mark_dirty(ctx, n, tensors)
                                : tsr_function_ctx_mark_non_differentiable(ctx, n, tensors));
}

SWIGEXPORT int SWIGSTDCALL TesseraCSharp_FunctionCtxSetMaterializeGrads(tsr_function_ctx* ctx, int value) {
  tsr_bind_clear();
  return tsr_cs_fn_status(tsr_function_ctx_set_materialize_grads(ctx, value != 0));
}

#ifdef __cplusplus
}
#endif
%}

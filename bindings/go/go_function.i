/* bindings/go/go_function.i — the Go side of custom differentiable functions
 * (include/tessera/function.h), included by bindings/function.i. Package
 * tessera builds tessera.Function / Apply on what this file puts in capi.
 *
 * One apply's state is a Go value (package tessera's application) behind a
 * runtime/cgo handle: the handle is the definition's user_data, and the
 * library's release_user_data deletes it. The C callbacks below call the
 * exported Go functions tsr_go_function_forward / _backward with it, on the
 * thread the library runs them on; cgo keeps the goroutine on that thread
 * for the callback, so the grad mode and checkpoint regions the library set
 * there are the ones the callback's tessera calls see.
 *
 * A callback never unwinds through the library: the Go side recovers every
 * panic and reports a failure instead. A failure is a status, a message
 * (tsr_set_last_error, so the library prefixes "<Name>.forward: ") and the
 * Go error itself, parked in go.i's tsr_go_cause for the failing wrapper's
 * Failure: errors.Is/As then find the callback's own error.
 *
 * Tensors handed to Go (inputs, gradients) get one new reference each here,
 * which package tessera's *Tensor takes over; tensors Go hands back are
 * retained by Go (retain_tensors below) before it writes them into the slots. */

%{
extern int tsr_go_function_forward(uintptr_t fn, uintptr_t ctx, int64_t n_inputs, uintptr_t* inputs,
                                   int64_t max_outputs, int64_t* n_outputs, uintptr_t* outputs, char** message,
                                   uintptr_t* cause);
extern int tsr_go_function_backward(uintptr_t fn, uintptr_t ctx, int64_t n_grads, uintptr_t* grads,
                                    int64_t n_inputs, uintptr_t* grad_inputs, char** message, uintptr_t* cause);
extern void tsr_go_function_release(uintptr_t fn);

static void tsr_go_retain_each(int64_t n, tsr_tensor* const* tensors) {
  for (int64_t i = 0; i < n; ++i)
    if (tensors[i]) tsr_tensor_retain(tensors[i]);
}

/* What every callback does on its way back to the library. message is
 * malloc'ed by Go (C.CString) or NULL. */
static tsr_status tsr_go_function_return(int status, char* message, uintptr_t cause) {
  tsr_bind_code = TSR_OK; /* glue failures of wrapped calls inside were the callback's to handle */
  if (status != TSR_OK) {
    tsr_set_last_error((tsr_status)status, message);
    tsr_go_keep_cause(cause);
  }
  free(message);
  return (tsr_status)status;
}

static tsr_status tsr_go_function_forward_c(tsr_function_ctx* ctx, int64_t n_inputs, tsr_tensor* const* inputs,
                                            int64_t max_outputs, int64_t* n_outputs, tsr_tensor** outputs,
                                            void* fn) {
  char* message = NULL;
  uintptr_t cause = 0;
  tsr_go_retain_each(n_inputs, inputs);
  int status = tsr_go_function_forward((uintptr_t)fn, (uintptr_t)ctx, n_inputs, (uintptr_t*)inputs, max_outputs,
                                       n_outputs, (uintptr_t*)outputs, &message, &cause);
  return tsr_go_function_return(status, message, cause);
}

static tsr_status tsr_go_function_backward_c(tsr_function_ctx* ctx, int64_t n_grads, tsr_tensor* const* grads,
                                             int64_t n_inputs, tsr_tensor** grad_inputs, void* fn) {
  char* message = NULL;
  uintptr_t cause = 0;
  tsr_go_retain_each(n_grads, grads);
  int status = tsr_go_function_backward((uintptr_t)fn, (uintptr_t)ctx, n_grads, (uintptr_t*)grads, n_inputs,
                                        (uintptr_t*)grad_inputs, &message, &cause);
  return tsr_go_function_return(status, message, cause);
}

static void tsr_go_function_release_c(void* fn) { tsr_go_function_release((uintptr_t)fn); }
%}

/* The application and context handles are uintptr in Go, as tensor handles
 * (stdint.i would make uintptr_t a uint). */
%typemap(gotype) uintptr_t fn, uintptr_t ctx "uintptr"

/* Tensor handles in and out as []uintptr, read (or, for outputs, written) in
 * place for the call. */
%typemap(gotype) (uintptr_t* tensors, int64_t n_tensors) "[]uintptr"
%typemap(in) (uintptr_t* tensors, int64_t n_tensors) %{
  $1 = ($1_ltype)$input.array;
  $2 = (int64_t)$input.len;
%}
%apply (uintptr_t* tensors, int64_t n_tensors) { (uintptr_t* outputs, int64_t max_outputs) };

%inline %{
/* tsr_function_apply with the Go callbacks; fn is the application's handle
 * (deleted by the library through release_user_data, also on failure).
 * Returns the number of outputs written into outputs (new references). */
static int64_t function_apply(uintptr_t fn, const char* name, uintptr_t* tensors, int64_t n_tensors,
                              uintptr_t* outputs, int64_t max_outputs) {
  tsr_function_def def = TSR_FUNCTION_DEF_INIT;
  def.name = name;
  def.forward = tsr_go_function_forward_c;
  def.backward = tsr_go_function_backward_c;
  def.user_data = (void*)fn;
  def.release_user_data = tsr_go_function_release_c;
  int64_t n = 0;
  tsr_function_apply(&def, n_tensors, (tsr_tensor* const*)tensors, max_outputs, &n, (tsr_tensor**)outputs);
  return n;
}

/* One new reference to each non-NULL tensor: what a callback hands back. */
static void retain_tensors(uintptr_t* tensors, int64_t n_tensors) {
  tsr_go_retain_each(n_tensors, (tsr_tensor* const*)tensors);
}

static void function_ctx_save_for_backward(uintptr_t ctx, uintptr_t* tensors, int64_t n_tensors) {
  tsr_function_ctx_save_for_backward((tsr_function_ctx*)ctx, n_tensors, (tsr_tensor* const*)tensors);
}

/* Writes new references (0 for none) into outputs; returns how many. */
static int64_t function_ctx_saved_tensors(uintptr_t ctx, uintptr_t* outputs, int64_t max_outputs) {
  int64_t n = 0;
  tsr_function_ctx_saved_tensors((tsr_function_ctx*)ctx, max_outputs, &n, (tsr_tensor**)outputs);
  return n;
}

static bool function_ctx_needs_input_grad(uintptr_t ctx, int64_t i) {
  bool out = false;
  tsr_function_ctx_needs_input_grad((tsr_function_ctx*)ctx, i, &out);
  return out;
}

static void function_ctx_mark_dirty(uintptr_t ctx, uintptr_t* tensors, int64_t n_tensors) {
  tsr_function_ctx_mark_dirty((tsr_function_ctx*)ctx, n_tensors, (tsr_tensor* const*)tensors);
}

static void function_ctx_mark_non_differentiable(uintptr_t ctx, uintptr_t* tensors, int64_t n_tensors) {
  tsr_function_ctx_mark_non_differentiable((tsr_function_ctx*)ctx, n_tensors, (tsr_tensor* const*)tensors);
}

static void function_ctx_set_materialize_grads(uintptr_t ctx, bool value) {
  tsr_function_ctx_set_materialize_grads((tsr_function_ctx*)ctx, value);
}
%}

%go_import("fmt", "runtime/cgo", "sync/atomic")
%insert(go_wrapper) %{

// FunctionCallbacks is one apply's state as the C callbacks reach it
// (package tessera's application). Tensors arrive as handles the callee owns
// one reference to each of (0 for none); it writes retained handles into
// the output slots. A non-nil *Failure fails the callback; its Cause comes
// back in the Failure of the wrapper whose call ran the callback. Neither
// method may panic.
type FunctionCallbacks interface {
	Forward(ctx uintptr, inputs, outputs []uintptr) (n int, failure *Failure)
	Backward(ctx uintptr, gradOutputs, gradInputs []uintptr) *Failure
}

// liveHandles counts the cgo handles this file made and did not delete yet
// (applications and parked causes); tests check that none leak.
var liveHandles int64

func newHandle(v any) uintptr {
	atomic.AddInt64(&liveHandles, 1)
	return uintptr(cgo.NewHandle(v))
}

func deleteHandle(h uintptr) any {
	v := cgo.Handle(h).Value()
	cgo.Handle(h).Delete()
	atomic.AddInt64(&liveHandles, -1)
	return v
}

// LiveHandles is the number of applications the library still holds plus
// callback errors not yet handed to a Failure.
func LiveHandles() int64 { return atomic.LoadInt64(&liveHandles) }

// NewFunction makes cb reachable from C: the handle for Function_apply,
// which always hands it to the library (deleted through release_user_data).
func NewFunction(cb FunctionCallbacks) uintptr { return newHandle(cb) }

// takeCause is the error a parked cause handle holds (nil for 0), deleting
// the handle.
func takeCause(h uintptr) error {
	if h == 0 {
		return nil
	}
	err, _ := deleteHandle(h).(error)
	return err
}

//export tsr_go_drop_cause
func tsr_go_drop_cause(cause C.uintptr_t) { takeCause(uintptr(cause)) }

//export tsr_go_function_release
func tsr_go_function_release(fn C.uintptr_t) { deleteHandle(uintptr(fn)) }

// handles is a C array of n tensor handles as a Go slice (nil for none).
func handles(p *C.uintptr_t, n C.int64_t) []uintptr {
	if p == nil || n <= 0 {
		return nil
	}
	return unsafe.Slice((*uintptr)(unsafe.Pointer(p)), int(n))
}

// callbackFailed writes f for tsr_go_function_return: the message as a C
// string (freed there) and the cause as a handle (parked there). A failure
// always fails: status OK becomes TSR_ERR_INTERNAL (else the cause would be
// parked by no one).
func callbackFailed(f *Failure, message **C.char, cause *C.uintptr_t) C.int {
	if f.Status == 0 {
		f.Status = 11
	}
	*message = C.CString(f.Message)
	if f.Cause != nil {
		*cause = C.uintptr_t(newHandle(f.Cause))
	}
	return C.int(f.Status)
}

// callbackPanicked is the last line of defence: FunctionCallbacks do not
// panic, but if one does the panic must still not reach the library's
// frames. The status is TSR_ERR_INTERNAL: that would be a bug here.
func callbackPanicked(status *C.int, message **C.char, cause *C.uintptr_t) {
	if r := recover(); r != nil {
		*status = callbackFailed(&Failure{Status: 11, Message: fmt.Sprintf("panic in the Go callback: %v", r)},
			message, cause)
	}
}

//export tsr_go_function_forward
func tsr_go_function_forward(fn, ctx C.uintptr_t, nInputs C.int64_t, inputs *C.uintptr_t, maxOutputs C.int64_t,
	nOutputs *C.int64_t, outputs *C.uintptr_t, message **C.char, cause *C.uintptr_t) (status C.int) {
	defer callbackPanicked(&status, message, cause)
	cb := cgo.Handle(fn).Value().(FunctionCallbacks)
	n, f := cb.Forward(uintptr(ctx), handles(inputs, nInputs), handles(outputs, maxOutputs))
	if f != nil {
		return callbackFailed(f, message, cause)
	}
	*nOutputs = C.int64_t(n)
	return 0
}

//export tsr_go_function_backward
func tsr_go_function_backward(fn, ctx C.uintptr_t, nGrads C.int64_t, grads *C.uintptr_t, nInputs C.int64_t,
	gradInputs *C.uintptr_t, message **C.char, cause *C.uintptr_t) (status C.int) {
	defer callbackPanicked(&status, message, cause)
	cb := cgo.Handle(fn).Value().(FunctionCallbacks)
	if f := cb.Backward(uintptr(ctx), handles(grads, nGrads), handles(gradInputs, nInputs)); f != nil {
		return callbackFailed(f, message, cause)
	}
	return 0
}
%}

/* bindings/go/go.i — Go specifics of bindings/tessera.i, included before the
 * declarations. SWIG generates the internal package tessera.dev/tessera/
 * internal/capi from it (swig -go -cgo -intgosize 64 -package capi); the
 * hand-written package tessera (bindings/go/*.go) is what users import.
 *
 * Errors. A non-OK status calls tsr_go_fail (an exported Go function, at the
 * end of this file, so in the generated Go file), which copies the status and message into a
 * *capi.Failure and panics with it. When the failure began as a Go error in a
 * custom function's callback (go_function.i), the callback left that error
 * here, in tsr_go_cause, and the failure carries it as its Cause. The panic unwinds the C wrapper (C, so no
 * destructors are skipped) back into Go, where every method of the
 * hand-written package recovers it and returns an *tessera.Error. The message
 * is copied inside that callback, in the same cgo call that failed, on the
 * same OS thread (a goroutine may move to another thread between two calls).
 * Nothing a wrapper allocates is live at that point: no typemap below
 * allocates before the call (strings and slices point into Go memory for the
 * call's duration), and results are only copied out after the check.
 *
 * Handles. Every handle pointer is a plain uintptr in Go (not SWIG's
 * interface, which would box each result on the heap); the hand-written
 * package keeps it in a small struct carrying the finalizer.
 */

/* The by-value array structs of tessera.i only carry results out through the
 * typemaps below; Go code never touches their fields. Wrapping them would
 * emit accessors that convert a uintptr handle to a C pointer, which `go vet`
 * reports as "possible misuse of unsafe.Pointer" (17 of its 18 warnings). */
%ignore tsr_i64_array;
%ignore tsr_f64_array;
%ignore tsr_bytes;

%{
/* The generated Go file exports them (//export below); C only declares them. */
extern void tsr_go_fail(int status, char* message, uintptr_t cause);
extern void tsr_go_drop_cause(uintptr_t cause);

/* The Go error (a runtime/cgo handle) behind the failure a custom function's
 * callback just reported on this thread, or 0: the wrapper whose call ran
 * the callback takes it into its Failure. Per thread because the callback
 * runs on the thread of that wrapper's cgo call. */
static __thread uintptr_t tsr_go_cause = 0;

/* A newer callback failure replaces an older one: its message is the one
 * the library reports. */
static void tsr_go_keep_cause(uintptr_t cause) {
  if (tsr_go_cause) tsr_go_drop_cause(tsr_go_cause);
  tsr_go_cause = cause;
}

static uintptr_t tsr_go_take_cause(void) {
  uintptr_t cause = tsr_go_cause;
  tsr_go_cause = 0;
  return cause;
}

/* A non-NULL address for an empty Go slice: the library reads no element but
 * may refuse a NULL array. */
static const int64_t tsr_go_no_int64s[1] = {0};
static const double tsr_go_no_doubles[1] = {0};
static const char tsr_go_no_bytes[1] = {0};
%}

/* The bracket of tessera.i's header comment. tsr_go_fail does not return. A
 * cause left by a callback whose failure the library did not pass on (none
 * does today) is dropped, so no handle outlives its call. */
%exception {
  tsr_bind_clear();
  $action
  {
    const char* tsr_message;
    tsr_status tsr_code = tsr_bind_error(&tsr_message);
    uintptr_t tsr_cause = tsr_go_take_cause();
    if (tsr_code != TSR_OK) tsr_go_fail((int)tsr_code, (char*)tsr_message, tsr_cause);
    if (tsr_cause) tsr_go_drop_cause(tsr_cause);
  }
}
/* Releasing never fails, and a finalizer must never panic. */
%noexception TsrTensor::~TsrTensor;
%noexception TsrStorage::~TsrStorage;
%noexception TsrGenerator::~TsrGenerator;
%noexception TsrTensorMap::~TsrTensorMap;
%noexception TsrTensorList::~TsrTensorList;
%noexception TsrSaver::~TsrSaver;
%noexception TsrFile::~TsrFile;

/* select is a Go keyword (SWIG would say Xselect). */
%rename(Select) TsrTensor::select;

/* ---- handles as uintptr ---------------------------------------------------- */
%typemap(gotype) TsrTensor*, TsrStorage*, TsrGenerator*, TsrTensorMap*, TsrTensorList*, TsrSaver*, TsrFile* "uintptr"

/* ---- progress callbacks (tessera.i, "Progress callbacks") -------------------
 * A Go func cannot cross into C; package tessera registers it in a handle
 * table here (RegisterProgress) and passes the id, which becomes user_data.
 * The C trampoline calls the exported tsr_go_progress with it, on the calling
 * goroutine's thread. The registered func never panics (package tessera
 * recovers a panic of the user's func, keeps it and returns false): a panic
 * must not unwind through the library's C++ frames. The id is unregistered
 * by package tessera after the call, or when its Saver is closed, so
 * keep/drop have nothing to do. */
%{
extern int tsr_go_progress(uintptr_t id, uint64_t done, uint64_t total);
static tsr_status tsr_go_progress_trampoline(uint64_t done, uint64_t total, void* user_data) {
  return (tsr_status)tsr_go_progress((uintptr_t)user_data, done, total);
}
static void* tsr_bind_progress_keep(void* user_data) { return user_data; }
static void tsr_bind_progress_drop(void* kept) { (void)kept; }
%}
%typemap(gotype) (tsr_progress_fn progress, void* progress_user_data) "uintptr"
%typemap(in) (tsr_progress_fn progress, void* progress_user_data) %{
  $1 = $input ? tsr_go_progress_trampoline : NULL;
  $2 = (void*)(uintptr_t)$input;
%}

/* ---- arrays in: Go slices, read in place for the call ----------------------- */
%typemap(gotype) (const tsr_i64* array, int64_t length) "[]int64"
%typemap(in) (const tsr_i64* array, int64_t length) %{
  $1 = ($1_ltype)($input.len ? $input.array : (void*)tsr_go_no_int64s);
  $2 = (int64_t)$input.len;
%}

%typemap(gotype) (const double* darray, int64_t dlength) "[]float64"
%typemap(in) (const double* darray, int64_t dlength) %{
  $1 = ($1_ltype)($input.len ? $input.array : (void*)tsr_go_no_doubles);
  $2 = (int64_t)$input.len;
%}

%typemap(gotype) (const void* bytes, size_t nbytes) "[]byte"
%typemap(in) (const void* bytes, size_t nbytes) %{
  $1 = ($1_ltype)($input.len ? $input.array : (void*)tsr_go_no_bytes);
  $2 = (size_t)$input.len;
%}

/* ---- strings in: NUL-terminated by the Go side, read in place ---------------
 * SWIG's default mallocs a C copy and frees it after the call, which a
 * failure's panic would skip (a leak per failed save/load). The hand-written
 * package refuses strings with an embedded NUL before they get here. */
%typemap(gotype) const char* "string"
%typemap(goin) const char* %{
  $result = $input + "\x00"
%}
%typemap(in) const char* %{
  $1 = ($1_ltype)$input.p;
%}
%typemap(freearg) const char* ""

/* ---- strings out: every const char* returned is borrowed (static, or valid
 * while its handle lives), so Go copies it without a free. NULL arrives as
 * length -1 and becomes "". */
%typemap(out) const char* %{
  $result.p = (char*)$1;
  $result.n = $1 ? (intgo)strlen($1) : -1;
%}
%typemap(goout) const char* %{
  $result = tsrCopyString($1)
%}

/* A char* returned (%newobject: to_string, the profiler's table) is malloc'ed
 * and ours to free. SWIG's own goout for it calls swigCopyString, which
 * converts a uintptr to unsafe.Pointer (`go vet`: "possible misuse of
 * unsafe.Pointer"); tsrTakeString does the same copy and free with the
 * pointer kept as an unsafe.Pointer. SWIG's out typemap (Swig_AllocateString)
 * stays. */
%typemap(goout) char* %{
  $result = tsrTakeString($1)
%}

/* ---- arrays out ---------------------------------------------------------------
 * The C side hands back {data, length, owned} in a _goslice_ (array, len, and
 * cap carrying the ownership flag); the Go side copies into a Go slice and
 * frees the C buffer when it was owned. Borrowed arrays (sizes, strides) cost
 * no allocation and no second cgo call. */
%typemap(gotype) tsr_i64_array "[]int64"
%typemap(out) tsr_i64_array %{
  $result.array = (void*)$1.data;
  $result.len = (intgo)$1.length;
  $result.cap = (intgo)$1.owned;
%}
%typemap(goout) tsr_i64_array %{
  $result = tsrTakeInt64s($1)
%}

%typemap(gotype) tsr_f64_array "[]float64"
%typemap(out) tsr_f64_array %{
  $result.array = (void*)$1.data;
  $result.len = (intgo)$1.length;
  $result.cap = 1;
%}
%typemap(goout) tsr_f64_array %{
  $result = tsrTakeFloat64s($1)
%}

%typemap(gotype) tsr_bytes "[]byte"
%typemap(out) tsr_bytes %{
  $result.array = (void*)$1.data;
  $result.len = (intgo)$1.length;
  $result.cap = 1;
%}
%typemap(goout) tsr_bytes %{
  $result = tsrTakeBytes($1)
%}

/* ---- Go side of the above ------------------------------------------------------ */
%insert(cgo_comment_typedefs) %{
#cgo pkg-config: tessera
%}

%go_import("sync")
%insert(go_wrapper) %{

// Failure is the value a wrapper panics with when its call failed: the
// status (a tsr_status) and the message, copied while still inside the
// failing cgo call, and the Go error a custom function's callback failed
// with (nil otherwise). Package tessera recovers it into a *tessera.Error.
// A callback (go_function.i) returns one to report its own failure.
type Failure struct {
	Status  int
	Message string
	Cause   error
}

//export tsr_go_fail
func tsr_go_fail(status C.int, message *C.char, cause C.uintptr_t) {
	panic(&Failure{Status: int(status), Message: C.GoString(message), Cause: takeCause(uintptr(cause))})
}

// The progress handle table (see go.i, "progress callbacks").
var (
	progressMu    sync.Mutex
	progressFuncs = map[uintptr]func(done, total uint64) bool{}
	progressNext  uintptr
)

// RegisterProgress makes f callable from C under the returned id (never 0).
// f must not panic.
func RegisterProgress(f func(done, total uint64) bool) uintptr {
	progressMu.Lock()
	defer progressMu.Unlock()
	progressNext++
	progressFuncs[progressNext] = f
	return progressNext
}

// UnregisterProgress forgets id; 0 and unknown ids are ignored.
func UnregisterProgress(id uintptr) {
	progressMu.Lock()
	defer progressMu.Unlock()
	delete(progressFuncs, id)
}

// ProgressRegistered counts the registered ids (tests check none leak).
func ProgressRegistered() int {
	progressMu.Lock()
	defer progressMu.Unlock()
	return len(progressFuncs)
}

//export tsr_go_progress
func tsr_go_progress(id C.uintptr_t, done, total C.uint64_t) C.int {
	progressMu.Lock()
	f := progressFuncs[uintptr(id)]
	progressMu.Unlock()
	if f == nil || !f(uint64(done), uint64(total)) {
		return 13 // TSR_ERR_CANCELLED
	}
	return 0
}

// tsrCArray is the layout of a _goslice_ as the out typemaps fill it: a C
// array, its length, and in place of the capacity whether Go must free it.
type tsrCArray struct {
	data   unsafe.Pointer
	length int
	owned  int
}

// tsrTake copies the C array an out typemap filled into a new Go slice and
// frees the C array when it was owned.
func tsrTake[T any](p unsafe.Pointer) []T {
	a := (*tsrCArray)(p)
	out := make([]T, a.length)
	if a.length > 0 {
		copy(out, unsafe.Slice((*T)(a.data), a.length))
	}
	if a.owned != 0 {
		Swig_free(uintptr(a.data))
	}
	return out
}

func tsrTakeInt64s(s []int64) []int64       { return tsrTake[int64](unsafe.Pointer(&s)) }
func tsrTakeFloat64s(s []float64) []float64 { return tsrTake[float64](unsafe.Pointer(&s)) }
func tsrTakeBytes(s []byte) []byte          { return tsrTake[byte](unsafe.Pointer(&s)) }

// tsrCopyString copies a borrowed C string ("" for NULL, sent as length -1).
func tsrCopyString(s string) string {
	h := (*struct {
		data unsafe.Pointer
		n    int
	})(unsafe.Pointer(&s))
	if h.n <= 0 {
		return ""
	}
	return string(unsafe.Slice((*byte)(h.data), h.n))
}

// tsrTakeString copies a C string SWIG allocated for a char* result into Go
// memory and frees it.
func tsrTakeString(s string) string {
	h := (*struct {
		data unsafe.Pointer
		n    int
	})(unsafe.Pointer(&s))
	out := ""
	if h.n > 0 {
		out = string(unsafe.Slice((*byte)(h.data), h.n))
	}
	Swig_free(uintptr(h.data))
	return out
}
%}

/* bindings/csharp/csharp.i — C# specifics of bindings/tessera.i: the error
 * bracket, the array typemaps and the .NET names. Included by tessera.i
 * before the declarations.
 *
 * Generated with `swig -c++ -csharp -namespace Tessera -module TesseraNative
 * -dllimport tessera_csharp` (CMakeLists.txt). -c++ because only in C++ mode
 * does SWIG turn tessera.i's default arguments into C# overloads
 * (Tensor.Zeros(sizes), Tensor.Zeros(sizes, dtype), ...); the glue is compiled
 * as C++ and still calls only the C API. The module class (snake_case module
 * functions) is internal; the public entry point is the hand-written static
 * class Tessera (src/Tessera.cs), and the proxies (Tensor, Storage, ...) are
 * partial classes that src/*.cs complete with properties, operators and
 * collection interfaces. */

/* The module functions are plain C functions, which have no C++ default
 * arguments to fall back on: wrap each once with every argument (the Tessera
 * facade supplies the defaults). */
%feature("compactdefaultargs") bind_save;
%feature("compactdefaultargs") bind_memory_stats;
%feature("compactdefaultargs") bind_memory_allocated;
%feature("compactdefaultargs") bind_max_memory_allocated;
%feature("compactdefaultargs") bind_memory_reserved;
%feature("compactdefaultargs") bind_max_memory_reserved;
%feature("compactdefaultargs") bind_reset_peak_memory_stats;
%feature("compactdefaultargs") bind_reset_accumulated_memory_stats;
%feature("compactdefaultargs") bind_empty_cache;
%feature("compactdefaultargs") bind_set_memory_limit;
%feature("compactdefaultargs") bind_memory_limit;

/* ---- errors ---------------------------------------------------------------- */
/* A failed call hands its status and message to a delegate registered from C#
 * (TesseraErrorHelper below), which sets a pending TesseraException; the proxy
 * method throws it as soon as the native call returns (SWIG's $excode). The
 * message is copied into the exception inside the failing call. */
%{
typedef void (SWIGSTDCALL* tsr_cs_error_callback)(int status, const char* message);
static tsr_cs_error_callback tsr_cs_error = NULL;

#ifdef __cplusplus
extern "C"
#endif
SWIGEXPORT void SWIGSTDCALL TesseraCSharp_RegisterErrorCallback(tsr_cs_error_callback callback) {
  tsr_cs_error = callback;
}

/* Frees the owned arrays the out-typemaps below hand to C#. */
#ifdef __cplusplus
extern "C"
#endif
SWIGEXPORT void SWIGSTDCALL TesseraCSharp_Free(void* data) { free(data); }

static void tsr_cs_raise(tsr_status status, const char* message) {
  if (tsr_cs_error) tsr_cs_error((int)status, message);
}
%}

%exception {
  tsr_bind_clear();
  $action
  {
    const char* tsr_message;
    tsr_status tsr_code = tsr_bind_error(&tsr_message);
    if (tsr_code != TSR_OK) {
      tsr_cs_raise(tsr_code, tsr_message);
      return $null;
    }
  }
}

%pragma(csharp) imclasscode=%{
  /* Registers the callback through which a failed call reports its status and
   * message; it leaves a TesseraException pending for the proxy to throw. */
  internal class TesseraErrorHelper {
    public delegate void ErrorDelegate(int status,
        [global::System.Runtime.InteropServices.MarshalAs(global::System.Runtime.InteropServices.UnmanagedType.LPStr)] string message);
    static ErrorDelegate errorDelegate = new ErrorDelegate(SetPendingError);

    [global::System.Runtime.InteropServices.DllImport("$dllimport", EntryPoint="TesseraCSharp_RegisterErrorCallback")]
    static extern void Register(ErrorDelegate callback);

    /* A custom function's callback that threw kept its exception
     * (CallbackErrors): the call that entered the library throws it. */
    static void SetPendingError(int status, string message) {
      SWIGPendingException.Set(CallbackErrors.Take(message) ?? new TesseraException((Status)status, message));
    }

    static TesseraErrorHelper() { Register(errorDelegate); }
  }
  internal static readonly TesseraErrorHelper tesseraErrorHelper = new TesseraErrorHelper();

  [global::System.Runtime.InteropServices.DllImport("$dllimport", EntryPoint="TesseraCSharp_Free")]
  internal static extern void Free(global::System.IntPtr data);
%}
%pragma(csharp) moduleclassmodifiers="internal class"
/* NativeResolver (src/NativeResolver.cs) before the first native call: the
 * module class and every proxy (TSR_CS_HANDLE) call it first. */
%pragma(csharp) modulecode=%{
  static TesseraNative() { NativeResolver.Ensure(); }
%}

/* ---- arrays in ------------------------------------------------------------- */
/* One C# array becomes two native arguments, the pinned array (blittable: no
 * copy) and its length; -1 marks a null array, refused with
 * TSR_ERR_INVALID_ARGUMENT before the call. */
%define TSR_CS_ARRAY_IN(CTYPE_LIST, ELEMENT_CTYPE, CSTYPE)
%typemap(ctype) CTYPE_LIST "const ELEMENT_CTYPE* jarg$argnum_data, int64_t"
%typemap(imtype) CTYPE_LIST "CSTYPE[] jarg$argnum_data, long"
%typemap(cstype) CTYPE_LIST "CSTYPE[]"
%typemap(csin) CTYPE_LIST "$csinput, $csinput == null ? -1L : $csinput.LongLength"
%typemap(in, canthrow=1) CTYPE_LIST %{
  if ($input < 0) {
    tsr_cs_raise(TSR_ERR_INVALID_ARGUMENT, "an array argument is null");
    return $null;
  }
  $1 = ($1_ltype)$input_data;
  $2 = ($2_ltype)$input;
%}
%enddef
TSR_CS_ARRAY_IN((const tsr_i64* array, int64_t length), int64_t, long)
TSR_CS_ARRAY_IN((const double* darray, int64_t dlength), double, double)
TSR_CS_ARRAY_IN((const void* bytes, size_t nbytes), unsigned char, byte)

/* ---- strings in ------------------------------------------------------------ */
/* The marshaller would cut a string at an embedded NUL (a path "a\0b" would
 * open "a"): refuse it before the call, as the library's invalid argument. */
%typemap(csin, pre="    if ($csinput != null && $csinput.IndexOf('\\0') >= 0)\n"
                   "      throw new TesseraException(Status.InvalidArgument, \"string argument contains a NUL character\");")
    const char* "$csinput"

/* ---- arrays out ------------------------------------------------------------ */
/* The {data, length} struct crosses by value as a blittable C# struct
 * (NativeArrays.cs), which copies it into a managed array and frees owned
 * data. On failure $excode throws first: failed calls own nothing. */
%ignore tsr_i64_array;
%ignore tsr_f64_array;
%ignore tsr_bytes;
%{
static const tsr_i64_array tsr_cs_no_i64_array = {NULL, 0, 0};
static const tsr_f64_array tsr_cs_no_f64_array = {NULL, 0};
static const tsr_bytes tsr_cs_no_bytes = {NULL, 0};
%}
%define TSR_CS_ARRAY_OUT(CTYPE, NONE, IMTYPE, CSTYPE)
%typemap(ctype) CTYPE "CTYPE"
%typemap(imtype) CTYPE "IMTYPE"
%typemap(cstype) CTYPE "CSTYPE"
%typemap(out, null="NONE") CTYPE %{ $result = $1; %}
%typemap(csout, excode=SWIGEXCODE) CTYPE {
    IMTYPE native = $imcall;$excode
    return native.ToArray();
  }
%enddef
TSR_CS_ARRAY_OUT(tsr_i64_array, tsr_cs_no_i64_array, NativeInt64Array, long[])
TSR_CS_ARRAY_OUT(tsr_f64_array, tsr_cs_no_f64_array, NativeDoubleArray, double[])
TSR_CS_ARRAY_OUT(tsr_bytes, tsr_cs_no_bytes, NativeByteArray, byte[])

/* ---- names ------------------------------------------------------------------ */
/* .NET names: PascalCase methods and properties, PascalCase enum members. */
%rename("%(camelcase)s", %$isfunction) "";
%rename("%(camelcase)s", %$ismember, %$isvariable) "";

%rename(Ok) TSR_OK;
%rename(InvalidArgument) TSR_ERR_INVALID_ARGUMENT;
%rename(ShapeMismatch) TSR_ERR_SHAPE_MISMATCH;
%rename(DtypeMismatch) TSR_ERR_DTYPE_MISMATCH;
%rename(DeviceMismatch) TSR_ERR_DEVICE_MISMATCH;
%rename(OutOfMemory) TSR_ERR_OUT_OF_MEMORY;
%rename(NotViewable) TSR_ERR_NOT_VIEWABLE;
%rename(Autograd) TSR_ERR_AUTOGRAD;
%rename(IO) TSR_ERR_IO;
%rename(CorruptFile) TSR_ERR_CORRUPT_FILE;
%rename(Unsupported) TSR_ERR_UNSUPPORTED;
%rename(Internal) TSR_ERR_INTERNAL;
%rename(IndexOutOfRange) TSR_ERR_INDEX_OUT_OF_RANGE;
%rename(Cancelled) TSR_ERR_CANCELLED;
%rename(Distributed) TSR_ERR_DISTRIBUTED;

%rename(UInt8) TSR_UINT8;
%rename(Int8) TSR_INT8;
%rename(Int16) TSR_INT16;
%rename(Int32) TSR_INT32;
%rename(Int64) TSR_INT64;
%rename(Float16) TSR_FLOAT16;
%rename(Float32) TSR_FLOAT32;
%rename(Float64) TSR_FLOAT64;
%rename(Bool) TSR_BOOL;
%rename(BFloat16) TSR_BFLOAT16;
%rename(Float8E5M2) TSR_FLOAT8_E5M2;
%rename(Float8E4M3FN) TSR_FLOAT8_E4M3FN;
%rename(UInt16) TSR_UINT16;
%rename(UInt32) TSR_UINT32;
%rename(UInt64) TSR_UINT64;

%rename(Cpu) TSR_DEVICE_CPU;
%rename(Cuda) TSR_DEVICE_CUDA;

%rename(Contiguous) TSR_CONTIGUOUS_FORMAT;
%rename(Preserve) TSR_PRESERVE_FORMAT;
%rename(ChannelsLast) TSR_CHANNELS_LAST;
%rename(ChannelsLast3d) TSR_CHANNELS_LAST_3D;

%rename(None) TSR_COMPRESSION_NONE;
%rename(Zstd) TSR_COMPRESSION_ZSTD;
%rename(ZstdPlanes) TSR_COMPRESSION_ZSTD_PLANES;

/* GeluApproximate.None would clash with Compression.None in SWIG's one
 * global scope of C enum items (C enums are not scoped), so the C# enum is
 * written by hand (src/Tessera.cs); SWIG still passes the type as an int
 * enum, under that name. */
%feature("ignore") tsr_gelu_approximate; /* not %ignore: tessera.i renames it later */
%typemap(cstype) tsr_gelu_approximate "GeluApproximate"

/* torch's trailing underscore (in-place) becomes an InPlace suffix; copy_
 * reads best as CopyFrom. */
%rename(AddInPlace) TsrTensor::add_;
%rename(MulScalarInPlace) TsrTensor::mul_scalar_;
%rename(FillInPlace) TsrTensor::fill_;
%rename(ZeroInPlace) TsrTensor::zero_;
%rename(CopyFrom) TsrTensor::copy_;
%rename(ReluInPlace) TsrTensor::relu_;
/* Pow(double) and Pow(Tensor), as torch.Tensor.pow takes either. */
%rename(Pow) TsrTensor::pow_scalar;
/* Clamp(double? min, double? max) in src/Tensor.cs, over the flag-and-value
 * native form. */
%rename(NativeClamp) TsrTensor::clamp;
%csmethodmodifiers TsrTensor::clamp "internal";
/* ToString() in src/Tensor.cs wraps it (disposed tensors, exceptions). */
%rename(NativeToString) TsrTensor::to_string;
%csmethodmodifiers TsrTensor::to_string "internal";

/* Queries that are properties in C# (src/Tensor.cs, ...): the generated
 * methods stay internal under a Native prefix. */
%define TSR_CS_PROPERTY(METHOD, NATIVE_NAME)
%rename(NATIVE_NAME) METHOD;
%csmethodmodifiers METHOD "internal";
%enddef
TSR_CS_PROPERTY(TsrTensor::ndim, NativeNdim)
TSR_CS_PROPERTY(TsrTensor::sizes, NativeSizes)
TSR_CS_PROPERTY(TsrTensor::strides, NativeStrides)
TSR_CS_PROPERTY(TsrTensor::storage_offset, NativeStorageOffset)
TSR_CS_PROPERTY(TsrTensor::numel, NativeNumel)
TSR_CS_PROPERTY(TsrTensor::element_size, NativeElementSize)
TSR_CS_PROPERTY(TsrTensor::nbytes, NativeNbytes)
TSR_CS_PROPERTY(TsrTensor::dtype, NativeDtype)
TSR_CS_PROPERTY(TsrTensor::device_type, NativeDeviceType)
TSR_CS_PROPERTY(TsrTensor::device_index, NativeDeviceIndex)
TSR_CS_PROPERTY(TsrTensor::data_ptr, NativeDataPtr)
TSR_CS_PROPERTY(TsrTensor::requires_grad, NativeRequiresGrad)
TSR_CS_PROPERTY(TsrTensor::set_requires_grad, NativeSetRequiresGrad)
TSR_CS_PROPERTY(TsrTensor::is_leaf, NativeIsLeaf)
TSR_CS_PROPERTY(TsrTensor::grad_fn_name, NativeGradFnName)
TSR_CS_PROPERTY(TsrTensor::version, NativeVersion)
TSR_CS_PROPERTY(TsrTensor::is_inference, NativeIsInference)
TSR_CS_PROPERTY(TsrStorage::nbytes, NativeNbytes)
TSR_CS_PROPERTY(TsrStorage::data_ptr, NativeDataPtr)
TSR_CS_PROPERTY(TsrStorage::device_type, NativeDeviceType)
TSR_CS_PROPERTY(TsrStorage::use_count, NativeUseCount)
TSR_CS_PROPERTY(TsrTensorList::size, NativeCount)
TSR_CS_PROPERTY(TsrTensorList::get, NativeGet)
TSR_CS_PROPERTY(TsrTensorList::name, NativeName)
TSR_CS_PROPERTY(TsrTensorMap::size, NativeCount)
TSR_CS_PROPERTY(TsrTensorMap::name, NativeName)
TSR_CS_PROPERTY(TsrTensorMap::find, NativeFind)
TSR_CS_PROPERTY(TsrTensorMap::get, NativeGet)
TSR_CS_PROPERTY(TsrTensorMap::get_by_name, NativeGetByName)
TSR_CS_PROPERTY(TsrTensorMap::metadata_size, NativeMetadataCount)
TSR_CS_PROPERTY(TsrTensorMap::metadata_key, NativeMetadataKey)
TSR_CS_PROPERTY(TsrTensorMap::metadata_value, NativeMetadataValue)
TSR_CS_PROPERTY(TsrTensorMap::metadata_get, NativeMetadataGet)
/* Generator.GetState() returns a GeneratorState (src/Generator.cs). */
TSR_CS_PROPERTY(TsrGenerator::get_state, NativeGetState)
/* Loading goes through Tessera.Load. */
%csmethodmodifiers TsrTensorMap::load "internal";
%csmethodmodifiers TsrTensorMap::load_with "internal";
/* Saver and TensorFile are completed in src/Saver.cs and src/TensorFile.cs. */
TSR_CS_PROPERTY(TsrSaver::open, NativeOpen)
TSR_CS_PROPERTY(TsrSaver::add, NativeAdd)
TSR_CS_PROPERTY(TsrSaver::commit, NativeCommit)
TSR_CS_PROPERTY(TsrFile::open, NativeOpen)
TSR_CS_PROPERTY(TsrFile::size, NativeCount)
TSR_CS_PROPERTY(TsrFile::name, NativeName)
TSR_CS_PROPERTY(TsrFile::find, NativeFind)
TSR_CS_PROPERTY(TsrFile::dtype, NativeDtype)
TSR_CS_PROPERTY(TsrFile::shape, NativeShape)
TSR_CS_PROPERTY(TsrFile::get, NativeGet)
TSR_CS_PROPERTY(TsrFile::get_by_name, NativeGetByName)
TSR_CS_PROPERTY(TsrFile::get_slice, NativeGetSlice)
TSR_CS_PROPERTY(TsrFile::metadata_size, NativeMetadataCount)
TSR_CS_PROPERTY(TsrFile::metadata_key, NativeMetadataKey)
TSR_CS_PROPERTY(TsrFile::metadata_value, NativeMetadataValue)
TSR_CS_PROPERTY(TsrFile::metadata_get, NativeMetadataGet)

/* ---- progress callbacks (tessera.i, "Progress callbacks") ------------------ */
/* A C# delegate (src/Progress.cs) crosses as the function pointer itself and
 * user_data stays NULL: the delegate carries its own state. The proxy that
 * passes it (a Progress object, held by a Saver for the saver's life) keeps
 * it from being collected while native code may call it, so keep/drop have
 * nothing to do. */
%{
static void* tsr_bind_progress_keep(void* user_data) { return user_data; }
static void tsr_bind_progress_drop(void* kept) { (void)kept; }
%}
%typemap(ctype) (tsr_progress_fn progress, void* progress_user_data) "tsr_progress_fn"
%typemap(imtype) (tsr_progress_fn progress, void* progress_user_data) "ProgressNative"
%typemap(cstype) (tsr_progress_fn progress, void* progress_user_data) "Progress"
%typemap(csin) (tsr_progress_fn progress, void* progress_user_data) "$csinput == null ? null : $csinput.Native"
%typemap(in) (tsr_progress_fn progress, void* progress_user_data) %{
  $1 = $input;
  $2 = NULL;
%}

/* The proxies are completed by hand-written partial classes. */
%typemap(csclassmodifiers) TsrTensor, TsrStorage, TsrGenerator, TsrTensorMap, TsrTensorList, TsrSaver, TsrFile,
                           tsr_memory_stats_t, tsr_memory_stat_t "public partial class"

/* Statistics come only from Tessera.MemoryStats(), read-only. */
%nodefaultctor tsr_memory_stats_t;
%nodefaultctor tsr_memory_stat_t;
%immutable tsr_memory_stat_t::current;
%immutable tsr_memory_stat_t::peak;
%immutable tsr_memory_stat_t::allocated;
%immutable tsr_memory_stat_t::freed;
%immutable tsr_memory_stats_t::allocation;
%immutable tsr_memory_stats_t::segment;
%immutable tsr_memory_stats_t::active;
%immutable tsr_memory_stats_t::inactive_split;
%immutable tsr_memory_stats_t::allocated_bytes;
%immutable tsr_memory_stats_t::reserved_bytes;
%immutable tsr_memory_stats_t::active_bytes;
%immutable tsr_memory_stats_t::inactive_split_bytes;
%immutable tsr_memory_stats_t::requested_bytes;
%immutable tsr_memory_stats_t::num_alloc_retries;
%immutable tsr_memory_stats_t::num_ooms;
%immutable tsr_memory_stats_t::num_device_alloc;
%immutable tsr_memory_stats_t::num_device_free;

/* A MemoryStat read from MemoryStats is a copy of its own, so it outlives
 * the snapshot it came from, disposed or collected. */
%typemap(out) tsr_memory_stat_t * %{ $result = $1 ? new tsr_memory_stat_t(*$1) : 0; %}
%typemap(csvarout, excode=SWIGEXCODE2) tsr_memory_stat_t * %{
    get {
      global::System.IntPtr cPtr = $imcall;$excode
      return (cPtr == global::System.IntPtr.Zero) ? null : new $csclassname(cPtr, true);
    } %}

/* A disposed snapshot is NULL: the library's error, not a NULL dereference. */
%typemap(check, canthrow=1) tsr_memory_stats_t *self, tsr_memory_stat_t *self %{
  if (!$1) {
    tsr_cs_raise(TSR_ERR_INVALID_ARGUMENT, "the memory statistics were disposed");
    return $null;
  }
%}

/* ---- handles: a SafeHandle subclass per proxy ---------------------------------- */
/* Each proxy owns its native reference through a nested SafeHandle subclass
 * (Tensor.NativeHandle, Storage.NativeHandle, ...), whose ReleaseHandle calls
 * the native release: released exactly once, by Dispose() or by the
 * SafeHandle's critical finalizer, so the proxies have no finalizer of their
 * own. SWIG's P/Invoke signatures keep taking a HandleRef (this, pointer),
 * which keeps the proxy, and with it the SafeHandle, alive during each call.
 * Tensor proxies also report each reference they take and release to
 * TensorBackpressure (src/TensorBackpressure.cs), which makes a thread that
 * outruns the finalizer wait for it. */
%define TSR_CS_HANDLE(TYPE, CSNAME, ON_CREATE, ON_RELEASE)
%typemap(csdispose) TYPE %{
  public void Dispose() {
    Dispose(true);
  }
%}
%typemap(csbody) TYPE %{
  internal sealed class NativeHandle : global::System.Runtime.InteropServices.SafeHandle {
    internal NativeHandle(global::System.IntPtr cPtr, bool owns) : base(global::System.IntPtr.Zero, owns) {
      SetHandle(cPtr);
    }
    public override bool IsInvalid { get { return handle == global::System.IntPtr.Zero; } }
    protected override bool ReleaseHandle() {
      TesseraNativePINVOKE.delete_##CSNAME(new global::System.Runtime.InteropServices.HandleRef(null, handle));
      ON_RELEASE
      return true;
    }
  }

  static $csclassname() { NativeResolver.Ensure(); }

  private NativeHandle swigHandle;
  private global::System.Runtime.InteropServices.HandleRef swigCPtr;
  protected bool swigCMemOwn;

  internal $csclassname(global::System.IntPtr cPtr, bool cMemoryOwn) {
    swigCMemOwn = cMemoryOwn;
    swigHandle = new NativeHandle(cPtr, cMemoryOwn);
    swigCPtr = new global::System.Runtime.InteropServices.HandleRef(this, cPtr);
    if (cMemoryOwn && cPtr != global::System.IntPtr.Zero) { ON_CREATE }
  }

  internal static global::System.Runtime.InteropServices.HandleRef getCPtr($csclassname obj) {
    return (obj == null) ? new global::System.Runtime.InteropServices.HandleRef(null, global::System.IntPtr.Zero) : obj.swigCPtr;
  }

  /* Hands the native reference over to a new owner without releasing it. */
  internal global::System.IntPtr swigTakeHandle() {
    lock(this) {
      global::System.IntPtr cPtr = swigCPtr.Handle;
      swigHandle.SetHandleAsInvalid();
      swigCMemOwn = false;
      swigCPtr = new global::System.Runtime.InteropServices.HandleRef(null, global::System.IntPtr.Zero);
      return cPtr;
    }
  }
%}
%typemap(csdisposing, methodname="Dispose", methodmodifiers="protected", parameters="bool disposing") TYPE {
    lock(this) {
      if (swigCPtr.Handle != global::System.IntPtr.Zero) {
        swigCMemOwn = false;
        swigHandle.Dispose();
        swigCPtr = new global::System.Runtime.InteropServices.HandleRef(null, global::System.IntPtr.Zero);
      }
    }
  }
%enddef
TSR_CS_HANDLE(TsrTensor, Tensor, TensorBackpressure.Created();, TensorBackpressure.Released();)
TSR_CS_HANDLE(TsrStorage, Storage, , )
TSR_CS_HANDLE(TsrGenerator, Generator, , )
TSR_CS_HANDLE(TsrTensorMap, TensorMap, , )
TSR_CS_HANDLE(TsrTensorList, TensorList, , )
TSR_CS_HANDLE(TsrSaver, Saver, , )
TSR_CS_HANDLE(TsrFile, TensorFile, , )
TSR_CS_HANDLE(TsrOptimizer, Optimizer, , )
TSR_CS_HANDLE(TsrProfilerResult, ProfilerResult, , )
TSR_CS_HANDLE(TsrLrScheduler, LrScheduler, , )
TSR_CS_HANDLE(TsrGradScaler, GradScaler, , )
TSR_CS_HANDLE(tsr_memory_stats_t, MemoryStats, , )
TSR_CS_HANDLE(tsr_memory_stat_t, MemoryStat, , )

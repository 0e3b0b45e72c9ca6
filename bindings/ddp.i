/* bindings/ddp.i — DistributedDataParallel's gradient reducer
 * (torch.nn.parallel.DistributedDataParallel) over include/tessera/
 * distributed.h's tsr_ddp_* functions. Included after distributed.i (it
 * takes a ProcessGroup). Each language's layer makes it idiomatic:
 * Python tessera/nn/_parallel.py (the module wrapper), Java
 * DistributedDataParallel (AutoCloseable, noSync() scope; javacode below),
 * C# src/DistributedDataParallel.cs (IDisposable, NoSync() scope), Go
 * ddp.go (Close, NoSync(func)).
 *
 * The handle class (tsr_ddp) keeps its group and parameters alive; its
 * hooks reduce during backward passes (no managed code runs in them).
 * Creation is collective and runs with Python's GIL released (TSR_BLOCKING). */

%{
typedef struct tsr_ddp TsrDdp;
%}

#if defined(SWIGPYTHON)
%rename(Ddp) TsrDdp;
#elif defined(SWIGJAVA)
%noexception TsrDdp::~TsrDdp;
TSR_JAVA_HANDLE(TsrDdp)
%rename(DistributedDataParallel) TsrDdp;
/* The public factory (javacode) takes an Iterable<Tensor> and Options. */
%rename(nativeCreate) TsrDdp::create;
%javamethodmodifiers TsrDdp::create "private";
%rename(nativeSetParamNames) TsrDdp::set_param_names;
%javamethodmodifiers TsrDdp::set_param_names "private";
%rename(nativeBucketIndices) TsrDdp::bucket_indices;
%javamethodmodifiers TsrDdp::bucket_indices "private";
%rename(nativeSetRequireSync) TsrDdp::set_require_sync;
%javamethodmodifiers TsrDdp::set_require_sync "private";
%typemap(javaimports) TsrDdp "import java.util.ArrayList;\nimport java.util.List;"
%typemap(javacode) TsrDdp %{
  /**
   * DistributedDataParallel's arguments: bucketCapMb 25 (torch's default), findUnusedParameters
   * false, gradientAsBucketView false, commHook DDP_ALLREDUCE (no hook).
   */
  public static final class Options {
    double bucketCapMb = 25;
    boolean findUnusedParameters = false;
    boolean gradientAsBucketView = false;
    DdpCommHook commHook = DdpCommHook.DDP_ALLREDUCE;

    /** bucket_cap_mb: MiB per bucket (the first bucket holds 1 MiB, as torch's). */
    public Options bucketCapMb(double v) { bucketCapMb = v; return this; }
    /** find_unused_parameters: parameters may get no gradient in an iteration. */
    public Options findUnusedParameters(boolean v) { findUnusedParameters = v; return this; }
    /** gradient_as_bucket_view: each .grad becomes a view into its bucket. */
    public Options gradientAsBucketView(boolean v) { gradientAsBucketView = v; return this; }
    /** register_comm_hook with a built-in hook: DDP_FP16_COMPRESS, DDP_BF16_COMPRESS. */
    public Options commHook(DdpCommHook v) { commHook = v; return this; }
  }

  /**
   * DistributedDataParallel(module, process_group=pg, ...) over params (each a distinct leaf that
   * requires grad, floating, CPU): collective, every rank of pg calls it with its replica of the
   * same parameters, whose values become rank 0's. From then on every backward reaching the
   * parameters leaves each .grad averaged over the group. The reducer keeps its own references
   * to pg and to the parameters (closing the caller's handles is fine); close() removes its
   * hooks. Throws TesseraException: ERR_INVALID_ARGUMENT (bad parameters or options, ranks whose
   * parameters differ), ERR_UNSUPPORTED (a parameter not on the CPU), ERR_DISTRIBUTED (a rank
   * missing or dead).
   */
  public static DistributedDataParallel create(ProcessGroup pg, Iterable<Tensor> params, Options o) {
    if (params == null) throw new NullPointerException("params is null");
    if (o == null) o = new Options();
    if (o.commHook == null) throw new NullPointerException("commHook is null");
    long cap = Math.round(o.bucketCapMb * 1024 * 1024);
    if (!(o.bucketCapMb > 0) || cap <= 0) {
      throw new TesseraException(Status.ERR_INVALID_ARGUMENT,
          "DistributedDataParallel: bucketCapMb must be positive, got " + o.bucketCapMb);
    }
    try (TensorList list = new TensorList()) {
      for (Tensor p : params) list.append(p);
      return nativeCreate(pg, list, cap, o.findUnusedParameters, o.gradientAsBucketView, o.commHook);
    }
  }

  /** DistributedDataParallel(module, process_group=pg) with torch's defaults. */
  public static DistributedDataParallel create(ProcessGroup pg, Iterable<Tensor> params) {
    return create(pg, params, new Options());
  }

  /**
   * The names of the parameters (module.named_parameters()), in the order of create's params:
   * the unused-parameter error names them. None may hold a newline.
   */
  public void setParamNames(List<String> names) {
    for (String n : names) {
      if (n == null || n.indexOf('\n') >= 0) throw new IllegalArgumentException("a parameter name is null or holds a newline");
    }
    nativeSetParamNames(String.join("\n", names));
  }

  /** The buckets in reduction order, each the indices of its parameters. */
  public List<long[]> bucketIndices() {
    long[] flat = nativeBucketIndices();
    int nb = (int) flat[0];
    List<long[]> out = new ArrayList<>(nb);
    int at = 1 + nb;
    for (int b = 0; b < nb; ++b) {
      int n = (int) flat[1 + b];
      out.add(java.util.Arrays.copyOfRange(flat, at, at + n));
      at += n;
    }
    return out;
  }

  private volatile boolean requireSync = true;

  /**
   * require_backward_grad_sync: whether backward passes average the gradients (true, the
   * default) or accumulate them locally; the next backward with true averages what was
   * accumulated.
   */
  public void setRequireSync(boolean requireSync) {
    nativeSetRequireSync(requireSync);
    this.requireSync = requireSync;
  }

  /** require_backward_grad_sync: false inside noSync(). */
  public boolean requireSync() {
    return requireSync;
  }

  /**
   * torch's no_sync() context as a try-with-resources scope: until it is closed, backward passes
   * accumulate gradients locally without communication; closing it restores the previous
   * setting (as torch's, so scopes nest), and the first synchronized backward averages what was
   * accumulated.
   *
   * <pre>try (DistributedDataParallel.NoSync s = ddp.noSync()) { loss.backward(); }</pre>
   */
  public NoSync noSync() {
    boolean old = requireSync;
    setRequireSync(false);
    return new NoSync(this, old);
  }

  /** The scope noSync() returns; close() restores the setting it found (once). */
  public static final class NoSync implements AutoCloseable {
    private DistributedDataParallel ddp;
    private final boolean old;

    private NoSync(DistributedDataParallel ddp, boolean old) {
      this.ddp = ddp;
      this.old = old;
    }

    @Override
    public void close() {
      if (ddp != null) {
        DistributedDataParallel d = ddp;
        ddp = null;
        d.setRequireSync(old);
      }
    }
  }
%}
#elif defined(SWIGCSHARP)
TSR_CS_HANDLE(TsrDdp, DistributedDataParallel, , )
%rename(DistributedDataParallel) TsrDdp;
%typemap(csclassmodifiers) TsrDdp "public partial class"
/* src/DistributedDataParallel.cs writes the public forms over these. */
TSR_CS_PROPERTY(TsrDdp::create, NativeCreate)
TSR_CS_PROPERTY(TsrDdp::set_param_names, NativeSetParamNames)
TSR_CS_PROPERTY(TsrDdp::bucket_indices, NativeBucketIndices)
TSR_CS_PROPERTY(TsrDdp::set_require_sync, NativeSetRequireSync)
TSR_CS_PROPERTY(TsrDdp::register_comm_hook, NativeRegisterCommHook)
TSR_CS_PROPERTY(TsrDdp::num_params, NativeNumParams)
#elif defined(SWIGGO)
/* A uintptr like the other handles (go.i), wrapped by ddp.go in a struct
 * with a finalizer and Close. */
%rename(Ddp) TsrDdp;
%noexception TsrDdp::~TsrDdp;
%typemap(gotype) TsrDdp* "uintptr"
#endif

%nodefaultctor TsrDdp;
typedef struct {} TsrDdp;
%newobject TsrDdp::create;

%extend TsrDdp {
  ~TsrDdp() { tsr_ddp_release($self); }

  /* DistributedDataParallel(module, process_group, bucket_cap_mb,
   * find_unused_parameters, gradient_as_bucket_view) over params (the
   * module's parameters that require grad, deduplicated); collective. */
  static TsrDdp* create(TsrProcessGroup* pg, TsrTensorList* params, int64_t bucket_cap_bytes,
                        bool find_unused_parameters, bool gradient_as_bucket_view, tsr_ddp_comm_hook comm_hook) {
    if (!params) {
      tsr_bind_fail(TSR_ERR_INVALID_ARGUMENT, "DistributedDataParallel: the parameter list is NULL or closed");
      return NULL;
    }
    tsr_ddp_options o = TSR_DDP_OPTIONS_INIT;
    o.bucket_cap_bytes = bucket_cap_bytes;
    o.find_unused_parameters = find_unused_parameters;
    o.gradient_as_bucket_view = gradient_as_bucket_view;
    o.comm_hook = comm_hook;
    tsr_ddp* out = NULL;
    TSR_BLOCKING(tsr_ddp_create(pg, params->size, params->items, &o, &out));
    return out;
  }
  void set_require_sync(bool require_sync) { tsr_ddp_set_require_sync($self, require_sync); }
  void register_comm_hook(tsr_ddp_comm_hook hook) { tsr_ddp_register_comm_hook($self, hook); }
  /* The names, one per line (parameter names hold no newline). */
  void set_param_names(const char* lines) {
    if (!lines) {
      tsr_bind_fail(TSR_ERR_INVALID_ARGUMENT, "set_param_names: names is NULL");
      return;
    }
    size_t n = 1, len = strlen(lines);
    for (size_t i = 0; i < len; ++i) n += lines[i] == '\n';
    char* copy = (char*)malloc(len + 1);
    const char** names = (const char**)malloc(n * sizeof(char*));
    if (!copy || !names) {
      free(copy);
      free(names);
      tsr_bind_fail(TSR_ERR_OUT_OF_MEMORY, "set_param_names: out of memory");
      return;
    }
    memcpy(copy, lines, len + 1);
    size_t k = 0;
    names[k++] = copy;
    for (size_t i = 0; i < len; ++i)
      if (copy[i] == '\n') {
        copy[i] = '\0';
        names[k++] = copy + i + 1;
      }
    tsr_ddp_set_param_names($self, (int64_t)n, names);
    free(names);
    free(copy);
  }
  int64_t num_params() { return tsr_ddp_num_params($self); }
  /* The bucket assignment: [n_buckets, the number of parameters of each
   * bucket..., the parameter indices in bucket order...]. */
  tsr_i64_array bucket_indices() {
    tsr_i64_array a = {NULL, -1, 1};
    const int64_t n = tsr_ddp_num_params($self);
    int64_t nb = 0;
    if (n < 0 || tsr_ddp_bucket_indices($self, 0, NULL, NULL, &nb) != TSR_OK) return a;
    int64_t* out = (int64_t*)malloc(sizeof(int64_t) * (size_t)(1 + nb + n));
    if (!out) {
      tsr_bind_fail(TSR_ERR_OUT_OF_MEMORY, "bucket_indices: out of memory");
      return a;
    }
    out[0] = nb;
    if (tsr_ddp_bucket_indices($self, nb, out + 1, out + 1 + nb, &nb) != TSR_OK) {
      free(out);
      return a;
    }
    a.data = out;
    a.length = 1 + nb + n;
    return a;
  }
}

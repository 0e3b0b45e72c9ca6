/* bindings/java/java_optim.i — Java part of bindings/optim.i: Optimizer and
 * ProfilerResult are AutoCloseable handles released by the Cleaner, like
 * Tensor. Optimizer's public factories (sgd/adam/adamw over an
 * Iterable<Tensor> and an options object) are written below over the
 * private native ones; Init and Profiler (src/org/tessera) wrap the module
 * functions. */
%noexception TsrOptimizer::~TsrOptimizer;
%noexception TsrProfilerResult::~TsrProfilerResult;
TSR_JAVA_HANDLE(TsrOptimizer)
TSR_JAVA_HANDLE(TsrProfilerResult)

%rename(nativeSgd) TsrOptimizer::sgd;
%rename(nativeAdam) TsrOptimizer::adam;
%rename(nativeAdamw) TsrOptimizer::adamw;
%javamethodmodifiers TsrOptimizer::sgd "private";
%javamethodmodifiers TsrOptimizer::adam "private";
%javamethodmodifiers TsrOptimizer::adamw "private";
%rename(nativeState) TsrOptimizer::state;
%javamethodmodifiers TsrOptimizer::state "private";

%typemap(javacode) TsrOptimizer %{
  /** torch.optim.SGD's hyperparameters; lr has no default (torch's {@code required}). */
  public static final class SGDOptions {
    double lr = Double.NaN, momentum = 0, dampening = 0, weightDecay = 0;
    boolean nesterov = false;

    public SGDOptions lr(double v) { lr = v; return this; }
    public SGDOptions momentum(double v) { momentum = v; return this; }
    public SGDOptions dampening(double v) { dampening = v; return this; }
    public SGDOptions weightDecay(double v) { weightDecay = v; return this; }
    public SGDOptions nesterov(boolean v) { nesterov = v; return this; }
  }

  /**
   * torch.optim.Adam / AdamW's hyperparameters: lr 1e-3, betas (0.9, 0.999), eps 1e-8, amsgrad
   * false; weightDecay defaults to 0 for Adam and 1e-2 for AdamW, as in torch.
   */
  public static final class AdamOptions {
    double lr = 1e-3, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weightDecay = Double.NaN;
    boolean amsgrad = false;

    public AdamOptions lr(double v) { lr = v; return this; }
    public AdamOptions betas(double b1, double b2) { beta1 = b1; beta2 = b2; return this; }
    public AdamOptions eps(double v) { eps = v; return this; }
    public AdamOptions weightDecay(double v) { weightDecay = v; return this; }
    public AdamOptions amsgrad(boolean v) { amsgrad = v; return this; }
  }

  private static TensorList paramList(Iterable<Tensor> params) {
    if (params == null) throw new NullPointerException("params is null");
    TensorList list = new TensorList();
    try {
      for (Tensor p : params) list.append(p);
    } catch (RuntimeException e) {
      list.close();
      throw e;
    }
    return list;
  }

  /** torch.optim.SGD(params, ...): the optimizer keeps its own reference to each parameter. */
  public static Optimizer sgd(Iterable<Tensor> params, SGDOptions o) {
    if (o == null) o = new SGDOptions();
    try (TensorList list = paramList(params)) {
      return nativeSgd(list, o.lr, o.momentum, o.dampening, o.weightDecay, o.nesterov);
    }
  }

  /** torch.optim.SGD(params, lr). */
  public static Optimizer sgd(Iterable<Tensor> params, double lr) {
    return sgd(params, new SGDOptions().lr(lr));
  }

  /** torch.optim.Adam(params, ...). */
  public static Optimizer adam(Iterable<Tensor> params, AdamOptions o) {
    if (o == null) o = new AdamOptions();
    try (TensorList list = paramList(params)) {
      return nativeAdam(list, o.lr, o.beta1, o.beta2, o.eps,
          Double.isNaN(o.weightDecay) ? 0.0 : o.weightDecay, o.amsgrad);
    }
  }

  /** torch.optim.AdamW(params, ...): decoupled weight decay, default 1e-2. */
  public static Optimizer adamW(Iterable<Tensor> params, AdamOptions o) {
    if (o == null) o = new AdamOptions();
    try (TensorList list = paramList(params)) {
      return nativeAdamw(list, o.lr, o.beta1, o.beta2, o.eps,
          Double.isNaN(o.weightDecay) ? 1e-2 : o.weightDecay, o.amsgrad);
    }
  }

  /**
   * {@code zero_grad()} with torch 1.13's default, set_to_none=False: zeroes every gradient in place
   * (torch 2.x's default is True, which is {@code zeroGrad(true)}).
   */
  public void zeroGrad() { zeroGrad(false); }

  /**
   * optimizer.state[params[paramIndex]][key] itself (writing it changes the optimizer's state), or
   * null before that parameter's first step. Keys: SGD "momentum_buffer"; Adam/AdamW "step",
   * "exp_avg", "exp_avg_sq", "max_exp_avg_sq".
   */
  public Tensor state(long paramIndex, String key) { return nativeState(paramIndex, key); }
%}

%typemap(javacode) TsrProfilerResult %{
  /** prof.key_averages().table() with torch's defaults (self_cpu_time_total, 100 rows). */
  public String table() { return table(null, 100); }
%}

/* bindings/java/java_optim.i — Java part of bindings/optim.i: Optimizer and
 * ProfilerResult are AutoCloseable handles released by the Cleaner, like
 * Tensor. Optimizer's public factories (sgd/adam/adamw over an
 * Iterable<Tensor> and an options object) are written below over the
 * private native ones; Init and Profiler (src/org/tessera) wrap the module
 * functions. */
%noexception TsrOptimizer::~TsrOptimizer;
%noexception TsrProfilerResult::~TsrProfilerResult;
%noexception TsrLrScheduler::~TsrLrScheduler;
TSR_JAVA_HANDLE(TsrOptimizer)
TSR_JAVA_HANDLE(TsrProfilerResult)
TSR_JAVA_HANDLE(TsrLrScheduler)
%noexception TsrGradScaler::~TsrGradScaler;
TSR_JAVA_HANDLE(TsrGradScaler)

/* Parameter groups and state_dict: private natives under the Java forms
 * below (options as a Map, the state_dict as a TensorMap). */
%rename(nativeAddParamGroup) TsrOptimizer::add_param_group;
%javamethodmodifiers TsrOptimizer::add_param_group "private";
%rename(nativeLoadStateDict) TsrOptimizer::load_state_dict;
%javamethodmodifiers TsrOptimizer::load_state_dict "private";

/* LrScheduler: the factories are private natives under public ones with
 * torch's defaults (LrScheduler.stepLR(opt, 30, 0.1), ...). */
%rename(nativeStepLr) TsrLrScheduler::step_lr;
%rename(nativeMultiStepLr) TsrLrScheduler::multi_step_lr;
%rename(nativeExponentialLr) TsrLrScheduler::exponential_lr;
%rename(nativeCosineAnnealingLr) TsrLrScheduler::cosine_annealing_lr;
%rename(nativeLinearLr) TsrLrScheduler::linear_lr;
%rename(nativeOneCycleLr) TsrLrScheduler::one_cycle_lr;
%rename(nativeSequentialLr) TsrLrScheduler::sequential_lr;
%javamethodmodifiers TsrLrScheduler::step_lr "private";
%javamethodmodifiers TsrLrScheduler::multi_step_lr "private";
%javamethodmodifiers TsrLrScheduler::exponential_lr "private";
%javamethodmodifiers TsrLrScheduler::cosine_annealing_lr "private";
%javamethodmodifiers TsrLrScheduler::linear_lr "private";
%javamethodmodifiers TsrLrScheduler::one_cycle_lr "private";
%javamethodmodifiers TsrLrScheduler::sequential_lr "private";

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

  /**
   * optimizer.add_param_group({"params": params, **options}): options by torch's names ("lr",
   * "momentum", "beta1"/"beta2" for betas, "nesterov" 0/1, ...); the others take the optimizer's
   * defaults. Parameters are numbered after the earlier groups'.
   */
  public void addParamGroup(Iterable<Tensor> params, java.util.Map<String, Double> options) {
    String[] keys = options == null ? new String[0] : options.keySet().toArray(new String[0]);
    double[] values = new double[keys.length];
    for (int i = 0; i < keys.length; ++i) {
      if (keys[i].indexOf(',') >= 0) throw new IllegalArgumentException("option name with a comma: " + keys[i]);
      values[i] = options.get(keys[i]);
    }
    try (TensorList list = paramList(params)) {
      nativeAddParamGroup(list, String.join(",", keys), values);
    }
  }

  /**
   * optimizer.load_state_dict from a state_dict() map, or a TensorMap loaded from a file saved
   * with it (the model's tensors there too are skipped).
   */
  public void loadStateDict(TensorMap stateDict) {
    try (TensorList list = new TensorList()) {
      for (long i = 0; i < stateDict.size(); ++i) {
        try (Tensor t = stateDict.get(i)) {
          list.append(t, stateDict.name(i));
        }
      }
      nativeLoadStateDict(list);
    }
  }
%}

%typemap(javacode) TsrLrScheduler %{
  /** StepLR(optimizer, stepSize, gamma). */
  public static LrScheduler stepLR(Optimizer optimizer, long stepSize, double gamma) {
    return nativeStepLr(optimizer, stepSize, gamma, -1);
  }
  /** MultiStepLR(optimizer, milestones, gamma). */
  public static LrScheduler multiStepLR(Optimizer optimizer, long[] milestones, double gamma) {
    return nativeMultiStepLr(optimizer, milestones, gamma, -1);
  }
  /** ExponentialLR(optimizer, gamma). */
  public static LrScheduler exponentialLR(Optimizer optimizer, double gamma) {
    return nativeExponentialLr(optimizer, gamma, -1);
  }
  /** CosineAnnealingLR(optimizer, tMax, etaMin). */
  public static LrScheduler cosineAnnealingLR(Optimizer optimizer, long tMax, double etaMin) {
    return nativeCosineAnnealingLr(optimizer, tMax, etaMin, -1);
  }
  /** LinearLR(optimizer, startFactor, endFactor, totalIters). */
  public static LrScheduler linearLR(Optimizer optimizer, double startFactor, double endFactor, long totalIters) {
    return nativeLinearLr(optimizer, startFactor, endFactor, totalIters, -1);
  }

  /** OneCycleLR's options with torch's defaults; maxLr (one value, or one per group) is required. */
  public static final class OneCycleOptions {
    double[] maxLr;
    long totalSteps = 0, epochs = 0, stepsPerEpoch = 0;
    double pctStart = 0.3, divFactor = 25, finalDivFactor = 1e4;
    boolean linear = false, cycleMomentum = true, threePhase = false;
    double[] baseMomentum = {0.85}, maxMomentum = {0.95};

    public OneCycleOptions maxLr(double... v) { maxLr = v; return this; }
    public OneCycleOptions totalSteps(long v) { totalSteps = v; return this; }
    public OneCycleOptions epochs(long e, long stepsPerEpoch) { epochs = e; this.stepsPerEpoch = stepsPerEpoch; return this; }
    public OneCycleOptions pctStart(double v) { pctStart = v; return this; }
    /** anneal_strategy: "cos" (default) or "linear". */
    public OneCycleOptions annealStrategy(String v) {
      if (!v.equals("cos") && !v.equals("linear"))
        throw new IllegalArgumentException("anneal_strategy must by one of 'cos' or 'linear', instead got " + v);
      linear = v.equals("linear");
      return this;
    }
    public OneCycleOptions cycleMomentum(boolean v) { cycleMomentum = v; return this; }
    public OneCycleOptions baseMomentum(double... v) { baseMomentum = v; return this; }
    public OneCycleOptions maxMomentum(double... v) { maxMomentum = v; return this; }
    public OneCycleOptions divFactor(double v) { divFactor = v; return this; }
    public OneCycleOptions finalDivFactor(double v) { finalDivFactor = v; return this; }
    public OneCycleOptions threePhase(boolean v) { threePhase = v; return this; }
  }

  /** OneCycleLR(optimizer, **o). */
  public static LrScheduler oneCycleLR(Optimizer optimizer, OneCycleOptions o) {
    if (o == null || o.maxLr == null) throw new NullPointerException("OneCycleLR needs maxLr");
    return nativeOneCycleLr(optimizer, o.maxLr, o.totalSteps, o.epochs, o.stepsPerEpoch, o.pctStart, o.linear,
        o.cycleMomentum, o.baseMomentum, o.maxMomentum, o.divFactor, o.finalDivFactor, o.threePhase, -1);
  }

  /** SequentialLR(optimizer, schedulers, milestones): one to four schedulers in the bindings. */
  public static LrScheduler sequentialLR(Optimizer optimizer, java.util.List<LrScheduler> schedulers, long[] milestones) {
    LrScheduler[] s = new LrScheduler[4];
    for (int i = 0; i < schedulers.size() && i < 4; ++i) s[i] = schedulers.get(i);
    return nativeSequentialLr(optimizer, schedulers.size(), s[0], s[1], s[2], s[3], milestones, -1);
  }
%}

%typemap(javacode) TsrProfilerResult %{
  /** prof.key_averages().table() with torch's defaults (self_cpu_time_total, 100 rows). */
  public String table() { return table(null, 100); }
%}

/* GradScaler (bindings/grad_scaler.i): the factory and load_state_dict are
 * private natives under the Java forms below; update(newScale) is
 * update_scale; step_deferred is Python's. */
%rename(nativeCreate) TsrGradScaler::create;
%javamethodmodifiers TsrGradScaler::create "private";
%rename(nativeLoadStateDict) TsrGradScaler::load_state_dict;
%javamethodmodifiers TsrGradScaler::load_state_dict "private";
%rename(unscale_) TsrGradScaler::unscale_;
%rename(update) TsrGradScaler::update_scale;
%ignore TsrGradScaler::step_deferred;

%typemap(javacode) TsrGradScaler %{
  /** torch.cuda.amp.GradScaler's arguments with torch's defaults. */
  public static final class Options {
    double initScale = 65536.0, growthFactor = 2.0, backoffFactor = 0.5;
    long growthInterval = 2000;
    boolean enabled = true;

    public Options initScale(double v) { initScale = v; return this; }
    public Options growthFactor(double v) { growthFactor = v; return this; }
    public Options backoffFactor(double v) { backoffFactor = v; return this; }
    public Options growthInterval(long v) { growthInterval = v; return this; }
    public Options enabled(boolean v) { enabled = v; return this; }
  }

  /** GradScaler() with torch's defaults (init_scale 2^16, growth 2, backoff 0.5, interval 2000). */
  public static GradScaler create() { return create(null); }

  /** GradScaler(**o). */
  public static GradScaler create(Options o) {
    if (o == null) o = new Options();
    return nativeCreate(o.initScale, o.growthFactor, o.backoffFactor, o.growthInterval, o.enabled);
  }

  /** scaler.load_state_dict from stateDict(), or a TensorMap loaded from a file saved with it. */
  public void loadStateDict(TensorMap stateDict) {
    try (TensorList list = new TensorList()) {
      for (long i = 0; i < stateDict.size(); ++i) {
        try (Tensor t = stateDict.get(i)) {
          list.append(t, stateDict.name(i));
        }
      }
      nativeLoadStateDict(list);
    }
  }
%}

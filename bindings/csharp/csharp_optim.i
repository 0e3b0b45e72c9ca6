/* bindings/csharp/csharp_optim.i — C# part of bindings/optim.i. Optimizer and
 * ProfilerResult are SWIG's IDisposable proxies with a finalizer, like the
 * other handles, completed by src/Optim.cs: Tessera.Optim.SGD / Adam / AdamW
 * derive from Optimizer (their constructors take over the native handle the
 * internal factories return), Tessera.Init and Tessera.Profiler wrap the
 * module functions. */
%typemap(csclassmodifiers) TsrOptimizer, TsrProfilerResult, TsrLrScheduler, TsrGradScaler "public partial class"
TSR_CS_PROPERTY(TsrOptimizer::sgd, NativeSgd)
TSR_CS_PROPERTY(TsrOptimizer::adam, NativeAdam)
TSR_CS_PROPERTY(TsrOptimizer::adamw, NativeAdamw)
TSR_CS_PROPERTY(TsrOptimizer::get_lr, NativeGetLr)
TSR_CS_PROPERTY(TsrOptimizer::set_lr, NativeSetLr)
TSR_CS_PROPERTY(TsrOptimizer::num_params, NativeNumParams)
TSR_CS_PROPERTY(TsrOptimizer::state, NativeState)
TSR_CS_PROPERTY(TsrProfilerResult::num_events, NativeNumEvents)
TSR_CS_PROPERTY(TsrOptimizer::zero_grad, NativeZeroGrad)
TSR_CS_PROPERTY(TsrProfilerResult::table, NativeTable)
/* Parameter groups and state_dict, LR schedulers (src/Training.cs). */
TSR_CS_PROPERTY(TsrOptimizer::add_param_group, NativeAddParamGroup)
TSR_CS_PROPERTY(TsrOptimizer::load_state_dict, NativeLoadStateDict)
TSR_CS_PROPERTY(TsrLrScheduler::step_lr, NativeStepLr)
TSR_CS_PROPERTY(TsrLrScheduler::multi_step_lr, NativeMultiStepLr)
TSR_CS_PROPERTY(TsrLrScheduler::exponential_lr, NativeExponentialLr)
TSR_CS_PROPERTY(TsrLrScheduler::cosine_annealing_lr, NativeCosineAnnealingLr)
TSR_CS_PROPERTY(TsrLrScheduler::linear_lr, NativeLinearLr)
TSR_CS_PROPERTY(TsrLrScheduler::one_cycle_lr, NativeOneCycleLr)
TSR_CS_PROPERTY(TsrLrScheduler::sequential_lr, NativeSequentialLr)
TSR_CS_PROPERTY(TsrLrScheduler::last_epoch, NativeLastEpoch)
/* GradScaler (bindings/grad_scaler.i, src/GradScaler.cs). step_deferred is
 * Python's. */
TSR_CS_PROPERTY(TsrGradScaler::create, NativeCreate)
TSR_CS_PROPERTY(TsrGradScaler::scale, NativeScale)
TSR_CS_PROPERTY(TsrGradScaler::unscale_, NativeUnscale)
TSR_CS_PROPERTY(TsrGradScaler::step, NativeStep)
TSR_CS_PROPERTY(TsrGradScaler::update, NativeUpdate)
TSR_CS_PROPERTY(TsrGradScaler::update_scale, NativeUpdateScale)
TSR_CS_PROPERTY(TsrGradScaler::get_scale, NativeGetScale)
TSR_CS_PROPERTY(TsrGradScaler::get_growth_factor, NativeGetGrowthFactor)
TSR_CS_PROPERTY(TsrGradScaler::set_growth_factor, NativeSetGrowthFactor)
TSR_CS_PROPERTY(TsrGradScaler::get_backoff_factor, NativeGetBackoffFactor)
TSR_CS_PROPERTY(TsrGradScaler::set_backoff_factor, NativeSetBackoffFactor)
TSR_CS_PROPERTY(TsrGradScaler::get_growth_interval, NativeGetGrowthInterval)
TSR_CS_PROPERTY(TsrGradScaler::set_growth_interval, NativeSetGrowthInterval)
TSR_CS_PROPERTY(TsrGradScaler::get_growth_tracker, NativeGetGrowthTracker)
TSR_CS_PROPERTY(TsrGradScaler::is_enabled, NativeIsEnabled)
TSR_CS_PROPERTY(TsrGradScaler::state_dict, NativeStateDict)
TSR_CS_PROPERTY(TsrGradScaler::load_state_dict, NativeLoadStateDict)
%ignore TsrGradScaler::step_deferred;

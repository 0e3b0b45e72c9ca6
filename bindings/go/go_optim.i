/* bindings/go/go_optim.i — Go part of bindings/optim.i (and lr_scheduler.i):
 * the handles are uintptrs like the others (go.i), wrapped by optim.go,
 * profiler.go and training.go in structs with a finalizer and Close. */
%noexception TsrOptimizer::~TsrOptimizer;
%noexception TsrProfilerResult::~TsrProfilerResult;
%noexception TsrLrScheduler::~TsrLrScheduler;
%noexception TsrGradScaler::~TsrGradScaler;
%typemap(gotype) TsrOptimizer*, TsrProfilerResult*, TsrLrScheduler*, TsrGradScaler* "uintptr"
/* GradScaler (bindings/grad_scaler.i, wrapped by grad_scaler.go);
 * step_deferred is Python's. */
%ignore TsrGradScaler::step_deferred;

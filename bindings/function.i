/* bindings/function.i — custom differentiable functions (function.h).
 * Each language wraps the callbacks in its own idiom: Python
 * (python/python_function.i: tessera.autograd.Function), Java
 * (java/java_function.i: org.tessera.Function) and C#
 * (csharp/csharp_function.i: Tessera.Function). Included at the end of
 * tessera.i. */
#if defined(SWIGPYTHON)
%include "python/python_function.i"
#elif defined(SWIGJAVA)
%include "java/java_function.i"
#elif defined(SWIGCSHARP)
%include "csharp/csharp_function.i"
#endif

/* bindings/function.i — custom differentiable functions (function.h).
 * Each language wraps the callbacks in its own idiom: Python
 * (python/python_function.i: tessera.autograd.Function), Java
 * (java/java_function.i: org.tessera.Function), C#
 * (csharp/csharp_function.i: Tessera.Function) and Go (go/go_function.i:
 * tessera.Function and tessera.Apply). Included at the end of tessera.i. */
#if defined(SWIGPYTHON)
%include "python/python_function.i"
#elif defined(SWIGJAVA)
%include "java/java_function.i"
#elif defined(SWIGCSHARP)
%include "csharp/csharp_function.i"
#elif defined(SWIGGO)
%include "go/go_function.i"
#endif

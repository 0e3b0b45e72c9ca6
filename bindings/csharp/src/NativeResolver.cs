// NativeResolver — where the native glue libtessera_csharp.so comes from,
// without absolute paths or <dllmap>.
//
// The glue always sits beside Tessera.dll (the build tree, the install's
// lib/cli/tessera, an application's folder that copied both) or, from the
// NuGet package, in runtimes/linux-x64/native; its RUNPATH ($ORIGIN first)
// finds libtessera beside it. So the folder can move.
//  - Mono resolves DllImport("tessera_csharp") in the directory of the
//    assembly that declares it: nothing to do (NativeLibrary does not exist
//    there, and Install() returns false).
//  - .NET Core 3.0+ / .NET 5+ probe the application's deps.json and folder;
//    the resolver registered with NativeLibrary.SetDllImportResolver adds
//    Tessera.dll's own folder and its runtimes/linux-x64/native. Tessera.dll
//    is compiled by mcs against Mono's profile, where that API is missing,
//    so it is reached by reflection; any failure leaves the runtime's default
//    probing in place. Not exercised by the tests: Debian 12 has no .NET
//    packages (README.md).
// Every proxy's static constructor and the module class's call Ensure(), so
// the resolver is in place before the first native call.
using System;
using System.IO;
using System.Reflection;
using System.Runtime.InteropServices;

namespace Tessera {

internal static class NativeResolver {
  const string Glue = "tessera_csharp";
  static MethodInfo tryLoad;
  static readonly bool installed = Install();

  internal static bool Ensure() { return installed; }

  static bool Install() {
    try {
      Assembly core = typeof(object).Assembly;
      Type nativeLibrary = core.GetType("System.Runtime.InteropServices.NativeLibrary");
      Type resolverType = core.GetType("System.Runtime.InteropServices.DllImportResolver");
      if (nativeLibrary == null || resolverType == null) return false;
      tryLoad = nativeLibrary.GetMethod("TryLoad", new[] {typeof(string), typeof(IntPtr).MakeByRefType()});
      MethodInfo set = nativeLibrary.GetMethod("SetDllImportResolver", new[] {typeof(Assembly), resolverType});
      Delegate resolver = Delegate.CreateDelegate(resolverType,
          typeof(NativeResolver).GetMethod("Resolve", BindingFlags.NonPublic | BindingFlags.Static));
      set.Invoke(null, new object[] {typeof(NativeResolver).Assembly, resolver});
      return true;
    } catch (Exception) {
      return false;
    }
  }

  // DllImportResolver: a handle, or IntPtr.Zero for the default probing.
  static IntPtr Resolve(string name, Assembly assembly, DllImportSearchPath? searchPath) {
    if (name != Glue || string.IsNullOrEmpty(assembly.Location)) return IntPtr.Zero;
    string dir = Path.GetDirectoryName(assembly.Location);
    string file = "lib" + Glue + ".so";
    foreach (string candidate in new[] {Path.Combine(dir, file),
                                        Path.Combine(dir, "runtimes", "linux-x64", "native", file)}) {
      if (!File.Exists(candidate)) continue;
      object[] args = {candidate, IntPtr.Zero};
      if ((bool)tryLoad.Invoke(null, args)) return (IntPtr)args[1];
    }
    return IntPtr.Zero;
  }
}

}

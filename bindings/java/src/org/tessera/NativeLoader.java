package org.tessera;

import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;

/**
 * Finds and loads the JNI library (libtessera_jni.so) before the first native call, so that
 * neither user code nor tests set java.library.path or LD_LIBRARY_PATH.
 *
 * <p>The jar carries {@code org/tessera/native.properties}, written by the build: {@code search}
 * lists directories relative to the directory holding the jar, and {@code bundled} the files under
 * {@code META-INF/native/linux-x86_64/} in load order (libtessera, then the JNI library). Order:
 *
 * <ol>
 *   <li>the system property {@code tessera.jni.library}, an explicit file, if set (and nothing else:
 *       an override that does not load is an error, not a hint);
 *   <li>each search directory next to the jar: "." (the build tree puts both side by side) and the
 *       install's path from {@code share/java} to {@code lib}, so an installed jar uses the installed
 *       libraries (and the CUDA plugin beside them);
 *   <li>the copies inside the jar, extracted to one new temporary directory: libtessera first, so
 *       that the JNI library's dependency is already satisfied by that copy (the dynamic linker
 *       matches DT_NEEDED by SONAME against loaded libraries) whatever its RUNPATH says; this is
 *       what makes a jar copied alone work on a machine without tessera installed;
 *   <li>{@code System.loadLibrary("tessera_jni")} (java.library.path) as a last resort.
 * </ol>
 *
 * If none loads, the {@link UnsatisfiedLinkError} lists every path tried with its reason and
 * names the property.
 */
final class NativeLoader {
  static final String LIBRARY = "tessera_jni";
  static final String PROPERTY = "tessera.jni.library";
  static final String BUNDLE_DIR = "META-INF/native/linux-x86_64/";

  private NativeLoader() {}

  static void load() {
    List<String> tried = new ArrayList<>();
    String explicit = System.getProperty(PROPERTY);
    if (explicit != null) {
      Path file = Paths.get(explicit).toAbsolutePath();
      if (tryLoad(file, tried)) return;
      throw failure(tried);
    }
    Properties props = properties();
    String file = System.mapLibraryName(LIBRARY);
    for (Path dir : searchDirectories(props)) {
      Path candidate = dir.resolve(file).normalize();
      if (!Files.isRegularFile(candidate)) {
        tried.add(candidate + " (no such file)");
      } else if (tryLoad(candidate, tried)) {
        return;
      }
    }
    if (loadBundled(props, tried)) return;
    try {
      System.loadLibrary(LIBRARY);
      return;
    } catch (UnsatisfiedLinkError e) {
      tried.add("System.loadLibrary(\"" + LIBRARY + "\") (" + e.getMessage() + ")");
    }
    throw failure(tried);
  }

  private static UnsatisfiedLinkError failure(List<String> tried) {
    StringBuilder m = new StringBuilder("tessera: could not load the JNI library ")
        .append(System.mapLibraryName(LIBRARY)).append("; tried:");
    for (String t : tried) m.append("\n  ").append(t);
    m.append("\nSet -D").append(PROPERTY).append("=/path/to/")
        .append(System.mapLibraryName(LIBRARY))
        .append(" to name the file (libtessera.so must then be beside it or on its RUNPATH).");
    return new UnsatisfiedLinkError(m.toString());
  }

  private static boolean tryLoad(Path file, List<String> tried) {
    if (!Files.isRegularFile(file)) {
      tried.add(file + " (no such file)");
      return false;
    }
    try {
      System.load(file.toString());
      return true;
    } catch (UnsatisfiedLinkError e) {
      tried.add(file + " (" + e.getMessage() + ")");
      return false;
    }
  }

  /** Extracts the jar's copies into one temporary directory and loads them in order. */
  private static boolean loadBundled(Properties props, List<String> tried) {
    String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
    String arch = System.getProperty("os.arch", "");
    String where = "jar:" + BUNDLE_DIR;
    if (!os.startsWith("linux") || !(arch.equals("amd64") || arch.equals("x86_64"))) {
      tried.add(where + " (only built for linux-x86_64, this is " + os + "-" + arch + ")");
      return false;
    }
    String[] names = props.getProperty("bundled", "").split(":");
    if (names.length == 0 || names[0].isEmpty()) {
      tried.add(where + " (this jar carries no native libraries)");
      return false;
    }
    Path dir;
    try {
      dir = Files.createTempDirectory("tessera-native");
      dir.toFile().deleteOnExit(); // registered first, so deleted after the files
      for (String name : names) {
        Path target = dir.resolve(name);
        try (InputStream in = NativeLoader.class.getClassLoader()
            .getResourceAsStream(BUNDLE_DIR + name)) {
          if (in == null) {
            tried.add(where + name + " (missing from the jar)");
            return false;
          }
          Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
        }
        target.toFile().deleteOnExit();
      }
    } catch (IOException e) {
      tried.add(where + " (extracting to java.io.tmpdir=" + System.getProperty("java.io.tmpdir")
          + " failed: " + e + ")");
      return false;
    }
    for (String name : names) {
      if (!tryLoad(dir.resolve(name), tried)) return false;
    }
    return true;
  }

  /** The search directories resolved against the jar's (or class directory's) location. */
  private static List<Path> searchDirectories(Properties props) {
    List<Path> dirs = new ArrayList<>();
    Path base = codeLocation();
    if (base == null) return dirs;
    for (String entry : props.getProperty("search", ".").split(":")) {
      if (!entry.isEmpty()) dirs.add(base.resolve(entry));
    }
    return dirs;
  }

  private static Path codeLocation() {
    CodeSource source = NativeLoader.class.getProtectionDomain().getCodeSource();
    if (source == null || source.getLocation() == null) return null;
    try {
      Path location = Paths.get(source.getLocation().toURI());
      return Files.isDirectory(location) ? location : location.getParent();
    } catch (URISyntaxException | IllegalArgumentException e) {
      return null; // not a file: URL (e.g. a nested jar): the bundled copies still work
    }
  }

  private static Properties properties() {
    Properties p = new Properties();
    try (InputStream in = NativeLoader.class.getResourceAsStream("native.properties")) {
      if (in != null) p.load(in);
    } catch (IOException e) {
      // unreadable resource: same as absent
    }
    return p;
  }
}

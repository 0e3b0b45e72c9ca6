package org.tessera;

import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

/**
 * Finds and loads the JNI library (libtessera_jni.so) before the first native call.
 *
 * <p>The jar carries {@code org/tessera/native.properties}, written by the build: {@code search}
 * lists directories, relative to the directory holding the jar, where the library may sit: "."
 * (the build tree puts both side by side) and the install's path from {@code share/java} to
 * {@code lib}. The JNI library itself finds libtessera through its RPATH. So neither user code
 * nor tests set java.library.path or LD_LIBRARY_PATH. Order:
 *
 * <ol>
 *   <li>the system property {@code tessera.jni.library}, an explicit file, if set;
 *   <li>each search directory next to the jar;
 *   <li>{@code System.loadLibrary("tessera_jni")} (java.library.path) as a last resort.
 * </ol>
 */
final class NativeLoader {
  static final String LIBRARY = "tessera_jni";

  private NativeLoader() {}

  static void load() {
    String explicit = System.getProperty("tessera.jni.library");
    if (explicit != null) {
      System.load(Paths.get(explicit).toAbsolutePath().toString());
      return;
    }
    String file = System.mapLibraryName(LIBRARY);
    for (Path dir : searchDirectories()) {
      Path candidate = dir.resolve(file).normalize();
      if (Files.isRegularFile(candidate)) {
        System.load(candidate.toAbsolutePath().toString());
        return;
      }
    }
    System.loadLibrary(LIBRARY);
  }

  /** The search directories resolved against the jar's (or class directory's) location. */
  private static List<Path> searchDirectories() {
    List<Path> dirs = new ArrayList<>();
    Path base = codeLocation();
    if (base == null) return dirs;
    for (String entry : searchEntries()) {
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
      return null; // not a file: URL (e.g. a nested jar); fall back to java.library.path
    }
  }

  private static String[] searchEntries() {
    Properties p = new Properties();
    try (InputStream in = NativeLoader.class.getResourceAsStream("native.properties")) {
      if (in != null) p.load(in);
    } catch (IOException e) {
      // unreadable resource: same as absent
    }
    return p.getProperty("search", ".").split(":");
  }
}

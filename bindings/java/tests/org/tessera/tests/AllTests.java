package org.tessera.tests;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

/**
 * The Java binding's test suite, a self-contained runner (Debian's junit4/junit5 are not installed
 * here): every case runs, failures are listed, and the exit status is 1 if any failed.
 *
 * <pre>java -Xmx64m -cp tessera.jar:test-classes org.tessera.tests.AllTests GOLDENS TMPDIR [NAME-SUBSTRING]</pre>
 */
public final class AllTests {
  /** One named test case. */
  static final class Registry {
    private final List<String> names = new ArrayList<>();
    private final List<Check.Action> actions = new ArrayList<>();

    void add(String name, Check.Action action) {
      names.add(name);
      actions.add(action);
    }
  }

  public static void main(String[] args) throws Exception {
    if (args.length < 2) {
      System.err.println("usage: AllTests GOLDENS.properties TMPDIR [NAME-SUBSTRING]");
      System.exit(2);
    }
    Goldens goldens = Goldens.load(Paths.get(args[0]));
    Path tmp = Files.createDirectories(Paths.get(args[1]));
    String filter = args.length > 2 ? args[2] : "";

    Registry r = new Registry();
    TensorTests.register(r);
    LayoutTests.register(r, goldens);
    ErrorTests.register(r, goldens);
    LifetimeTests.register(r);
    AutogradTests.register(r, goldens);
    NnTests.register(r, goldens);
    TrainingOpsTests.register(r, goldens);
    IndexingOpsTests.register(r, goldens);
    CheckpointTests.register(r);
    SaveLoadTests.register(r, tmp);
    CheckpointFileTests.register(r, tmp);
    MemoryStatsTests.register(r);
    OptimTests.register(r, tmp);
    GradScalerTests.register(r);
    DistributedTests.register(r);
    DdpTests.register(r);
    TrainingTests.register(r);
    ModuleTests.register(r, tmp);
    FunctionTests.register(r);
    UnclosedTensorsTest.register(r);

    int run = 0;
    List<String> failed = new ArrayList<>();
    for (int i = 0; i < r.names.size(); ++i) {
      String name = r.names.get(i);
      if (!name.contains(filter)) continue;
      ++run;
      long start = System.nanoTime();
      try {
        r.actions.get(i).run();
        System.out.printf("ok    %-50s %8.1f ms%n", name, (System.nanoTime() - start) / 1e6);
      } catch (Throwable e) {
        failed.add(name);
        System.out.printf("FAIL  %s%n", name);
        e.printStackTrace(System.out);
      }
    }
    System.out.printf("%n%d tests, %d failed%s%n", run, failed.size(), failed.isEmpty() ? "" : ": " + failed);
    if (run == 0) {
      System.out.println("no test matched '" + filter + "'");
      System.exit(1);
    }
    System.exit(failed.isEmpty() ? 0 : 1);
  }
}

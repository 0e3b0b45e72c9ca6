package org.tessera.tests;

import static org.tessera.tests.Check.close;
import static org.tessera.tests.Check.equal;
import static org.tessera.tests.Check.isTrue;
import static org.tessera.tests.Check.throwsStatus;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.tessera.DType;
import org.tessera.Generator;
import org.tessera.Init;
import org.tessera.Optimizer;
import org.tessera.Profiler;
import org.tessera.ProfilerResult;
import org.tessera.Status;
import org.tessera.Tensor;
import org.tessera.Tessera;

/**
 * Optimizer (torch.optim.SGD / Adam / AdamW), Init (torch.nn.init) and Profiler. The expected
 * numbers come from PyTorch 1.13 (bindings/support/optim_golden.py, run with /usr/bin/python3): two
 * steps on P0 with GRAD set as the gradient before each.
 */
final class OptimTests {
  private OptimTests() {}

  static final double[] P0 = {1.0, -2.0, 3.0, 0.5};
  static final double[] GRAD = {0.1, -0.2, 0.3, 0.4};
  // torch.optim.SGD([p], lr=0.1, momentum=0.9, weight_decay=0.01), PyTorch 1.13
  static final double[][] SGD_STEPS = {
    {0.9890000224113464, -1.9780000448226929, 2.9670000076293945, 0.4594999849796295},
    {0.9681110382080078, -1.9362220764160156, 2.9043331146240234, 0.38259047269821167}};
  // torch.optim.AdamW([p], lr=0.01, weight_decay=0.1), PyTorch 1.13
  static final double[][] ADAMW_STEPS = {
    {0.9890000224113464, -1.9880000352859497, 2.986999988555908, 0.4895000159740448},
    {0.9780110716819763, -1.976012110710144, 2.974013090133667, 0.47901052236557007}};

  static void register(AllTests.Registry r, Path tmp) {
    r.add("optim: SGD with momentum matches torch", OptimTests::sgd);
    r.add("optim: AdamW matches torch, state, lr", OptimTests::adamW);
    r.add("optim: zeroGrad both ways", OptimTests::zeroGrad);
    r.add("optim: close frees the optimizer's state", OptimTests::closeFreesState);
    r.add("optim: errors carry torch's messages", OptimTests::errors);
    r.add("init: kaimingUniform_ bound and the others", OptimTests::init);
    r.add("profiler: table names the ops, chrome trace is JSON", () -> profiler(tmp));
  }

  static Tensor param() {
    Tensor p = Tensor.fromFloat64(P0, new long[] {4}, DType.FLOAT32);
    p.setRequiresGrad(true);
    return p;
  }

  static void steps(Optimizer opt, Tensor p, double[][] expected) {
    for (double[] want : expected) {
      try (Tensor g = Tensor.fromFloat64(GRAD, new long[] {4}, DType.FLOAT32)) {
        p.setGrad(g);
      }
      opt.step();
      close(want, p.toFloat64(), 1e-6, "parameter after a step");
    }
  }

  static void sgd() {
    try (Tensor p = param();
        Optimizer opt = Optimizer.sgd(List.of(p),
            new Optimizer.SGDOptions().lr(0.1).momentum(0.9).weightDecay(0.01))) {
      isTrue(opt.state(0, "momentum_buffer") == null, "no momentum_buffer before the first step");
      steps(opt, p, SGD_STEPS);
      try (Tensor buf = opt.state(0, "momentum_buffer")) {
        equal(new long[] {4}, buf.sizes(), "momentum_buffer sizes");
      }
      equal(1L, opt.numParams(), "numParams");
    }
  }

  static void adamW() {
    try (Tensor p = param();
        Optimizer opt = Optimizer.adamW(List.of(p), new Optimizer.AdamOptions().lr(0.01).weightDecay(0.1))) {
      steps(opt, p, ADAMW_STEPS);
      try (Tensor step = opt.state(0, "step")) {
        close(2.0, step.itemDouble(), 0, "step");
      }
      opt.setLr(0.5);
      close(0.5, opt.getLr(), 0, "lr");
    }
    try (Tensor p = param(); Optimizer opt = Optimizer.adam(List.of(p), null)) {
      close(1e-3, opt.getLr(), 0, "Adam's default lr");
    }
  }

  static void zeroGrad() {
    try (Tensor p = param(); Optimizer opt = Optimizer.sgd(List.of(p), 0.1)) {
      try (Tensor g = Tensor.fromFloat64(GRAD, new long[] {4}, DType.FLOAT32)) {
        p.setGrad(g);
      }
      opt.zeroGrad(false);
      try (Tensor g = p.grad()) {
        close(new double[] {0, 0, 0, 0}, g.toFloat64(), 0, "zeroed gradient");
      }
      opt.zeroGrad(true);
      isTrue(p.grad() == null, "zeroGrad(true) sets the gradient to null");
    }
  }

  static void closeFreesState() {
    try (Tensor p = Tessera.zeros(100, 100); Tensor g = Tessera.ones(100, 100)) {
      p.setRequiresGrad(true);
      p.setGrad(g);
      Optimizer opt = Optimizer.sgd(List.of(p), new Optimizer.SGDOptions().lr(0.1).momentum(0.9));
      opt.step();
      // The Cleaner may free earlier tests' tensors meanwhile, never allocate: close must free at
      // least the 40,000-byte momentum_buffer.
      long before = Tessera.memoryAllocated();
      opt.close();
      long freed = before - Tessera.memoryAllocated();
      isTrue(freed >= 100 * 100 * 4, "close freed " + freed + " bytes, want the momentum_buffer's 40000");
    }
  }

  static void errors() {
    try (Tensor p = param()) {
      var e = throwsStatus(Status.ERR_INVALID_ARGUMENT, () -> Optimizer.sgd(List.of(p), -0.1), "negative lr");
      equal("Invalid learning rate: -0.1", e.getMessage(), "message");
      throwsStatus(Status.ERR_INVALID_ARGUMENT, () -> Optimizer.adam(List.of(), null), "no parameters");
      Optimizer opt = Optimizer.sgd(List.of(p), 0.1);
      throwsStatus(Status.ERR_INVALID_ARGUMENT, () -> opt.setLr(-1), "setLr(-1)");
      opt.close();
      opt.close();
      throwsStatus(Status.ERR_INVALID_ARGUMENT, opt::step, "step after close");
    }
  }

  static void init() {
    try (Generator g = new Generator(0); Tensor w = Tessera.zeros(4, 3)) {
      Init.kaimingUniform_(w, g);
      double bound = Math.sqrt(2.0); // gain(leaky_relu, 0) * sqrt(3 / fan_in 3)
      double max = 0;
      for (double v : w.toFloat64()) {
        isTrue(v >= -bound && v < bound, "kaiming value " + v + " within the bound");
        max = Math.max(max, Math.abs(v));
      }
      isTrue(max > bound / 4, "values spread over the bound");
      Init.uniform_(w, 2, 3, g);
      for (double v : w.toFloat64()) isTrue(v >= 2 && v < 3, "uniform_ in [2, 3)");
      Init.xavierUniform_(w);
      Init.normal_(w, 10, 0.01);
      for (double v : w.toFloat64()) isTrue(Math.abs(v - 10) < 0.1, "normal_ near its mean");
      Init.zeros_(w);
      close(new double[12], w.toFloat64(), 0, "zeros_");
      close(5.0 / 3, Init.calculateGain("tanh"), 1e-12, "gain of tanh");
      var e = throwsStatus(Status.ERR_INVALID_ARGUMENT, () -> Init.calculateGain("foo"), "bad nonlinearity");
      equal("Unsupported nonlinearity foo", e.getMessage(), "message");
      try (Tensor v = Tessera.zeros(3)) {
        throwsStatus(Status.ERR_INVALID_ARGUMENT, () -> Init.kaimingUniform_(v), "1-D tensor");
      }
    }
  }

  static void profiler(Path tmp) throws Exception {
    try (Tensor x = Tessera.ones(3, 4)) {
      x.setRequiresGrad(true);
      Profiler.start(true, false);
      try (Tensor y = x.mul(x); Tensor s = y.sum()) {
        s.backward();
      }
      try (ProfilerResult r = Profiler.stop()) {
        isTrue(r.numEvents() > 0, "events recorded");
        String table = r.table("cpu_time_total", 10);
        isTrue(table.contains("aten::mul"), "table names aten::mul:\n" + table);
        isTrue(table.contains("MulBackward0"), "table names MulBackward0");
        Path trace = tmp.resolve("optim-trace.json");
        r.exportChromeTrace(trace.toString());
        String json = Files.readString(trace).strip();
        new Json(json).document();
        isTrue(json.contains("\"traceEvents\"") && json.contains("\"aten::mul\""), "trace is Chrome JSON");
        throwsStatus(Status.ERR_INVALID_ARGUMENT, () -> r.table("bogus", 10), "bad sort_by");
      }
      throwsStatus(Status.ERR_INVALID_ARGUMENT, Profiler::stop, "stop without a session");
    }
  }

  /** A strict JSON syntax check (the JDK has no JSON parser): throws on malformed text. */
  static final class Json {
    private final String s;
    private int i;

    Json(String s) { this.s = s; }

    void document() {
      value();
      ws();
      if (i != s.length()) throw new IllegalStateException("JSON: trailing text at " + i);
    }

    private void ws() { while (i < s.length() && " \t\r\n".indexOf(s.charAt(i)) >= 0) ++i; }

    private char peek() {
      ws();
      if (i >= s.length()) throw new IllegalStateException("JSON: unexpected end");
      return s.charAt(i);
    }

    private void expect(char c) {
      if (peek() != c) throw new IllegalStateException("JSON: expected " + c + " at " + i);
      ++i;
    }

    private void value() {
      char c = peek();
      if (c == '{') {
        ++i;
        if (peek() == '}') { ++i; return; }
        do { string(); expect(':'); value(); } while (comma());
        expect('}');
      } else if (c == '[') {
        ++i;
        if (peek() == ']') { ++i; return; }
        do { value(); } while (comma());
        expect(']');
      } else if (c == '"') {
        string();
      } else if (s.startsWith("true", i)) { i += 4; }
      else if (s.startsWith("false", i)) { i += 5; }
      else if (s.startsWith("null", i)) { i += 4; }
      else {
        int start = i;
        while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) ++i;
        Double.parseDouble(s.substring(start, i)); // NumberFormatException when malformed
      }
    }

    private boolean comma() {
      if (peek() == ',') { ++i; return true; }
      return false;
    }

    private void string() {
      expect('"');
      while (true) {
        if (i >= s.length()) throw new IllegalStateException("JSON: unterminated string");
        char c = s.charAt(i++);
        if (c == '"') return;
        if (c == '\\') ++i;
        else if (c < 0x20) throw new IllegalStateException("JSON: control character in a string");
      }
    }
  }
}

package org.tessera.tests;

import static org.tessera.tests.Check.close;
import static org.tessera.tests.Check.equal;
import static org.tessera.tests.Check.isTrue;
import static org.tessera.tests.Check.throwsStatus;
import static org.tessera.tests.Check.throwsType;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.tessera.BatchNorm2d;
import org.tessera.Conv2d;
import org.tessera.DType;
import org.tessera.Generator;
import org.tessera.IncompatibleKeys;
import org.tessera.Linear;
import org.tessera.Module;
import org.tessera.ReLU;
import org.tessera.Sequential;
import org.tessera.StateDictFile;
import org.tessera.Status;
import org.tessera.Tensor;
import org.tessera.Tessera;
import org.tessera.TesseraException;

/**
 * Module (torch.nn.Module), its layers and state_dict against torch 1.13's key order and
 * load_state_dict messages.
 */
final class ModuleTests {
  private static Path dir;

  private ModuleTests() {}

  static void register(AllTests.Registry r, Path tmp) {
    dir = tmp;
    r.add("module: state_dict, parameter and buffer keys in torch's order", ModuleTests::keyOrder);
    r.add("module: strict load reports missing and unexpected keys as torch", ModuleTests::strictLoad);
    r.add("module: non-strict load copies what matches, returns the keys", ModuleTests::lenientLoad);
    r.add("module: a shape mismatch is refused, nothing copied", ModuleTests::shapeMismatch);
    r.add("module: null state_dict, key or value", ModuleTests::nullStateDict);
    r.add("module: state_dict file round-trips values", ModuleTests::fileRoundTrip);
    r.add("module: train/eval switches BatchNorm2d's statistics", ModuleTests::trainEval);
    r.add("module: zeroGrad clears every parameter's gradient", ModuleTests::zeroGrad);
    r.add("module: Linear and Conv2d init bounds, shapes, forward", ModuleTests::layers);
    r.add("module: Conv2d and BatchNorm2d argument errors", ModuleTests::layerErrors);
    r.add("module: register names, replacement, non-persistent buffers", ModuleTests::registration);
    r.add("module: shared parameters listed once; close releases all", ModuleTests::sharingAndClose);
    r.add("module: empty Sequential returns its input", ModuleTests::emptySequential);
  }

  /** Linear(4,3), BatchNorm2d(3), Sequential(Conv2d(3,2,3,bias=False), BatchNorm2d(2)), Linear(2,2,bias=False). */
  static Sequential nested() {
    return new Sequential(new Linear(4, 3), new BatchNorm2d(3),
        new Sequential(new Conv2d(3, 2, new long[] {3, 3}, new long[] {1, 1}, new long[] {0, 0},
            new long[] {1, 1}, 1, false, new Generator(1)), new BatchNorm2d(2)),
        new Linear(2, 2, false));
  }

  static void keyOrder() {
    // /usr/bin/python3 -c 'import torch, torch.nn as nn; m = nn.Sequential(nn.Linear(4, 3),
    //   nn.BatchNorm2d(3), nn.Sequential(nn.Conv2d(3, 2, 3, bias=False), nn.BatchNorm2d(2)),
    //   nn.Linear(2, 2, bias=False)); print(list(m.state_dict().keys()));
    //   print([n for n, _ in m.named_parameters()]); print([n for n, _ in m.named_buffers()])'
    // (torch 1.13)
    List<String> stateDict = List.of("0.weight", "0.bias", "1.weight", "1.bias", "1.running_mean",
        "1.running_var", "1.num_batches_tracked", "2.0.weight", "2.1.weight", "2.1.bias",
        "2.1.running_mean", "2.1.running_var", "2.1.num_batches_tracked", "3.weight");
    List<String> parameters = List.of("0.weight", "0.bias", "1.weight", "1.bias", "2.0.weight", "2.1.weight",
        "2.1.bias", "3.weight");
    List<String> buffers = List.of("1.running_mean", "1.running_var", "1.num_batches_tracked",
        "2.1.running_mean", "2.1.running_var", "2.1.num_batches_tracked");
    try (Sequential m = nested()) {
      equal(stateDict, new ArrayList<>(m.stateDict().keySet()), "state_dict keys");
      equal(parameters, new ArrayList<>(m.namedParameters().keySet()), "named_parameters");
      equal(buffers, new ArrayList<>(m.namedBuffers().keySet()), "named_buffers");
      equal(8, m.parameters().size(), "parameters()");
      equal(6, m.buffers().size(), "buffers()");
      equal(List.of("0", "1", "2", "3"), new ArrayList<>(m.namedChildren().keySet()), "children");
      isTrue(m.children().get(2) instanceof Sequential, "child 2 is the inner Sequential");
      equal(DType.INT64, m.stateDict().get("1.num_batches_tracked").dtype(), "num_batches_tracked dtype");
      for (Tensor p : m.parameters()) isTrue(p.requiresGrad(), "parameters require grad");
    }
  }

  static Map<String, Tensor> map(Object... nameTensor) {
    Map<String, Tensor> out = new LinkedHashMap<>();
    for (int i = 0; i < nameTensor.length; i += 2) out.put((String) nameTensor[i], (Tensor) nameTensor[i + 1]);
    return out;
  }

  static void strictLoad() {
    // torch 1.13: nn.Linear(2, 3).load_state_dict({"bias": torch.zeros(3), "extra": torch.zeros(1)})
    String expected = "Error(s) in loading state_dict for Linear:\n\tMissing key(s) in state_dict: \"weight\". "
        + "\n\tUnexpected key(s) in state_dict: \"extra\". ";
    try (Linear l = new Linear(2, 3); Tensor bias = Tessera.zeros(3); Tensor extra = Tessera.zeros(1);
        Tensor before = l.bias().clone()) {
      TesseraException e = throwsStatus(Status.ERR_INVALID_ARGUMENT,
          () -> l.loadStateDict(map("bias", bias, "extra", extra), true), "strict load");
      equal(expected, e.getMessage(), "message");
      equal(Arrays.toString(before.toFloat64()), Arrays.toString(l.bias().toFloat64()), "nothing copied");
    }
    // Nested: the keys carry the children's prefixes; "0.nope" is unexpected where "0" is a child.
    try (Sequential m = new Sequential(new Linear(2, 2), new ReLU()); Tensor w = Tessera.zeros(2, 2);
        Tensor x = Tessera.zeros(1)) {
      TesseraException e = throwsStatus(Status.ERR_INVALID_ARGUMENT,
          () -> m.loadStateDict(map("0.weight", w, "0.nope", x, "1.x", x, "9", x), true), "nested");
      equal("Error(s) in loading state_dict for Sequential:\n\tMissing key(s) in state_dict: \"0.bias\". "
          + "\n\tUnexpected key(s) in state_dict: \"9\", \"0.nope\", \"1.x\". ", e.getMessage(), "nested message");
    }
  }

  static void lenientLoad() {
    try (Linear l = new Linear(2, 3); Tensor bias = Tessera.full(new long[] {3}, 7.0);
        Tensor extra = Tessera.zeros(1)) {
      IncompatibleKeys keys = l.loadStateDict(map("bias", bias, "extra", extra), false);
      equal(List.of("weight"), keys.missingKeys(), "missing");
      equal(List.of("extra"), keys.unexpectedKeys(), "unexpected");
      close(new double[] {7, 7, 7}, l.bias().toFloat64(), 0, "bias copied");
      isTrue(l.bias().requiresGrad(), "still a parameter");
    }
  }

  static void shapeMismatch() {
    // torch 1.13: nn.Linear(2, 3).load_state_dict({"weight": torch.zeros(2, 3), "foo": torch.zeros(3)})
    String expected = "Error(s) in loading state_dict for Linear:\n\tMissing key(s) in state_dict: \"bias\". "
        + "\n\tUnexpected key(s) in state_dict: \"foo\". \n\tsize mismatch for weight: copying a param with "
        + "shape torch.Size([2, 3]) from checkpoint, the shape in current model is torch.Size([3, 2]).";
    try (Linear l = new Linear(2, 3); Tensor w = Tessera.zeros(2, 3); Tensor foo = Tessera.zeros(3);
        Tensor b = Tessera.zeros(3)) {
      TesseraException e = throwsStatus(Status.ERR_INVALID_ARGUMENT,
          () -> l.loadStateDict(map("weight", w, "foo", foo), true), "strict");
      equal(expected, e.getMessage(), "message");
      // Not strict still refuses the shape (torch too), and copies nothing, not even the bias.
      e = throwsStatus(Status.ERR_INVALID_ARGUMENT, () -> l.loadStateDict(map("weight", w, "bias", b), false),
          "lenient");
      equal("Error(s) in loading state_dict for Linear:\n\tsize mismatch for weight: copying a param with "
          + "shape torch.Size([2, 3]) from checkpoint, the shape in current model is torch.Size([3, 2]).",
          e.getMessage(), "lenient message");
      isTrue(l.bias().toFloat64()[0] != 0 || l.bias().toFloat64()[1] != 0, "bias not copied");
    }
  }

  static void nullStateDict() {
    try (Linear l = new Linear(1, 1); Tensor w = Tessera.zeros(1, 1)) {
      throwsType(NullPointerException.class, () -> l.loadStateDict(null, true), "null map");
      Map<String, Tensor> nullValue = map("weight", w, "bias", null);
      NullPointerException e = throwsType(NullPointerException.class, () -> l.loadStateDict(nullValue, true),
          "null value");
      equal("state_dict[\"bias\"] is null", e.getMessage(), "null value message");
      Map<String, Tensor> nullKey = new java.util.HashMap<>();
      nullKey.put(null, w);
      throwsType(NullPointerException.class, () -> l.loadStateDict(nullKey, true), "null key");
    }
  }

  static void fileRoundTrip() {
    String path = dir.resolve("module-state.tsr").toString();
    try (Sequential a = nested(); Sequential b = nested(); Tensor x = Tessera.ones(2, 3, 5, 5);
        Tensor y = a.children().get(2).forward(x)) {
      // The forward pass in training mode moved a's running statistics and counter off their defaults.
      StateDictFile.save(path, a);
      IncompatibleKeys keys = StateDictFile.load(path, b, true);
      equal(List.of(), keys.missingKeys(), "missing");
      equal(List.of(), keys.unexpectedKeys(), "unexpected");
      Map<String, Tensor> sa = a.stateDict();
      Map<String, Tensor> sb = b.stateDict();
      for (String k : sa.keySet()) {
        isTrue(Arrays.equals(sa.get(k).toBytes(), sb.get(k).toBytes()), k + " round-trips");
      }
      equal(1, sb.get("2.1.num_batches_tracked").itemInt64(), "counter round-trips");
      try (Linear small = new Linear(1, 1)) {
        TesseraException e = throwsStatus(Status.ERR_INVALID_ARGUMENT, () -> StateDictFile.load(path, small, true),
            "wrong module");
        isTrue(e.getMessage().startsWith("Error(s) in loading state_dict for Linear:\n\tMissing key(s)"),
            e.getMessage());
      }
      throwsStatus(Status.ERR_IO, () -> StateDictFile.load(dir.resolve("none.tsr").toString(), b, true),
          "missing file");
      throwsType(NullPointerException.class, () -> StateDictFile.save(path, null), "null module");
      throwsType(NullPointerException.class, () -> StateDictFile.load(path, null, true), "null module");
    }
  }

  static void trainEval() {
    try (BatchNorm2d bn = new BatchNorm2d(1); Tensor x = Tessera.tensor(new float[] {1, 2, 3, 4}, 1, 1, 2, 2)) {
      isTrue(bn.isTraining(), "training by default");
      try (Tensor y = bn.forward(x)) {
        // Batch statistics: mean 2.5, biased var 1.25.
        double s = 1 / Math.sqrt(1.25 + 1e-5);
        close(new double[] {-1.5 * s, -0.5 * s, 0.5 * s, 1.5 * s}, y.toFloat64(), 1e-5, "train output");
      }
      // running_mean 0.9 * 0 + 0.1 * 2.5; running_var with the unbiased 5/3.
      close(new double[] {0.25}, bn.runningMean().toFloat64(), 1e-6, "running_mean");
      close(new double[] {0.9 + 0.1 * 5.0 / 3}, bn.runningVar().toFloat64(), 1e-6, "running_var");
      equal(1, bn.numBatchesTracked().itemInt64(), "num_batches_tracked");
      bn.eval();
      isTrue(!bn.isTraining(), "eval");
      try (Tensor y = bn.forward(x)) {
        double var = 0.9 + 0.1 * 5.0 / 3;
        double[] want = new double[4];
        for (int i = 0; i < 4; ++i) want[i] = (i + 1 - 0.25) / Math.sqrt(var + 1e-5);
        close(want, y.toFloat64(), 1e-5, "eval output uses running statistics");
      }
      close(new double[] {0.25}, bn.runningMean().toFloat64(), 1e-6, "eval leaves running_mean");
      equal(1, bn.numBatchesTracked().itemInt64(), "eval does not count");
      // train()/eval() reach every descendant.
      try (Sequential m = nested()) {
        m.eval();
        for (Module c : m.children()) isTrue(!c.isTraining(), "child in eval");
        isTrue(!m.children().get(2).children().get(1).isTraining(), "grandchild in eval");
        m.train();
        isTrue(m.children().get(2).children().get(1).isTraining(), "grandchild back in training");
      }
    }
  }

  static void zeroGrad() {
    try (Sequential m = new Sequential(new Linear(3, 4), new ReLU(), new Linear(4, 2));
        Tensor x = Tessera.ones(5, 3); Tensor y = m.forward(x); Tensor loss = y.sum()) {
      loss.backward();
      double total = 0;
      for (Tensor p : m.parameters()) {
        try (Tensor g = p.grad(); Tensor a = g.abs(); Tensor s = a.sum()) {
          total += s.itemDouble();
        }
      }
      isTrue(total > 0, "gradients after backward");
      m.zeroGrad();
      for (Map.Entry<String, Tensor> e : m.namedParameters().entrySet()) {
        try (Tensor g = e.getValue().grad()) {
          for (double v : g.toFloat64()) equal(0.0, v, e.getKey() + ".grad");
        }
      }
    }
  }

  static void layers() {
    try (Linear l = new Linear(16, 8, true, new Generator(3)); Tensor x = Tessera.ones(4, 16);
        Tensor y = l.forward(x); Tensor want = Tessera.linear(x, l.weight(), l.bias())) {
      equal(new long[] {8, 16}, l.weight().sizes(), "Linear weight [out, in]");
      equal(new long[] {8}, l.bias().sizes(), "Linear bias [out]");
      equal(16, l.inFeatures(), "inFeatures");
      equal(8, l.outFeatures(), "outFeatures");
      // kaiming_uniform_(a = sqrt(5)): bound gain * sqrt(3 / fan_in) = sqrt(2 / 6) * sqrt(3 / 16) = 1/4.
      within(l.weight(), 0.25, "Linear weight");
      within(l.bias(), 0.25, "Linear bias");
      equal(new long[] {4, 8}, y.sizes(), "Linear output");
      isTrue(y.allclose(want), "Linear is F.linear");
    }
    try (Linear l = new Linear(2, 2, false)) {
      equal(null, l.bias(), "no bias");
      equal(List.of("weight"), new ArrayList<>(l.stateDict().keySet()), "no bias key");
    }
    try (Conv2d c = new Conv2d(4, 6, new long[] {3, 1}, new long[] {2, 1}, new long[] {1, 0}, new long[] {1, 1},
            2, true, new Generator(5));
        Tensor x = Tessera.ones(1, 4, 7, 5); Tensor y = c.forward(x)) {
      equal(new long[] {6, 2, 3, 1}, c.weight().sizes(), "Conv2d weight [out, in / groups, kH, kW]");
      // fan_in = 2 * 3 * 1 = 6: bound 1 / sqrt(6).
      within(c.weight(), 1 / Math.sqrt(6), "Conv2d weight");
      within(c.bias(), 1 / Math.sqrt(6), "Conv2d bias");
      equal(new long[] {1, 6, 4, 5}, y.sizes(), "Conv2d output");
    }
    try (Conv2d c = new Conv2d(1, 1, 2)) {
      equal(List.of("weight", "bias"), new ArrayList<>(c.stateDict().keySet()), "Conv2d keys");
    }
  }

  /** Every value in [-bound, bound], and not all equal (drawn). */
  static void within(Tensor t, double bound, String what) {
    double[] v = t.toFloat64();
    for (double d : v) isTrue(Math.abs(d) <= bound + 1e-7, what + " value " + d + " outside " + bound);
    isTrue(Arrays.stream(v).distinct().count() > 1, what + " drawn");
  }

  static void layerErrors() {
    long[] one = {1, 1}, zero = {0, 0};
    IllegalArgumentException e = throwsType(IllegalArgumentException.class,
        () -> new Conv2d(3, 4, one, one, zero, one, 2, true, new Generator(0)), "in % groups");
    equal("in_channels must be divisible by groups", e.getMessage(), "in message");
    e = throwsType(IllegalArgumentException.class, () -> new Conv2d(4, 3, one, one, zero, one, 2, true,
        new Generator(0)), "out % groups");
    equal("out_channels must be divisible by groups", e.getMessage(), "out message");
    e = throwsType(IllegalArgumentException.class, () -> new Conv2d(4, 4, one, one, zero, one, 0, true,
        new Generator(0)), "groups 0");
    equal("groups must be a positive integer", e.getMessage(), "groups message");
    e = throwsType(IllegalArgumentException.class, () -> new Conv2d(4, 4, new long[] {1}, one, zero, one, 1, true,
        new Generator(0)), "kernel pair");
    equal("kernel_size must be two values {H, W}", e.getMessage(), "pair message");
    try (BatchNorm2d bn = new BatchNorm2d(2); Tensor x = Tessera.ones(2, 2)) {
      e = throwsType(IllegalArgumentException.class, () -> bn.forward(x), "BatchNorm2d 2D");
      equal("expected 4D input (got 2D input)", e.getMessage(), "BatchNorm2d message");
    }
    try (Linear l = new Linear(3, 2); Tensor x = Tessera.ones(1, 4)) {
      throwsStatus(Status.ERR_SHAPE_MISMATCH, () -> l.forward(x), "Linear wrong width");
    }
  }

  /** A module built in the test: a scale parameter and a step buffer. */
  static final class Scale extends Module {
    final Tensor scale;

    Scale() {
      scale = registerParameter("scale", Tessera.ones(1));
      registerBuffer("step", Tessera.zeros(1));
      registerBuffer("cache", Tessera.zeros(1), false);
    }

    @Override
    public Tensor forward(Tensor input) {
      return input.mul(scale);
    }
  }

  static void registration() {
    try (Scale s = new Scale()) {
      equal(List.of("scale", "step"), new ArrayList<>(s.stateDict().keySet()), "non-persistent left out");
      equal(List.of("step", "cache"), new ArrayList<>(s.namedBuffers().keySet()), "named_buffers has both");
      IllegalArgumentException e = throwsType(IllegalArgumentException.class,
          () -> s.registerParameter("a.b", Tessera.ones(1)), "dot");
      equal("parameter name can't contain \".\", got: a.b", e.getMessage(), "dot message");
      e = throwsType(IllegalArgumentException.class, () -> s.registerBuffer("", Tessera.ones(1)), "empty");
      equal("buffer name can't be empty string \"\"", e.getMessage(), "empty message");
      e = throwsType(IllegalArgumentException.class, () -> s.registerModule("step", new ReLU()), "taken");
      equal("attribute 'step' already exists", e.getMessage(), "taken message");
      throwsType(NullPointerException.class, () -> s.registerModule("m", null), "null module");
      throwsType(NullPointerException.class, () -> s.registerParameter(null, null), "null name");
      Tensor closed = Tessera.ones(1);
      closed.close();
      throwsStatus(Status.ERR_INVALID_ARGUMENT, () -> s.registerParameter("closed", closed), "closed tensor");
      equal(List.of("scale"), new ArrayList<>(s.namedParameters().keySet()), "refused parameter not registered");
      // Registering a name again replaces the tensor in place (its key keeps its position) and
      // releases the old one.
      Tensor old = s.scale;
      Tensor fresh = s.registerParameter("scale", Tessera.full(new long[] {1}, 3.0));
      isTrue(old.isClosed(), "old parameter released");
      equal(List.of("scale", "step"), new ArrayList<>(s.stateDict().keySet()), "order kept");
      isTrue(s.stateDict().get("scale") == fresh, "replaced");
      s.registerParameter("scale", null);
      equal(List.of("step"), new ArrayList<>(s.stateDict().keySet()), "None parameter left out");
      // A buffer turned persistent joins the state_dict.
      s.registerBuffer("cache", Tessera.zeros(1), true);
      equal(List.of("step", "cache"), new ArrayList<>(s.stateDict().keySet()), "now persistent");
    }
  }

  static void sharingAndClose() {
    Linear shared = new Linear(2, 2);
    Sequential m = new Sequential(shared, new ReLU());
    m.registerModule("again", shared);
    equal(List.of("0.weight", "0.bias"), new ArrayList<>(m.namedParameters().keySet()), "listed once");
    equal(List.of("0.weight", "0.bias", "again.weight", "again.bias"), new ArrayList<>(m.stateDict().keySet()),
        "state_dict lists both names, as torch");
    m.close();
    isTrue(shared.weight().isClosed() && shared.bias().isClosed(), "close releases the parameters");
    m.close();  // idempotent
    try (BatchNorm2d bn = new BatchNorm2d(1)) {
      bn.close();
      isTrue(bn.runningMean().isClosed() && bn.numBatchesTracked().isClosed(), "close releases the buffers");
    }
  }

  static void emptySequential() {
    try (Sequential m = new Sequential(); Tensor x = Tessera.ones(2); Tensor y = m.forward(x)) {
      isTrue(y != x && y.sharesStorage(x), "a new reference to the input");
      equal(0, m.size(), "size");
      m.append(new ReLU());
      equal(1, m.size(), "appended");
    }
  }
}

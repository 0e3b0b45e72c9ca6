package org.tessera.tests;

import static org.tessera.tests.Check.equal;

import org.tessera.MemoryFormat;
import org.tessera.Tensor;

/** sizes/strides/storage_offset/contiguity of views, against PyTorch 1.13 (goldens.properties). */
final class LayoutTests {
  private LayoutTests() {}

  static void register(AllTests.Registry r, Goldens g) {
    for (String name : g.cases("layout")) {
      r.add("layout vs torch: " + name + " (" + g.string("layout." + name + ".ops") + ")",
          () -> check(g, "layout." + name));
    }
  }

  private static void check(Goldens g, String key) {
    try (Tensor base = Goldens.base(g.longs(key + ".base"));
        Tensor t = Goldens.replay(base, g.string(key + ".ops"))) {
      equal(g.longs(key + ".sizes"), t.sizes(), key + " sizes");
      equal(g.longs(key + ".strides"), t.strides(), key + " strides");
      equal(g.longs(key + ".storage_offset")[0], t.storageOffset(), key + " storage_offset");
      equal(g.bool(key + ".contiguous"), t.isContiguous(), key + " is_contiguous");
      equal(g.bool(key + ".channels_last"), t.isContiguous(MemoryFormat.CHANNELS_LAST),
          key + " is_contiguous(channels_last)");
      equal(g.bool(key + ".shares_storage"), t.sharesStorage(base), key + " shares the base's storage");
      equal(g.longs(key + ".values"), t.toInt64(), key + " values in C order");
    }
  }
}

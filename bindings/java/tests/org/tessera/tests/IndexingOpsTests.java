package org.tessera.tests;

import static org.tessera.tests.Check.equal;
import static org.tessera.tests.Check.isTrue;
import static org.tessera.tests.Check.throwsStatus;

import java.util.LinkedHashMap;
import java.util.Map;
import org.tessera.DType;
import org.tessera.ScatterReduction;
import org.tessera.Status;
import org.tessera.Tensor;
import org.tessera.Tessera;
import org.tessera.TesseraException;
import org.tessera.ValuesIndices;

/**
 * Issue 33's indexing, sorting, extrema, factories and shape ops in their Java forms, against
 * PyTorch 1.13 (goldens.properties' nn.op_ix_* entries from
 * bindings/support/training_ops_golden_cases.py, which holds each torch expression).
 */
final class IndexingOpsTests {
  private IndexingOpsTests() {}

  static void register(AllTests.Registry r, Goldens g) {
    r.add("indexing ops: indexing, sorting, extrema, shape ops match torch", () -> values(g));
    r.add("indexing ops: a failed write changes nothing", IndexingOpsTests::errors);
  }

  static void values(Goldens g) {
    try (Tensor x = g.nnTensor("op_x"); Tensor r = g.nnTensor("op_r"); Tensor p = g.nnTensor("op_p");
        Tensor lo = g.nnTensor("op_lo"); Tensor mask = g.nnTensor("op_mask"); Tensor idx = g.nnTensor("op_ix_idx");
        Tensor cols = g.nnTensor("op_ix_cols"); Tensor rows00 = g.nnTensor("op_ix_rows00");
        Tensor rows11 = g.nnTensor("op_ix_rows11"); Tensor idx2 = g.nnTensor("op_ix_idx2");
        Tensor pos = g.nnTensor("op_ix_pos"); Tensor v3 = g.nnTensor("op_ix_v3")) {
      Map<String, TrainingOpsTests.Op> ops = new LinkedHashMap<>();
      ops.put("ix_index", () -> x.index(idx)); // x[idx]
      ops.put("ix_index_mask", () -> x.index(pos)); // x[x > 0]
      ops.put("ix_index_cols", () -> x.index(null, cols)); // x[:, cols]
      ops.put("ix_index_put", () -> x.clone().indexPut_(new Tensor[] {rows00}, v3, true));
      ops.put("ix_masked_fill", () -> x.maskedFill(mask, -1.0));
      ops.put("ix_masked_select", () -> x.maskedSelect(pos));
      ops.put("ix_scatter_add", () -> Tessera.zeros(2, 3).scatterAdd(1, idx2, x));
      ops.put("ix_scatter_reduce_amax", () -> x.scatterReduce(1, idx2, r, ScatterReduction.SCATTER_AMAX, false));
      ops.put("ix_index_add", () -> x.indexAdd(0, rows11, p, 0.5));
      ops.put("ix_take_along_dim", () -> x.takeAlongDim(idx2, 1));
      ops.put("ix_sort_values", () -> keepValues(x.sort(1, true)));
      ops.put("ix_sort_indices", () -> keepIndices(x.sort(1, true)));
      ops.put("ix_topk_values", () -> keepValues(x.topk(2, 1, true)));
      ops.put("ix_topk_indices", () -> keepIndices(x.topk(2, 1, true)));
      ops.put("ix_kthvalue", () -> keepValues(x.kthvalue(2, 1, false)));
      ops.put("ix_maximum", () -> x.maximum(lo));
      ops.put("ix_amax", () -> x.amax(new long[] {1}, false));
      ops.put("ix_norm", () -> x.norm(1, new long[] {1}, false));
      ops.put("ix_linspace", () -> Tessera.linspace(0, 1, 5, DType.FLOAT32));
      ops.put("ix_eye", () -> Tessera.eye(2, 3, DType.FLOAT32));
      ops.put("ix_triu", () -> Tessera.ones(3, 3).to(DType.BOOL).triu(1));
      ops.put("ix_flip", () -> x.flip(1));
      ops.put("ix_roll", () -> x.roll(new long[] {1}, new long[] {1}));
      ops.put("ix_repeat", () -> x.repeat(2, 1));
      ops.put("ix_einsum", () -> Tessera.einsum("ij,kj->ik", x, r));
      TrainingOpsTests.checkAll(g, ops);
    }
  }

  static Tensor keepValues(ValuesIndices vi) {
    vi.indices().close();
    return vi.values();
  }

  static Tensor keepIndices(ValuesIndices vi) {
    vi.values().close();
    return vi.indices();
  }

  static void errors() {
    try (Tensor x = Tessera.zeros(3, 4); Tensor bad = Tessera.tensor(new long[] {0, 7}, 2);
        Tensor row = Tessera.ones(4)) {
      TesseraException e = throwsStatus(Status.ERR_INDEX_OUT_OF_RANGE,
          () -> x.indexPut_(new Tensor[] {bad}, row, false), "index out of range");
      isTrue(e.getMessage().contains("index 7 is out of bounds for dimension 0 with size 3"), e.getMessage());
      equal(x.version(), 0L, "version after a failed write");
      throwsStatus(Status.ERR_INVALID_ARGUMENT, () -> x.topk(5, 0, true), "k out of range");
      throwsStatus(Status.ERR_INVALID_ARGUMENT, () -> Tessera.einsum("ij,jk", x, x), "einsum sizes");
    }
  }
}

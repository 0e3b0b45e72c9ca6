// C API: checkpoint regions (checkpoint.h).
#include <tessera/checkpoint.h>

#include <algorithm>
#include <cstddef>
#include <string>

#include "autograd/checkpoint.h"
#include "capi/barrier.h"
#include "capi/handles.h"
#include "capi/struct_size.h"
#include "primitive/op_names.h"

using namespace tsr;
using namespace tsr::capi;
namespace ckpt = tsr::autograd::checkpoint;

namespace {

// "matmul, linear" -> {"matmul", "linear"}, each a known op name.
std::vector<std::string> parse_keep_ops(const char* list) {
  std::vector<std::string> names;
  if (!list) return names;
  std::string s(list);
  size_t pos = 0;
  while (pos <= s.size()) {
    size_t comma = std::min(s.find(',', pos), s.size());
    std::string name = s.substr(pos, comma - pos);
    name.erase(0, name.find_first_not_of(" \t"));
    name.erase(name.find_last_not_of(" \t") + 1);
    if (!name.empty() || comma < s.size()) {
      TSR_CHECK(prim::is_known_op(name), TSR_ERR_INVALID_ARGUMENT, "checkpoint options: keep_ops names '",
                name, "', which is not an op name; known ops: ", prim::known_op_names());
      names.push_back(name);
    }
    pos = comma + 1;
  }
  return names;
}

// The caller's struct read up to its struct_size over the defaults, so a
// program built against an older, shorter struct keeps working.
ckpt::Options options_arg(const tsr_checkpoint_options* o) {
  const tsr_checkpoint_options defaults = TSR_CHECKPOINT_OPTIONS_INIT;
  const tsr_checkpoint_options c =
      o ? read_struct(o, defaults, TSR_FIRST_VERSION_SIZE(tsr_checkpoint_options, preserve_rng_state),
                      "checkpoint options", "tsr_checkpoint_options")
        : defaults;
  return {c.preserve_rng_state, c.determinism_check, c.early_stop, parse_keep_ops(c.keep_ops)};
}

// Closes the regions above `depth` (a callback's failure or imbalance).
void close_to(size_t depth) {
  while (ckpt::depth() > depth) ckpt::end();
}

void release_all(tsr_tensor** handles, int64_t n) {
  for (int64_t i = 0; i < n; ++i) release(handles[i]);
}

}  // namespace

TSR_EXTERN tsr_status tsr_checkpoint_begin(const tsr_checkpoint_options* options) {
  return guarded([&] { ckpt::begin(options_arg(options)); });
}

TSR_EXTERN tsr_status tsr_checkpoint_end(void) {
  return guarded([&] { ckpt::end(); });
}

TSR_EXTERN int64_t tsr_checkpoint_depth(void) { return int64_t(ckpt::depth()); }

TSR_EXTERN tsr_status tsr_checkpoint(tsr_checkpoint_fn fn, void* ctx, int64_t n_inputs,
                                     tsr_tensor* const* inputs, const tsr_checkpoint_options* options,
                                     int64_t max_outputs, int64_t* n_outputs, tsr_tensor** outputs) {
  tsr_status status = guarded([&] {
    require(fn, "fn");
    require(n_outputs, "n_outputs");
    require(outputs, "outputs");
    TSR_CHECK(n_inputs >= 0 && max_outputs >= 0, TSR_ERR_INVALID_ARGUMENT,
              "tsr_checkpoint: n_inputs and max_outputs must be >= 0, got ", n_inputs, " and ", max_outputs);
    TSR_CHECK(n_inputs == 0 || inputs, TSR_ERR_INVALID_ARGUMENT, "inputs is NULL");
    for (int64_t i = 0; i < n_inputs; ++i) tensor_of(inputs[i], "inputs[i]");
    ckpt::begin(options_arg(options));
  });
  if (status != TSR_OK) return status;
  const size_t depth = ckpt::depth();

  // fn writes into a scratch array, so the caller's is untouched on failure.
  std::vector<tsr_tensor*> produced(size_t(max_outputs), nullptr);
  int64_t count = -1;
  status = fn(ctx, n_inputs, inputs, max_outputs, &count, produced.data());
  const size_t depth_after = ckpt::depth();
  close_to(depth - 1);
  const int64_t written = std::clamp<int64_t>(count, 0, max_outputs);
  if (status != TSR_OK) {
    release_all(produced.data(), written);
    return status;  // fn's status; the failed tessera call's message stands
  }
  status = guarded([&] {
    TSR_CHECK(depth_after == depth, TSR_ERR_AUTOGRAD, "tsr_checkpoint: the function ",
              depth_after > depth ? "left checkpoint regions open (begin without end)"
                                  : "ended the checkpoint region it runs in (end without begin)");
    TSR_CHECK(count >= 0 && count <= max_outputs, TSR_ERR_INVALID_ARGUMENT,
              "tsr_checkpoint: the function reported ", count, " outputs; max_outputs is ", max_outputs);
    for (int64_t i = 0; i < count; ++i)
      TSR_CHECK(produced[i] != nullptr, TSR_ERR_INVALID_ARGUMENT, "tsr_checkpoint: output ", i,
                " of the function is NULL");
  });
  if (status != TSR_OK) {
    release_all(produced.data(), written);
    return status;
  }
  std::copy(produced.begin(), produced.begin() + count, outputs);
  *n_outputs = count;
  return TSR_OK;
}

TSR_EXTERN tsr_status tsr_checkpoint_sequential(int64_t n_layers, const tsr_layer_fn* layers,
                                                void* const* ctxs, int64_t segments,
                                                const tsr_tensor* input,
                                                const tsr_checkpoint_options* options,
                                                tsr_tensor** out) {
  ckpt::Options opts;
  tsr_status status = guarded([&] {
    require(layers, "layers");
    tensor_of(input, "input");
    require(out, "out");
    TSR_CHECK(n_layers >= 1 && segments >= 1 && segments <= n_layers, TSR_ERR_INVALID_ARGUMENT,
              "tsr_checkpoint_sequential: need 1 <= segments <= n_layers, got ", segments,
              " segments for ", n_layers, " layers");
    for (int64_t i = 0; i < n_layers; ++i)
      TSR_CHECK(layers[i] != nullptr, TSR_ERR_INVALID_ARGUMENT, "layers[", i, "] is NULL");
    opts = options_arg(options);
  });
  if (status != TSR_OK) return status;

  // torch: segments-1 checkpointed groups of n/segments layers, then the
  // rest without a region.
  const int64_t size = n_layers / segments;
  const int64_t checkpointed = size * (segments - 1);
  const size_t depth = ckpt::depth();
  tsr_tensor* current = const_cast<tsr_tensor*>(input);
  retain(current);
  for (int64_t i = 0; i < n_layers; ++i) {
    if (i < checkpointed && i % size == 0) ckpt::begin(opts);
    tsr_tensor* next = nullptr;
    status = layers[i](ctxs ? ctxs[i] : nullptr, current, &next);
    if (status == TSR_OK && !next)
      status = guarded([&] { fail(TSR_ERR_INVALID_ARGUMENT, "layers[", i, "] returned TSR_OK without an output"); });
    release(current);
    if (status != TSR_OK) {
      close_to(depth);
      return status;
    }
    current = next;
    if (i < checkpointed && i % size == size - 1) ckpt::end();
  }
  *out = current;
  return TSR_OK;
}

// Checkpoint regions without callbacks (torch.utils.checkpoint with
// use_reentrant=False, but replaying tessera's own record of the ops).
//
// While a region is open on a thread, every primitive run there is appended
// to the region's tape: the primitive (its arguments, and for random ones
// the generator position), where each input came from (a value made earlier
// on the tape, or a tensor from outside, kept with its version at that use),
// and the sizes/dtypes of its outputs. Tensors the tape produced are tagged
// (TensorImpl::tape_frame/tape_value); when autograd saves one for backward
// it keeps a stand-in instead of the tensor, so the tensor's memory goes
// when the user releases it. The first backward that unpacks a stand-in
// replays the tape (no grad, up to the last value still wanted when
// early_stop is set) and fills every live stand-in; each is freed when its
// node has run. Outputs of primitives named in the region's keep list are
// kept instead of recomputed (selective checkpointing).
//
// Regions nest: an inner region records onto its outer region's tape (as a
// checkpoint nested in a non-reentrant one is recomputed with it), with its
// own keep list for what it records.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "autograd/node.h"
#include "primitive/primitive.h"

namespace tsr::autograd::checkpoint {

struct Options {
  bool preserve_rng_state = true;  // random primitives replay the same numbers
  bool determinism_check = true;   // replayed sizes/dtypes must match the tape
  bool early_stop = true;          // replay stops once the wanted values exist
  std::vector<std::string> keep_ops;  // primitive op names whose outputs are kept
};

// Opens a region on this thread.
void begin(Options options);
// Closes the innermost region; TSR_ERR_AUTOGRAD when none is open.
void end();
// Regions open on this thread.
size_t depth();

// True while a region is open on this thread (autograd::run asks).
bool recording();
// Appends a primitive run to the open region's tape and tags its outputs.
void record(const prim::PrimitivePtr& p, const prim::Tensors& inputs, const prim::Tensors& outputs);
// Sets this thread's open regions aside while alive: recording() is false
// inside, so a custom function's forward runs as one unit (the ops it calls
// are not taped; the function itself is, and replays as one call).
class RegionsAside {
 public:
  RegionsAside();
  ~RegionsAside();
  RegionsAside(const RegionsAside&) = delete;
  RegionsAside& operator=(const RegionsAside&) = delete;
  // Regions opened inside the scope and still open (the scope drops them).
  size_t left_open() const;

 private:
  std::shared_ptr<void> saved_;
};

// A stand-in for t when t is a value the open region can recompute (and is
// not kept), else null: SavedVariable then keeps t itself.
std::shared_ptr<PackedTensor> pack(const Tensor& t);

}  // namespace tsr::autograd::checkpoint

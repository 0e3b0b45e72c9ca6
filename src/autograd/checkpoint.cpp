#include "autograd/checkpoint.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <unordered_map>

#include "autograd/grad_mode.h"

namespace tsr::autograd::checkpoint {

namespace {

std::atomic<uint64_t> g_next_serial{1};

// Where a tape entry's input comes from.
struct InputRef {
  enum Kind : uint8_t { None, External, Value } kind = None;
  int64_t index = -1;   // Frame::externals index, or value id
  int64_t version = 0;  // External: its version when this entry read it
};

struct Entry {
  prim::PrimitivePtr prim;
  std::vector<InputRef> inputs;
  std::vector<int64_t> outputs;  // value ids
  std::vector<prim::TensorMeta> metas;
  prim::Tensors kept;  // selective checkpointing: outputs kept, not replayed
};

class Frame;

// The stand-in a SavedVariable keeps for a value the tape can recompute.
class Holder final : public PackedTensor {
 public:
  Holder(std::shared_ptr<Frame> frame, int64_t value, const Tensor& original)
      : frame(std::move(frame)), value(value), original(original.impl_ptr()),
        original_version(original.version()) {}
  Tensor unpack() override;
  void check() const override;
  // The original tensor, when something else (the user, the next region's
  // tape) still holds it: then nothing needs recomputing for this holder.
  bool take_original();

  std::shared_ptr<Frame> frame;
  const int64_t value;
  Tensor filled;  // set by replay (or from the original); freed with the holder
  int64_t filled_version = 0;
  std::weak_ptr<TensorImpl> original;
  int64_t original_version;
};

// One outermost region's tape. Lives while the region is open and while any
// stand-in (hence any autograd node that saved one) refers to it.
class Frame : public std::enable_shared_from_this<Frame> {
 public:
  explicit Frame(const Options& o) : serial(g_next_serial.fetch_add(1)), options(o) {}

  void record(const prim::PrimitivePtr& p, const prim::Tensors& inputs, const prim::Tensors& outputs,
              const std::vector<std::string>& keep_ops);
  std::shared_ptr<Holder> pack(const Tensor& t);
  void replay();  // with `mutex` held
  // Throws the version error a replay would hit for a modified input.
  void check_inputs();

  const uint64_t serial;
  const Options options;  // the outermost region's (keep_ops: per region)
  std::mutex mutex;

 private:
  InputRef ref_of(const Tensor& t);
  // The tensor from outside an External ref reads, checked unmodified.
  const Tensor& external(const InputRef& r) const;
  void check_replayed(const Entry& e, const prim::Tensors& outs) const;

  std::vector<Tensor> externals_;
  std::unordered_map<const TensorImpl*, int64_t> external_index_;
  std::vector<Entry> tape_;
  std::vector<int64_t> producer_;      // value id -> tape entry
  std::vector<int64_t> storage_root_;  // value id -> entry that allocated its storage, -1: outside
  std::vector<std::weak_ptr<Holder>> holders_;
};

struct Region {
  std::shared_ptr<Frame> frame;
  std::vector<std::string> keep_ops;
};
thread_local std::vector<Region> t_regions;

InputRef Frame::ref_of(const Tensor& t) {
  if (!t.defined()) return {};
  if (t.impl()->tape_frame == serial) return {InputRef::Value, t.impl()->tape_value, 0};
  auto [it, fresh] = external_index_.try_emplace(t.impl(), int64_t(externals_.size()));
  if (fresh) externals_.push_back(t);
  return {InputRef::External, it->second, t.version()};
}

void Frame::record(const prim::PrimitivePtr& p, const prim::Tensors& inputs,
                   const prim::Tensors& outputs, const std::vector<std::string>& keep_ops) {
  std::lock_guard lock(mutex);
  Entry e{p, {}, {}, {}, {}};
  for (const Tensor& t : inputs) e.inputs.push_back(ref_of(t));
  const int64_t entry = int64_t(tape_.size());
  const int inplace = p->inplace_input();
  int64_t root = entry;  // a fresh output owns fresh storage
  if (inplace >= 0 || p->is_view()) {
    const InputRef& base = e.inputs[inplace >= 0 ? size_t(inplace) : 0];
    root = base.kind == InputRef::Value ? storage_root_[base.index] : -1;
  }
  if (inplace >= 0) {
    // A write into memory from outside the region happened once and must
    // not happen again at replay: it is not recorded, and the tensor it
    // wrote is no longer a value the tape can recompute.
    if (root < 0) {
      outputs[0].impl()->tape_frame = 0;
      return;
    }
    tape_[root].kept.clear();  // a kept value is changing: recompute it instead
  }
  for (const Tensor& t : outputs) {
    const int64_t id = int64_t(producer_.size());
    producer_.push_back(entry);
    storage_root_.push_back(root);
    e.outputs.push_back(id);
    e.metas.push_back(prim::meta_of(t));
    t.impl()->tape_frame = serial;
    t.impl()->tape_value = id;
  }
  if (inplace < 0 && !p->is_view() &&
      std::find(keep_ops.begin(), keep_ops.end(), p->op()) != keep_ops.end())
    e.kept = outputs;
  tape_.push_back(std::move(e));
}

std::shared_ptr<Holder> Frame::pack(const Tensor& t) {
  std::lock_guard lock(mutex);
  const int64_t value = t.impl()->tape_value;
  if (!tape_[producer_[value]].kept.empty()) return nullptr;
  // Forget holders whose nodes are gone, so the list tracks the live ones.
  if ((holders_.size() & (holders_.size() - 1)) == 0 && holders_.size() >= 64)
    std::erase_if(holders_, [](const auto& w) { return w.expired(); });
  auto h = std::make_shared<Holder>(shared_from_this(), value, t);
  holders_.push_back(h);
  return h;
}

const Tensor& Frame::external(const InputRef& r) const {
  const Tensor& t = externals_[r.index];
  // The region read this tensor at version r.version; replaying it in any
  // other state would give other values: PyTorch's version-counter error.
  if (t.version() != r.version) fail_modified(t, t.version(), r.version, "");
  return t;
}

void Frame::check_replayed(const Entry& e, const prim::Tensors& outs) const {
  for (size_t k = 0; k < e.metas.size(); ++k) {
    prim::TensorMeta now = k < outs.size() ? prim::meta_of(outs[k]) : prim::TensorMeta{{}, e.metas[k].dtype};
    if (k < outs.size() && now == e.metas[k]) continue;
    fail(TSR_ERR_AUTOGRAD,
         "checkpoint: recomputed values have different metadata than during the forward pass: "
         "output ", k, " of ", e.prim->op(), " (", e.prim->name(), ") was ",
         dtype_name(e.metas[k].dtype), " ", e.metas[k].sizes, ", recomputed ",
         dtype_name(now.dtype), " ", now.sizes, " (set determinism_check to false to skip this check)");
  }
}

void Frame::replay() {
  // Values wanted: those of every live stand-in not filled yet.
  std::unordered_multimap<int64_t, std::shared_ptr<Holder>> wanted;
  int64_t last = -1;
  for (const auto& w : holders_)
    if (auto h = w.lock(); h && !h->filled.defined() && !h->take_original()) {
      last = std::max(last, producer_[h->value]);
      wanted.emplace(h->value, std::move(h));
    }
  if (wanted.empty()) return;
  if (!options.early_stop) last = int64_t(tape_.size()) - 1;

  // Each replayed value is dropped after the last entry that reads it.
  std::vector<int64_t> last_use(producer_.size(), -1);
  for (int64_t i = 0; i <= last; ++i)
    for (const InputRef& r : tape_[i].inputs)
      if (r.kind == InputRef::Value) last_use[r.index] = i;

  NoGradGuard no_grad;
  std::vector<Tensor> values(producer_.size());
  for (int64_t i = 0; i <= last; ++i) {
    Entry& e = tape_[i];
    prim::Tensors outs;
    if (!e.kept.empty()) {
      outs = e.kept;
    } else {
      prim::Tensors in;
      for (const InputRef& r : e.inputs)
        in.push_back(r.kind == InputRef::Value ? values[r.index]
                     : r.kind == InputRef::External ? external(r) : Tensor());
      if (!options.preserve_rng_state && e.prim->is_random()) e.prim->forget_random_state();
      outs = e.prim->forward(in);
      if (options.determinism_check) check_replayed(e, outs);
    }
    for (size_t k = 0; k < e.outputs.size() && k < outs.size(); ++k) {
      const int64_t id = e.outputs[k];
      auto [from, to] = wanted.equal_range(id);
      for (auto it = from; it != to; ++it) {
        it->second->filled = outs[k];
        it->second->filled_version = outs[k].version();
      }
      if (last_use[id] > i) values[id] = outs[k];
    }
    for (const InputRef& r : e.inputs)
      if (r.kind == InputRef::Value && last_use[r.index] == i) values[r.index] = Tensor();
  }
}

void Frame::check_inputs() {
  std::lock_guard lock(mutex);
  for (const Entry& e : tape_)
    for (const InputRef& r : e.inputs)
      if (r.kind == InputRef::External) external(r);
}

bool Holder::take_original() {
  auto impl = original.lock();
  if (!impl) return false;
  Tensor t(std::move(impl));
  // Written in place since it was saved: the version error, as for a
  // tensor saved outside a region.
  if (t.version() != original_version) fail_modified(t, t.version(), original_version, "");
  filled = detach(t);
  filled_version = filled.version();
  return true;
}

void Holder::check() const {
  if (filled.defined()) return;
  if (auto impl = original.lock()) {
    Tensor t(std::move(impl));
    if (t.version() != original_version) fail_modified(t, t.version(), original_version, "");
    return;
  }
  frame->check_inputs();
}

Tensor Holder::unpack() {
  std::lock_guard lock(frame->mutex);
  if (!filled.defined() && !take_original()) frame->replay();
  TSR_CHECK(filled.defined(), TSR_ERR_INTERNAL, "checkpoint: replay did not recompute value ", value);
  // Written in place after it was recomputed: the forward pass wrote the
  // original after saving it too, which PyTorch's version check refuses.
  if (filled.version() != filled_version) fail_modified(filled, filled.version(), filled_version, "");
  return filled;
}

}  // namespace

void begin(Options options) {
  std::vector<std::string> keep = std::move(options.keep_ops);
  auto frame = t_regions.empty() ? std::make_shared<Frame>(options) : t_regions.back().frame;
  t_regions.push_back({std::move(frame), std::move(keep)});
}

void end() {
  TSR_CHECK(!t_regions.empty(), TSR_ERR_AUTOGRAD,
            "checkpoint end: no checkpoint region is open on this thread (every end needs the "
            "begin of a region opened on the same thread)");
  t_regions.pop_back();
}

size_t depth() { return t_regions.size(); }

bool recording() { return !t_regions.empty(); }

RegionsAside::RegionsAside() {
  auto saved = std::make_shared<std::vector<Region>>(std::move(t_regions));
  t_regions.clear();
  saved_ = std::move(saved);
}

RegionsAside::~RegionsAside() {
  t_regions = std::move(*std::static_pointer_cast<std::vector<Region>>(saved_));
}

size_t RegionsAside::left_open() const { return t_regions.size(); }

void record(const prim::PrimitivePtr& p, const prim::Tensors& inputs, const prim::Tensors& outputs) {
  const Region& r = t_regions.back();
  r.frame->record(p, inputs, outputs, r.keep_ops);
}

std::shared_ptr<PackedTensor> pack(const Tensor& t) {
  if (t_regions.empty()) return nullptr;
  Frame& f = *t_regions.back().frame;
  if (t.impl()->tape_frame != f.serial) return nullptr;
  return f.pack(t);
}

}  // namespace tsr::autograd::checkpoint

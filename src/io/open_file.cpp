#include "io/open_file.h"

#include "core/dtype.h"
#include "core/factory.h"
#include "core/error.h"
#include "core/layout.h"
#include "core/views.h"
#include "io/quote.h"

namespace tsr::io {

std::shared_ptr<OpenedFile> OpenedFile::open(const std::string& path, const LoadSettings& settings) {
  auto f = std::make_shared<OpenedFile>();
  f->path_ = path;
  f->ix_ = naming_file(path, [&] { return read_index(path, settings); });
  const ReadFile& file = *f->ix_.file;
  if (!f->ix_.zstd && file.size() > f->ix_.data_start)
    f->map_ = MappedFile::map(file.fd(), file.size(), path);
  const std::vector<TensorEntry>& entries = f->ix_.header.tensors;
  std::vector<std::string> names;
  std::vector<int64_t> numels;
  for (const TensorEntry& e : entries) {
    names.push_back(e.name);
    numels.push_back(e.numel);
  }
  f->listed_.metadata = f->ix_.header.metadata;
  f->views_ = naming_file(path, [&] { return parse_views(f->listed_.metadata, names, numels); });
  f->shared_.assign(entries.size(), false);
  for (const ViewSpec& v : f->views_) f->shared_[v.storage] = true;
  for (size_t i = 0; i < entries.size(); ++i) {
    if (hidden_storage(entries[i].name, i, f->views_)) continue;
    f->listed_.tensors.push_back(entries[i]);
    f->source_.push_back(int64_t(i));
  }
  for (size_t k = 0; k < f->views_.size(); ++k) {
    const ViewSpec& v = f->views_[k];
    const TensorEntry& s = entries[v.storage];
    int64_t numel = 1;
    for (int64_t n : v.sizes) numel *= n;  // checked by parse_views
    f->listed_.tensors.push_back(
        TensorEntry{v.name, s.dtype, v.sizes, numel, numel * element_size(s.dtype), 0, 0});
    f->source_.push_back(-1 - int64_t(k));
  }
  for (size_t i = 0; i < f->listed_.tensors.size(); ++i)
    f->by_name_.emplace(f->listed_.tensors[i].name, i);
  return f;
}

Tensor OpenedFile::shared_entry(size_t i) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = made_.find(i);
  if (it == made_.end()) it = made_.emplace(i, get_entry(i)).first;
  return it->second;
}

Tensor OpenedFile::get(size_t i) const {
  const int64_t src = source_.at(i);
  if (src >= 0 && !shared_[size_t(src)]) return get_entry(size_t(src));
  if (src >= 0) {  // a new handle on the one tensor its views share
    const Tensor base = shared_entry(size_t(src));
    return make_view(base, base.sizes(), base.strides(), base.storage_offset());
  }
  const ViewSpec& v = views_[size_t(-1 - src)];
  const Tensor base = shared_entry(v.storage);
  return make_view(base, v.sizes, v.strides, base.storage_offset() + v.offset);
}

Tensor OpenedFile::get_rows(size_t i, int64_t start, int64_t stop) const {
  const TensorEntry& e = listed_.tensors.at(i);
  const std::string who = str("rows [", start, ", ", stop, ") of tensor ", json_quoted(e.name));
  TSR_CHECK(!e.shape.empty(), TSR_ERR_INVALID_ARGUMENT, who, ": the tensor is 0-dim, it has no rows");
  const int64_t rows = e.shape[0];
  TSR_CHECK(start >= 0 && stop >= 0, TSR_ERR_INVALID_ARGUMENT, who,
            ": start and stop must not be negative");
  TSR_CHECK(start <= stop, TSR_ERR_INVALID_ARGUMENT, who, ": start is after stop");
  TSR_CHECK(stop <= rows, TSR_ERR_INVALID_ARGUMENT, who, ": stop exceeds the ", rows,
            " rows of dim 0");
  const int64_t src = source_.at(i);
  if (!ix_.zstd || src < 0 || shared_[size_t(src)])  // a view of the whole tensor
    return views::narrow(get(i), 0, start, stop - start);
  Shape sizes = e.shape;
  sizes[0] = stop - start;
  Tensor t = empty(sizes, e.dtype, TSR_CONTIGUOUS_FORMAT, kCpu);
  // e.nbytes / rows bytes a row (a tensor with rows has whole rows of bytes).
  const uint64_t row_bytes = rows == 0 ? 0 : uint64_t(e.nbytes) / uint64_t(rows);
  naming_file(path_, [&] {
    read_tensor_range(ix_, size_t(src), uint64_t(start) * row_bytes, uint64_t(stop) * row_bytes,
                      t.data_ptr());
  });
  return t;
}

int64_t OpenedFile::find(const std::string& name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? -1 : int64_t(it->second);
}

Tensor OpenedFile::get_entry(size_t i) const {
  return naming_file(path_, [&] {
    const TensorEntry& e = ix_.header.tensors.at(i);
    const uint64_t offset = ix_.data_start + e.begin;
    // A view needs the mapping and an address aligned for the element
    // type (kernels load elements as T); other tensors are read.
    if (!map_ || e.nbytes == 0 || offset % uint64_t(element_size(e.dtype)) != 0)
      return read_tensor(ix_, i);
    // The storage keeps the mapping alive: one shared_ptr per storage,
    // freed by the deleter when the last tensor viewing it goes.
    auto* keep = new std::shared_ptr<MappedFile>(map_);
    Tensor t = from_blob(map_->data() + offset, e.shape, nullptr, e.dtype, kCpu,
                         [](void*, void* ctx) { delete static_cast<std::shared_ptr<MappedFile>*>(ctx); },
                         keep);
    t.storage()->set_read_only();
    check_tensor_bytes(ix_, i, t);
    return t;
  });
}

}  // namespace tsr::io

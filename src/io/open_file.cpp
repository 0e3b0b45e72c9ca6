#include "io/open_file.h"

#include "core/dtype.h"
#include "core/factory.h"
#include "core/layout.h"

namespace tsr::io {

std::shared_ptr<OpenedFile> OpenedFile::open(const std::string& path, const LoadSettings& settings) {
  auto f = std::make_shared<OpenedFile>();
  f->path_ = path;
  f->ix_ = naming_file(path, [&] { return read_index(path, settings); });
  const ReadFile& file = *f->ix_.file;
  if (!f->ix_.zstd && file.size() > f->ix_.data_start)
    f->map_ = MappedFile::map(file.fd(), file.size(), path);
  for (size_t i = 0; i < f->ix_.header.tensors.size(); ++i)
    f->by_name_.emplace(f->ix_.header.tensors[i].name, i);
  return f;
}

int64_t OpenedFile::find(const std::string& name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? -1 : int64_t(it->second);
}

Tensor OpenedFile::get(size_t i) const {
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

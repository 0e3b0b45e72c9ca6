// C API: checkpoints opened lazily (file.h).
#include <iterator>

#include <tessera/file.h>

#include "capi/barrier.h"
#include "capi/handles.h"
#include "capi/load_settings.h"
#include "io/open_file.h"

struct tsr_file {
  explicit tsr_file(std::shared_ptr<tsr::io::OpenedFile> f) : file(std::move(f)) {}
  std::atomic<int64_t> refs{1};
  std::shared_ptr<tsr::io::OpenedFile> file;
};

using namespace tsr;
using namespace tsr::capi;

namespace {

const io::OpenedFile& file_of(const tsr_file* f) { return *require(f, "file")->file; }

const std::pair<const std::string, std::string>& metadata_at(const tsr_file* f, int64_t i) {
  const auto& md = file_of(f).header().metadata;
  return *std::next(md.begin(), ptrdiff_t(checked_index(i, md.size(), "metadata")));
}

}  // namespace

TSR_EXTERN tsr_status tsr_open_file(const char* path, const tsr_load_options* opts, tsr_file** out) {
  return guarded([&] {
    require(path, "path");
    require(out, "out");
    auto f = io::OpenedFile::open(path, load_settings(opts));
    *out = new tsr_file(std::move(f));
  });
}

TSR_EXTERN void tsr_file_retain(tsr_file* f) { retain(f); }
TSR_EXTERN void tsr_file_release(tsr_file* f) { release(f); }

TSR_EXTERN int64_t tsr_file_count(const tsr_file* f) {
  return guarded_value<int64_t>(-1, [&] { return int64_t(file_of(f).header().tensors.size()); });
}

TSR_EXTERN const char* tsr_file_name(const tsr_file* f, int64_t i) {
  return guarded_value<const char*>(nullptr, [&] {
    const auto& t = file_of(f).header().tensors;
    return t[checked_index(i, t.size(), "tensor")].name.c_str();
  });
}

TSR_EXTERN int64_t tsr_file_find(const tsr_file* f, const char* name) {
  return guarded_value<int64_t>(-1, [&] { return file_of(f).find(require(name, "name")); });
}

TSR_EXTERN tsr_status tsr_file_tensor_info(const tsr_file* f, int64_t i, tsr_dtype* dtype,
                                           int64_t* ndim, const int64_t** sizes) {
  return guarded([&] {
    const auto& t = file_of(f).header().tensors;
    const io::TensorEntry& e = t[checked_index(i, t.size(), "tensor")];
    static const int64_t kNoDims[1] = {0};
    if (dtype) *dtype = e.dtype;
    if (ndim) *ndim = int64_t(e.shape.size());
    if (sizes) *sizes = e.shape.empty() ? kNoDims : e.shape.data();
  });
}

TSR_EXTERN tsr_status tsr_file_get(const tsr_file* f, int64_t i, tsr_tensor** out) {
  return guarded([&] {
    const io::OpenedFile& file = file_of(f);
    require(out, "out");
    emit(out, file.get(checked_index(i, file.header().tensors.size(), "tensor")));
  });
}

TSR_EXTERN tsr_status tsr_file_get_by_name(const tsr_file* f, const char* name, tsr_tensor** out) {
  return guarded([&] {
    const io::OpenedFile& file = file_of(f);
    require(name, "name");
    require(out, "out");
    const int64_t i = file.find(name);
    TSR_CHECK(i >= 0, TSR_ERR_INVALID_ARGUMENT, "no tensor named \"", name, "\" in the file (",
              file.header().tensors.size(), " tensors)");
    emit(out, file.get(size_t(i)));
  });
}

TSR_EXTERN tsr_status tsr_file_get_slice(const tsr_file* f, int64_t i, int64_t start, int64_t stop,
                                         tsr_tensor** out) {
  return guarded([&] {
    const io::OpenedFile& file = file_of(f);
    require(out, "out");
    emit(out, file.get_rows(checked_index(i, file.header().tensors.size(), "tensor"), start, stop));
  });
}

TSR_EXTERN int64_t tsr_file_metadata_count(const tsr_file* f) {
  return guarded_value<int64_t>(-1, [&] { return int64_t(file_of(f).header().metadata.size()); });
}
TSR_EXTERN const char* tsr_file_metadata_key(const tsr_file* f, int64_t i) {
  return guarded_value<const char*>(nullptr, [&] { return metadata_at(f, i).first.c_str(); });
}
TSR_EXTERN const char* tsr_file_metadata_value(const tsr_file* f, int64_t i) {
  return guarded_value<const char*>(nullptr, [&] { return metadata_at(f, i).second.c_str(); });
}
TSR_EXTERN const char* tsr_file_metadata_get(const tsr_file* f, const char* key) {
  return guarded_value<const char*>(nullptr, [&]() -> const char* {
    const auto& md = file_of(f).header().metadata;
    auto it = md.find(require(key, "key"));
    return it == md.end() ? nullptr : it->second.c_str();
  });
}

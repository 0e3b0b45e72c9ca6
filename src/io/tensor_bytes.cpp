#include "io/tensor_bytes.h"

#include "core/dtype.h"
#include "core/error.h"
#include "core/layout.h"
#include "cpu/kernels/copy.h"
#include "device/transfer.h"
#include "io/bool_bytes.h"
#include "io/chunked_codec.h"
#include "io/gathered_writes.h"
#include "io/posix_file.h"
#include "io/quote.h"
#include "io/utf8.h"
#include "io/zstd_frame.h"

namespace tsr::io {

void check_text(const std::string& s, const char* what) {
  size_t bad = first_invalid_utf8(s);
  TSR_CHECK(bad == std::string::npos, TSR_ERR_INVALID_ARGUMENT, what, " is not valid UTF-8 (byte ",
            bad, ")");
}

void check_tensor_name(const std::string& name) {
  TSR_CHECK(!name.empty(), TSR_ERR_INVALID_ARGUMENT, "tensor names must not be empty");
  check_text(name, "tensor name");
  TSR_CHECK(name != "__metadata__", TSR_ERR_INVALID_ARGUMENT,
            "\"__metadata__\" is reserved by safetensors and cannot name a tensor");
}

void check_metadata_and_level(const SaveSettings& settings) {
  for (const auto& [k, v] : settings.metadata) {
    TSR_CHECK(!k.empty(), TSR_ERR_INVALID_ARGUMENT, "metadata keys must not be empty");
    check_text(k, "metadata key");
    check_text(v, "metadata value");
    TSR_CHECK(k.rfind("tessera.", 0) != 0, TSR_ERR_INVALID_ARGUMENT, "metadata key ", json_quoted(k),
              " uses the reserved prefix \"tessera.\"");
  }
  if (settings.compression != TSR_COMPRESSION_NONE) check_zstd_level(settings.level);
}

const char* c_order_bytes(const std::string& name, const Tensor& t, Tensor& hold) {
  hold = device::readable_on_host(t);  // the tensor itself on the host
  if (!is_contiguous_strides(hold.sizes(), hold.strides()))
    hold = kernels::contiguous_copy(hold, hold.dtype());
  const char* p = static_cast<const char*>(hold.data_ptr());
  if (hold.dtype() == TSR_BOOL) {
    int64_t bad = first_non_bool_byte(p, hold.nbytes());
    TSR_CHECK(bad < 0, TSR_ERR_INVALID_ARGUMENT, "bool tensor ", json_quoted(name), " holds byte ",
              int(static_cast<unsigned char>(p[bad])), " at element ", bad,
              " (C order); bools must be 0 or 1");
  }
  return p;
}

std::string length_prefix(uint64_t n) {
  std::string s(8, '\0');
  for (int i = 0; i < 8; ++i) s[i] = char((n >> (8 * i)) & 0xff);
  return s;
}

EncodedTensor write_compressed(AtomicWriter& w, const char* p, size_t n, tsr_dtype dtype,
                               const SaveSettings& settings) {
  EncodedTensor out;
  if (settings.compression == TSR_COMPRESSION_ZSTD_PLANES) {
    planes::EncodeOptions opt;
    opt.level = settings.level;
    opt.transform = planes::default_transform(dtype);
    const planes::Encoded enc = planes::encode(p, n, size_t(element_size(dtype)), opt, [&](const void* d, size_t len) {
      w.write(static_cast<const char*>(d), len);
    });
    out.length = enc.length;
    out.hash = enc.file_hash;
  } else {
    out.length = write_frame(w, p, n, settings.level, &out.hash);
  }
  return out;
}

void write_planes(AtomicWriter& w, const std::vector<PlanesItem>& items, const SaveSettings& settings,
                  const std::function<void(size_t i, uint64_t begin, const EncodedTensor& enc)>& done) {
  std::vector<planes::EncodeInput> in;
  in.reserve(items.size());
  for (const PlanesItem& it : items) {
    planes::EncodeOptions opt;
    opt.level = settings.level;
    opt.transform = planes::default_transform(it.dtype);
    in.push_back(planes::EncodeInput{it.p, it.n, size_t(element_size(it.dtype)), opt});
  }
  // Large pieces (chunks) go out as they are; small ones (indexes, small
  // tensors) are gathered.
  GatheredWrites out(w);
  uint64_t pos = w.offset();
  planes::encode_many(
      in, [&](const void* d, size_t len) { out.write(d, len); },
      [&](size_t i, const planes::Encoded& e) {
        done(i, pos, EncodedTensor{e.length, e.file_hash});
        pos += e.length;
      });
  out.flush();
}

}  // namespace tsr::io

// What tsr_save (save.cpp) and tsr_saver (saver.cpp) do alike for each
// tensor and for the file's metadata: the checks of names and metadata,
// a tensor's C-order host bytes, the header's length prefix, and the
// encoding of a tensor's bytes in a compressed mode.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "io/save.h"

namespace tsr::io {

class AtomicWriter;

// TSR_ERR_INVALID_ARGUMENT unless s is valid UTF-8; `what` names s.
void check_text(const std::string& s, const char* what);
// A tensor name safetensors accepts: non-empty UTF-8, not "__metadata__"
// (TSR_ERR_INVALID_ARGUMENT otherwise; uniqueness is the caller's check).
void check_tensor_name(const std::string& name);
// The user's metadata (non-empty UTF-8 keys and values, none under the
// reserved "tessera." prefix) and the compression level.
void check_metadata_and_level(const SaveSettings& settings);
// The C-order bytes of t: its own memory when it is contiguous on the host,
// otherwise a contiguous host copy kept alive in `hold` (a device tensor is
// copied here, one at a time, as torch.save moves each storage to the CPU).
// A bool tensor's bytes must be 0 or 1 (name is for the message).
const char* c_order_bytes(const std::string& name, const Tensor& t, Tensor& hold);
// safetensors' 8-byte little-endian header length.
std::string length_prefix(uint64_t n);

// The n bytes at p of a dtype tensor written at w's position in a
// compressed mode (TSR_COMPRESSION_ZSTD: one frame, format 0.1;
// TSR_COMPRESSION_ZSTD_PLANES: chunked byte planes, format 0.2): the bytes
// written and the tensor's entry in "tessera.checksum".
struct EncodedTensor {
  uint64_t length = 0, hash = 0;
};
EncodedTensor write_compressed(AtomicWriter& w, const char* p, size_t n, tsr_dtype dtype,
                               const SaveSettings& settings);

// Several tensors' C-order bytes written one after another at w's position
// in the zstd-planes mode, their chunks compressed together on the thread
// pool (planes::encode_many); done(i, begin, encoded) is called, on this
// thread, once tensor i is encoded, with its file offset (w's offsets),
// its bytes possibly still buffered. Small pieces are gathered into few
// writes (io/gathered_writes.h); all of them are written when this
// returns.
struct PlanesItem {
  const char* p;
  size_t n;
  tsr_dtype dtype;
};
void write_planes(AtomicWriter& w, const std::vector<PlanesItem>& items, const SaveSettings& settings,
                  const std::function<void(size_t i, uint64_t begin, const EncodedTensor& enc)>& done);

}  // namespace tsr::io

#include "io/saver.h"

#include <algorithm>
#include <limits>

#include "core/error.h"
#include "core/layout.h"
#include "cpu/kernels/copy.h"
#include "device/transfer.h"
#include "io/bool_bytes.h"
#include "io/checksum.h"
#include "io/chunked_codec.h"
#include "io/posix_file.h"
#include "io/quote.h"
#include "io/utf8.h"
#include "io/tensor_bytes.h"
#include "io/zstd_frame.h"

namespace tsr::io {

namespace {

constexpr uint64_t kMaxOffset = uint64_t(std::numeric_limits<int64_t>::max());
constexpr size_t kWriteChunk = size_t(16) << 20;  // progress granularity

uint64_t round8(uint64_t n) { return (n + kHeaderAlign - 1) / kHeaderAlign * kHeaderAlign; }

}  // namespace

Saver::Saver(const std::string& path, SaveSettings settings)
    : path_(path), settings_(std::move(settings)) {
  TSR_CHECK(settings_.max_shard_size == 0, TSR_ERR_UNSUPPORTED,
            "a tsr_saver writes one file: max_shard_size must be 0 (it is ",
            settings_.max_shard_size, "); use tsr_save() for a sharded checkpoint");
  check_metadata_and_level(settings_);
  const bool planes = settings_.compression == TSR_COMPRESSION_ZSTD_PLANES;
  h_.metadata = settings_.metadata;
  if (settings_.compression != TSR_COMPRESSION_NONE)
    h_.metadata[kCompressionKey] = planes ? kCompressionZstdPlanes : kCompressionZstd;
  if (planes) h_.metadata[kFormatKey] = kFormatPlanes;
  if (settings_.checksums) {
    h_.metadata[kChecksumKey] = checksum_placeholder(0);
    per_tensor_checksum_ = checksum_placeholder(1).size() - checksum_placeholder(0).size();
  }
  estimate_ = serialize_header(h_).size();
  reserve_ = std::max(kInitialReserve, round8(estimate_));
  settings_.progress.report(0, 0, str("save of '", path_, "'"));
  w_ = std::make_unique<AtomicWriter>(path_);
  w_->seek(8 + reserve_);
}

Saver::~Saver() = default;  // an uncommitted writer removes its file

void Saver::check_usable(const char* call) const {
  TSR_CHECK(state_ != State::kCommitted, TSR_ERR_INVALID_ARGUMENT, call, ": the saver of '", path_,
            "' was already committed");
  TSR_CHECK(state_ != State::kFailed, TSR_ERR_INVALID_ARGUMENT, call, ": the saver of '", path_,
            "' was abandoned after an earlier failure (", failure_, "); nothing was written");
}

template <typename F>
void Saver::or_abandon(F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    state_ = State::kFailed;
    failure_ = e.what();
    w_.reset();  // removes the temporary; the target is untouched
    throw;
  }
}

void Saver::grow_reserve(uint64_t needed) {
  uint64_t r = reserve_;
  while (r < needed) r *= 2;
  TSR_CHECK(r <= kMaxHeaderBytes, TSR_ERR_INVALID_ARGUMENT, "the header of '", path_,
            "' would exceed ", kMaxHeaderBytes, " bytes (safetensors' limit)");
  // Move [8 + reserve_, + data_end_) to 8 + r, last chunk first (the ranges
  // overlap when the data is longer than the shift).
  const uint64_t from = 8 + reserve_, to = 8 + r;
  std::vector<char> buf(std::min<uint64_t>(kMoveChunk, std::max<uint64_t>(data_end_, 1)));
  for (uint64_t left = data_end_; left > 0;) {
    const uint64_t n = std::min<uint64_t>(buf.size(), left);
    left -= n;
    w_->read_at(buf.data(), size_t(n), from + left);
    w_->seek(to + left);
    w_->write(buf.data(), size_t(n));
  }
  reserve_ = r;
  w_->seek(to + data_end_);
}

void Saver::add(const std::string& name, const Tensor& tensor) {
  check_usable("tsr_saver_add");
  check_tensor_name(name);
  TSR_CHECK(!names_.count(name), TSR_ERR_INVALID_ARGUMENT, "duplicate tensor name ",
            json_quoted(name), " (already added to the saver of '", path_, "')");
  Tensor hold;
  const char* p = c_order_bytes(name, tensor, hold);  // nothing written yet
  TensorEntry e{name, tensor.dtype(), tensor.sizes(), tensor.numel(), tensor.nbytes(), kMaxOffset,
                kMaxOffset};
  Header one;
  one.tensors.push_back(e);
  const uint64_t entry_bound = serialize_header(one).size() + per_tensor_checksum_;
  const size_t n = size_t(tensor.nbytes());
  names_.insert(name);
  or_abandon([&] {
    estimate_ += entry_bound;
    if (estimate_ > reserve_) grow_reserve(estimate_);
    const std::string what = str("save of '", path_, "'");
    const uint64_t done0 = total_;
    total_ += n;
    const uint64_t data_start = 8 + reserve_;
    e.begin = data_end_;
    if (settings_.compression == TSR_COMPRESSION_ZSTD_PLANES) {
      const size_t entry = h_.tensors.size();
      h_.tensors.push_back(e);  // offsets set when written
      hashes_.push_back(0);
      if (n <= planes::kChunkBytes) {
        pending_.push_back(Pending{entry, std::string(p, n), e.dtype});
        pending_bytes_ += n;
        if (pending_bytes_ >= kPendingBytes) flush_pending();
      } else {  // after the held ones, keeping the add order; not copied
        flush_pending();
        write_entries({PlanesItem{p, n, e.dtype}}, {entry});
      }
      settings_.progress.report(total_, total_, what);
      return;
    }
    if (settings_.compression != TSR_COMPRESSION_NONE) {
      const EncodedTensor enc = write_compressed(*w_, p, n, e.dtype, settings_);
      e.end = e.begin + enc.length;
      hashes_.push_back(enc.hash);
    } else {
      if (settings_.checksums) hashes_.push_back(content_hash(p, n));
      else hashes_.push_back(0);
      for (size_t k = 0; k < n; k += kWriteChunk) {
        const size_t m = std::min(kWriteChunk, n - k);
        w_->write(p + k, m);
        if (k + m < n) settings_.progress.report(done0 + k + m, total_, what);
      }
      e.end = e.begin + n;
    }
    data_end_ = e.end;
    w_->seek(data_start + data_end_);
    h_.tensors.push_back(e);
    settings_.progress.report(total_, total_, what);
  });
}

void Saver::write_entries(const std::vector<PlanesItem>& items, const std::vector<size_t>& entries) {
  const uint64_t data_start = 8 + reserve_;
  w_->seek(data_start + data_end_);
  write_planes(*w_, items, settings_, [&](size_t k, uint64_t begin, const EncodedTensor& enc) {
    TensorEntry& e = h_.tensors[entries[k]];
    e.begin = begin - data_start;
    e.end = e.begin + enc.length;
    hashes_[entries[k]] = enc.hash;
    data_end_ = e.end;
  });
}

void Saver::flush_pending() {
  if (pending_.empty()) return;
  std::vector<PlanesItem> items;
  std::vector<size_t> entries;
  for (const Pending& q : pending_) {
    items.push_back(PlanesItem{q.bytes.data(), q.bytes.size(), q.dtype});
    entries.push_back(q.entry);
  }
  write_entries(items, entries);
  pending_.clear();
  pending_bytes_ = 0;
}

void Saver::commit() {
  check_usable("tsr_saver_commit");
  or_abandon([&] {
    flush_pending();
    // File order, as the checksum entry lists tensors (by begin, end, name).
    std::vector<size_t> order(h_.tensors.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      const TensorEntry &x = h_.tensors[a], &y = h_.tensors[b];
      if (x.begin != y.begin) return x.begin < y.begin;
      if (x.end != y.end) return x.end < y.end;
      return x.name < y.name;
    });
    Header h;
    h.metadata = h_.metadata;
    std::vector<uint64_t> hashes;
    for (size_t i : order) {
      h.tensors.push_back(h_.tensors[i]);
      hashes.push_back(hashes_[i]);
    }
    if (settings_.checksums) h.metadata[kChecksumKey] = checksum_value(hashes);
    std::string header = serialize_header(h);
    TSR_CHECK(header.size() <= reserve_, TSR_ERR_INTERNAL, "saver header of ", header.size(),
              " bytes exceeds its reservation of ", reserve_);
    header.resize(reserve_, ' ');
    if (settings_.checksums) seal_header(header);  // over the padding too
    const std::string prefix = length_prefix(header.size());
    w_->seek(0);
    w_->write(prefix.data(), prefix.size());
    w_->write(header.data(), header.size());
    w_->truncate(8 + reserve_ + data_end_);  // a rewritten frame may have left bytes
    settings_.progress.report(total_, total_, str("save of '", path_, "'"));
    w_->commit();
  });
  state_ = State::kCommitted;
  w_.reset();
}

}  // namespace tsr::io

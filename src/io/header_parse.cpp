// SAX parser for the safetensors header. Building no DOM keeps memory near
// the size of the result, and each value is checked as it arrives, so a
// crafted header (deep nesting, huge arrays, repeated keys) is rejected at
// the first offending token.
#include <limits>
#include <unordered_set>

#include <nlohmann/json.hpp>

#include "core/dtype.h"
#include "core/error.h"
#include "io/header.h"
#include "io/quote.h"
#include "io/st_dtype.h"

namespace tsr::io {

namespace {

using json = nlohmann::json;

class HeaderSax {
 public:
  explicit HeaderSax(Header& out) : out_(out) {}

  tsr_status status = TSR_OK;
  std::string message;

  bool null() {
    if (state_ == State::kSkip) return skipped_scalar();
    if (state_ == State::kMetaValue) {  // "__metadata__": null, as serde's Option
      state_ = State::kRoot;
      return true;
    }
    return unexpected("null");
  }
  bool boolean(bool) {
    if (state_ == State::kSkip) return skipped_scalar();
    return unexpected("a boolean");
  }
  bool number_integer(json::number_integer_t v) {
    if (state_ == State::kSkip) return skipped_scalar();
    return bad_number(str("negative number ", v));
  }
  bool number_float(json::number_float_t, const std::string& s) {
    if (state_ == State::kSkip) return skipped_scalar();
    return bad_number(str("non-integer number ", s));
  }
  bool number_unsigned(json::number_unsigned_t v) {
    if (state_ == State::kSkip) return skipped_scalar();
    if (state_ != State::kShape && state_ != State::kOffsets) return unexpected("a number");
    if (v > uint64_t(std::numeric_limits<int64_t>::max()))
      return bad_number(str("number ", v, " above 2^63-1"));
    TensorEntry& e = out_.tensors.back();
    if (state_ == State::kShape) {
      if (int64_t(e.shape.size()) >= kMaxDims)
        return error(TSR_ERR_UNSUPPORTED, "tensor ", json_quoted(e.name), " has more than ", kMaxDims,
                     " dims, the most tessera supports");
      e.shape.push_back(int64_t(v));
    } else {
      if (offsets_seen_ >= 2)
        return error(TSR_ERR_CORRUPT_FILE, "tensor ", json_quoted(e.name),
                     ": data_offsets must hold exactly 2 numbers, got more");
      (offsets_seen_ == 0 ? e.begin : e.end) = v;
      ++offsets_seen_;
    }
    return true;
  }
  bool string(std::string& v) {
    if (state_ == State::kSkip) return skipped_scalar();
    if (state_ == State::kMetaString) {
      if (!no_nul(v, "__metadata__ value of key ", json_quoted(pending_key_))) return false;
      out_.metadata.emplace(std::move(pending_key_), std::move(v));
      state_ = State::kMeta;
      return true;
    }
    if (state_ == State::kDtype) return set_dtype(v);
    return unexpected("a string");
  }
  bool binary(json::binary_t&) { return unexpected("binary data"); }

  bool start_object(std::size_t) {
    switch (state_) {
      case State::kSkip: ++skip_depth_; return true;
      case State::kStart: state_ = State::kRoot; return true;
      case State::kMetaValue: state_ = State::kMeta; return true;
      case State::kTensorValue: state_ = State::kTensor; fields_ = 0; return true;
      default: return unexpected("an object");
    }
  }
  bool end_object() {
    switch (state_) {
      case State::kSkip: return skipped_end();
      case State::kRoot: state_ = State::kDone; return true;
      case State::kMeta: state_ = State::kRoot; return true;
      case State::kTensor: {
        const TensorEntry& e = out_.tensors.back();
        const char* missing = !(fields_ & kDtypeBit)     ? "dtype"
                              : !(fields_ & kShapeBit)   ? "shape"
                              : !(fields_ & kOffsetsBit) ? "data_offsets"
                                                         : nullptr;
        if (missing)
          return error(TSR_ERR_CORRUPT_FILE, "tensor ", json_quoted(e.name), " has no \"", missing,
                       "\" field");
        state_ = State::kRoot;
        return true;
      }
      default: return unexpected("the end of an object");
    }
  }
  bool start_array(std::size_t) {
    if (state_ == State::kSkip) { ++skip_depth_; return true; }
    if (state_ == State::kShapeStart) { state_ = State::kShape; return true; }
    if (state_ == State::kOffsetsStart) {
      state_ = State::kOffsets;
      offsets_seen_ = 0;
      return true;
    }
    return unexpected("an array");
  }
  bool end_array() {
    if (state_ == State::kSkip) return skipped_end();
    if (state_ == State::kShape) { state_ = State::kTensor; return true; }
    if (state_ == State::kOffsets) {
      if (offsets_seen_ != 2)
        return error(TSR_ERR_CORRUPT_FILE, "tensor ", json_quoted(out_.tensors.back().name),
                     ": data_offsets must hold exactly 2 numbers, got ", offsets_seen_);
      state_ = State::kTensor;
      return true;
    }
    return unexpected("the end of an array");
  }

  bool key(std::string& k) {
    switch (state_) {
      case State::kSkip: return true;  // a key inside an ignored value
      case State::kRoot:
        if (!no_nul(k, "tensor name ", json_quoted(k))) return false;
        if (!root_keys_.insert(k).second)
          return error(TSR_ERR_CORRUPT_FILE, "duplicate key ", json_quoted(k), " in the header");
        if (k == "__metadata__") {
          state_ = State::kMetaValue;
        } else {
          out_.tensors.push_back(TensorEntry{std::move(k), TSR_UINT8, {}, 0, 0, 0, 0});
          state_ = State::kTensorValue;
        }
        return true;
      case State::kMeta:
        if (!no_nul(k, "__metadata__ key ", json_quoted(k))) return false;
        if (out_.metadata.count(k))
          return error(TSR_ERR_CORRUPT_FILE, "duplicate key ", json_quoted(k), " in __metadata__");
        pending_key_ = std::move(k);
        state_ = State::kMetaString;
        return true;
      case State::kTensor: return tensor_field(k);
      default: return unexpected("a key");
    }
  }

  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& ex) {
    if (status == TSR_OK)  // keep our own, more precise error if we aborted
      error(TSR_ERR_CORRUPT_FILE, "header is not valid JSON (byte ", position, "): ",
            printable(ex.what()));
    return false;
  }

 private:
  enum class State {
    kStart, kRoot, kMetaValue, kMeta, kMetaString, kTensorValue, kTensor,
    kDtype, kShapeStart, kShape, kOffsetsStart, kOffsets, kDone,
    kSkip  // inside the value of an unknown tensor field (skip_depth_ deep)
  };
  static constexpr unsigned kDtypeBit = 1, kShapeBit = 2, kOffsetsBit = 4;

  template <typename... Args>
  bool error(tsr_status st, const Args&... args) {
    status = st;
    message = str(args...);
    return false;  // stops the parser
  }

  // Where we are, for messages.
  std::string context() const {
    switch (state_) {
      case State::kStart: return "the header root (must be an object)";
      case State::kMetaValue: return "__metadata__ (must be an object of strings)";
      case State::kMetaString: return str("__metadata__[", json_quoted(pending_key_), "] (must be a string)");
      case State::kTensorValue: return str("tensor ", json_quoted(out_.tensors.back().name), " (must be an object)");
      case State::kDtype: return str("tensor ", json_quoted(out_.tensors.back().name), " dtype (must be a string)");
      case State::kShapeStart: case State::kShape:
        return str("tensor ", json_quoted(out_.tensors.back().name), " shape (must be an array of integers)");
      case State::kOffsetsStart: case State::kOffsets:
        return str("tensor ", json_quoted(out_.tensors.back().name),
                   " data_offsets (must be an array of 2 integers)");
      default: return "the header";
    }
  }
  bool unexpected(const char* what) {
    return error(TSR_ERR_CORRUPT_FILE, "unexpected ", what, " in ", context());
  }
  bool bad_number(const std::string& what) {
    if (state_ != State::kShape && state_ != State::kOffsets) return unexpected("a number");
    return error(TSR_ERR_CORRUPT_FILE, what, " in ", context());
  }

  // A NUL (\u0000 in the JSON) would make two different names equal for
  // every C caller ("a\u0000x" reads as "a") and hide the rest of a value.
  template <typename... Args>
  bool no_nul(const std::string& v, const Args&... what) {
    const size_t at = v.find('\0');
    if (at == std::string::npos) return true;
    return error(TSR_ERR_CORRUPT_FILE, what..., " contains a NUL character (\\u0000) at byte ", at);
  }

  // The value of an unknown field ends with a scalar at depth 0 or with
  // the end of the array or object that opened it.
  bool skipped_scalar() {
    if (skip_depth_ == 0) state_ = State::kTensor;
    return true;
  }
  bool skipped_end() {
    if (--skip_depth_ == 0) state_ = State::kTensor;
    return true;
  }

  bool tensor_field(const std::string& k) {
    const std::string& name = out_.tensors.back().name;
    unsigned bit;
    State next;
    if (k == "dtype") { bit = kDtypeBit; next = State::kDtype; }
    else if (k == "shape") { bit = kShapeBit; next = State::kShapeStart; }
    else if (k == "data_offsets") { bit = kOffsetsBit; next = State::kOffsetsStart; }
    else {
      // The reference reader (serde without deny_unknown_fields) ignores
      // fields it does not know, whatever their value: so do we.
      state_ = State::kSkip;
      skip_depth_ = 0;
      return true;
    }
    if (fields_ & bit)
      return error(TSR_ERR_CORRUPT_FILE, "tensor ", json_quoted(name), " has duplicate field ", json_quoted(k));
    fields_ |= bit;
    state_ = next;
    return true;
  }

  bool set_dtype(const std::string& v) {
    TensorEntry& e = out_.tensors.back();
    switch (st_dtype_from_name(v, &e.dtype)) {
      case DtypeLookup::kFound: state_ = State::kTensor; return true;
      case DtypeLookup::kUnsupported:
        return error(TSR_ERR_UNSUPPORTED, "tensor ", json_quoted(e.name), " has dtype ", json_quoted(v),
                     ", which tessera does not support");
      case DtypeLookup::kUnknown: break;
    }
    return error(TSR_ERR_CORRUPT_FILE, "tensor ", json_quoted(e.name), " has unknown dtype ", json_quoted(v));
  }

  Header& out_;
  State state_ = State::kStart;
  unsigned fields_ = 0;
  int offsets_seen_ = 0;
  size_t skip_depth_ = 0;
  std::string pending_key_;
  std::unordered_set<std::string> root_keys_;
};

// numel and nbytes of e, with the overflow checks the reference does
// (ValidationOverflow), in int64 since tessera's sizes are int64. The
// product of the non-zero sizes must fit too (tessera's core requires it:
// contiguous strides are built from it), so [0, 2^62, 4] is rejected.
void count_elements(TensorEntry& e) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  int64_t n = 1;
  bool zero = false;
  for (int64_t s : e.shape) {
    if (s == 0) { zero = true; continue; }
    if (n > kMax / s)
      fail(TSR_ERR_CORRUPT_FILE, "tensor ", json_quoted(e.name), " shape ", e.shape,
           " has more than 2^63-1 elements");
    n *= s;
  }
  if (zero) n = 0;
  int64_t size = element_size(e.dtype);
  if (n > kMax / size)
    fail(TSR_ERR_CORRUPT_FILE, "tensor ", json_quoted(e.name), " shape ", e.shape, " of ",
         dtype_name(e.dtype), " needs more than 2^63-1 bytes");
  e.numel = n;
  e.nbytes = n * size;
}

}  // namespace

Header parse_header(std::string_view text) {
  // nlohmann's lexer reads a NUL byte as the end of the input, which would
  // accept "{}\0<anything>"; NUL is never valid in JSON text, so refuse it.
  size_t nul = text.find('\0');
  TSR_CHECK(nul == std::string_view::npos, TSR_ERR_CORRUPT_FILE,
            "header is not valid JSON: NUL byte at offset ", nul);
  Header h;
  HeaderSax sax(h);
  bool ok = json::sax_parse(text.begin(), text.end(), &sax, nlohmann::detail::input_format_t::json,
                            /*strict=*/true);
  if (!ok || sax.status != TSR_OK) {
    if (sax.status == TSR_OK) fail(TSR_ERR_CORRUPT_FILE, "header is not valid JSON");
    fail(sax.status, sax.message);
  }
  for (TensorEntry& e : h.tensors) count_elements(e);
  return h;
}

}  // namespace tsr::io

// repr(torch.Tensor), following torch/_tensor_str.py of PyTorch 1.13 step by
// step: _Formatter, _vector_str, _tensor_str_with_formatter, _str_intern and
// _add_suffixes. Floats are read as double (float16/bfloat16 through float,
// as torch prints them after .float()) and formatted with printf, whose
// %.Nf / %.Ne round exactly as Python's format() does; NaN is spelled "nan"
// whatever its sign bit, as Python spells it.
#include "core/tensor_repr.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "core/dtype.h"

namespace tsr {
namespace {

std::string printf_string(const char* fmt, int precision, double v) {
  if (std::isnan(v)) return "nan";
  char buf[512];
  int n = std::snprintf(buf, sizeof buf, fmt, precision, v);
  // %.Nf of 1e308 is 309 digits plus N: never past 512 for N <= 100.
  return std::string(buf, size_t(n > 0 ? n : 0));
}
std::string fixed(int precision, double v) { return printf_string("%.*f", precision, v); }
std::string scientific(int precision, double v) { return printf_string("%.*e", precision, v); }

// The element at a flat position of the printed walk, read as double or
// int64 (bool as 0/1).
struct Reader {
  const Tensor& t;
  const char* base;
  double as_double(int64_t offset) const {
    return dispatch_storage(t.dtype(), [&]<typename T>() {
      T v;
      std::memcpy(&v, base + offset * int64_t(sizeof(T)), sizeof(T));
      return double(convert<double>(v));
    });
  }
  int64_t as_int(int64_t offset) const {
    return dispatch_storage(t.dtype(), [&]<typename T>() -> int64_t {
      T v;
      std::memcpy(&v, base + offset * int64_t(sizeof(T)), sizeof(T));
      if constexpr (std::is_integral_v<T>) return int64_t(v);
      return 0;
    });
  }
};

// torch's _Formatter: built from the elements that will be printed.
class Formatter {
 public:
  Formatter(const Tensor& t, const Reader& r, const std::vector<int64_t>& offsets,
            const PrintOptions& o)
      : floating_(is_floating(t.dtype()) || is_float8(t.dtype())), bool_(t.dtype() == TSR_BOOL), precision_(o.precision) {
    if (!floating_) {
      for (int64_t off : offsets) width_ = std::max(width_, int(integer(r.as_int(off)).size()));
    } else {
      std::vector<double> nonzero_finite;
      for (int64_t off : offsets) {
        double v = r.as_double(off);
        if (std::isfinite(v) && v != 0) nonzero_finite.push_back(v);
      }
      if (!nonzero_finite.empty()) choose_float_mode(nonzero_finite);
    }
    if (o.sci_mode >= 0) sci_mode_ = o.sci_mode == 1;
  }

  int width() const { return width_; }

  std::string format_int(int64_t v) const { return pad(integer(v)); }

  std::string format_float(double v) const {
    std::string s;
    if (sci_mode_) {
      s = scientific(precision_, v);
    } else if (int_mode_) {
      s = fixed(0, v);
      if (std::isfinite(v)) s += '.';
    } else {
      s = fixed(precision_, v);
    }
    return pad(s);
  }

 private:
  std::string integer(int64_t v) const {
    if (bool_) return v ? "True" : "False";
    return std::to_string(v);
  }
  std::string pad(const std::string& s) const {
    return int(s.size()) < width_ ? std::string(size_t(width_) - s.size(), ' ') + s : s;
  }
  void choose_float_mode(const std::vector<double>& vals) {
    double lo = std::fabs(vals[0]), hi = lo;
    for (double v : vals) {
      lo = std::min(lo, std::fabs(v));
      hi = std::max(hi, std::fabs(v));
      if (v != std::ceil(v)) int_mode_ = false;
    }
    const bool wide = hi / lo > 1000.0 || hi > 1.e8;
    if (int_mode_) {
      sci_mode_ = wide;
      for (double v : vals)
        width_ = std::max(width_, int(wide ? scientific(precision_, v).size()
                                           : fixed(0, v).size() + 1));
    } else {
      sci_mode_ = wide || lo < 1.e-4;
      for (double v : vals)
        width_ = std::max(width_, int(sci_mode_ ? scientific(precision_, v).size()
                                                : fixed(precision_, v).size()));
    }
  }

  bool floating_, bool_;
  int precision_;
  bool int_mode_ = true, sci_mode_ = false;
  int width_ = 1;
};

class Printer {
 public:
  Printer(const Tensor& t, const PrintOptions& o)
      : t_(t), o_(o), reader_{t, static_cast<const char*>(t.data_ptr())},
        summarize_(t.numel() > o.threshold) {}

  std::string str(int indent) {
    std::vector<int64_t> offsets;
    collect(0, t_.storage_offset(), offsets);
    Formatter f(t_, reader_, offsets, o_);
    return dims(0, t_.storage_offset(), indent, f);
  }

 private:
  // Indices of dim d that are printed: all, or the edge items at each end.
  std::vector<int64_t> shown(int64_t d) const {
    int64_t n = t_.size(d), e = o_.edgeitems;
    std::vector<int64_t> idx;
    if (summarize_ && n > 2 * e) {
      for (int64_t i = 0; i < e; ++i) idx.push_back(i);
      for (int64_t i = n - e; i < n; ++i) idx.push_back(i);
    } else {
      for (int64_t i = 0; i < n; ++i) idx.push_back(i);
    }
    return idx;
  }
  bool elided(int64_t d) const { return summarize_ && t_.size(d) > 2 * o_.edgeitems; }

  // torch's get_summarized_data: the elements the formatter looks at.
  void collect(int64_t d, int64_t offset, std::vector<int64_t>& out) const {
    if (d == t_.ndim()) {
      out.push_back(offset);
      return;
    }
    for (int64_t i : shown(d)) collect(d + 1, offset + i * t_.stride(d), out);
  }

  std::string element(int64_t offset, const Formatter& f) const {
    return is_floating(t_.dtype()) || is_float8(t_.dtype()) ? f.format_float(reader_.as_double(offset))
                                   : f.format_int(reader_.as_int(offset));
  }

  // _vector_str
  std::string vector(int64_t d, int64_t offset, int indent, const Formatter& f) const {
    const int64_t element_length = f.width() + 2;
    const int64_t per_line = std::max<int64_t>(1, (o_.linewidth - indent) / element_length);
    std::vector<std::string> data;
    const std::vector<int64_t> idx = shown(d);
    const bool gap = elided(d);
    for (size_t k = 0; k < idx.size(); ++k) {
      if (gap && int64_t(k) == o_.edgeitems) data.push_back(" ...");
      data.push_back(element(offset + idx[k] * t_.stride(d), f));
    }
    std::string s = "[";
    for (size_t k = 0; k < data.size(); ++k) {
      if (k > 0) s += int64_t(k) % per_line == 0 ? ",\n" + std::string(size_t(indent) + 1, ' ') : ", ";
      s += data[k];
    }
    return s + "]";
  }

  // _tensor_str_with_formatter
  std::string dims(int64_t d, int64_t offset, int indent, const Formatter& f) const {
    const int64_t rank = t_.ndim() - d;
    if (rank == 0) return element(offset, f);
    if (rank == 1) return vector(d, offset, indent, f);
    std::vector<std::string> slices;
    const std::vector<int64_t> idx = shown(d);
    const bool gap = elided(d);
    for (size_t k = 0; k < idx.size(); ++k) {
      if (gap && int64_t(k) == o_.edgeitems) slices.push_back("...");
      slices.push_back(dims(d + 1, offset + idx[k] * t_.stride(d), indent + 1, f));
    }
    const std::string sep = "," + std::string(size_t(rank - 1), '\n') + std::string(size_t(indent) + 1, ' ');
    std::string s = "[";
    for (size_t k = 0; k < slices.size(); ++k) s += (k ? sep : "") + slices[k];
    return s + "]";
  }

  const Tensor& t_;
  const PrintOptions& o_;
  Reader reader_;
  bool summarize_;
};

// _add_suffixes
std::string add_suffixes(const std::string& body, const std::vector<std::string>& suffixes,
                         int indent, int64_t linewidth) {
  std::string s = body;
  const size_t nl = body.rfind('\n');
  // Python's len(s) - s.rfind('\n') + 1, with rfind's -1 when there is none.
  int64_t last_line_len = int64_t(body.size()) - (nl == std::string::npos ? -1 : int64_t(nl)) + 1;
  for (const std::string& suffix : suffixes) {
    const int64_t len = int64_t(suffix.size());
    if (last_line_len + len + 2 > linewidth) {
      s += ",\n" + std::string(size_t(indent), ' ') + suffix;
      last_line_len = indent + len;
    } else {
      s += ", " + suffix;
      last_line_len += len + 2;
    }
  }
  return s + ")";
}

std::string shape_tuple(const Tensor& t) {
  std::string s = "(";
  for (int64_t d = 0; d < t.ndim(); ++d) s += (d ? ", " : "") + std::to_string(t.size(d));
  return s + (t.ndim() == 1 ? ",)" : ")");
}

}  // namespace

std::string tensor_repr(const Tensor& host, const ReprSuffixes& extra, const PrintOptions& o) {
  const std::string prefix = "tensor(";
  const int indent = int(prefix.size());
  std::vector<std::string> suffixes;
  if (!extra.device.empty()) suffixes.push_back("device='" + extra.device + "'");
  const tsr_dtype dt = host.dtype();
  const std::string dtype_suffix = std::string("dtype=tessera.") + dtype_name(dt);
  std::string body;
  if (host.numel() == 0) {
    if (host.ndim() != 1) suffixes.push_back("size=" + shape_tuple(host));
    if (dt != TSR_FLOAT32) suffixes.push_back(dtype_suffix);
    body = "[]";
  } else {
    if (dt != TSR_FLOAT32 && dt != TSR_INT64 && dt != TSR_BOOL) suffixes.push_back(dtype_suffix);
    body = Printer(host, o).str(indent);
  }
  if (!extra.grad_fn.empty())
    suffixes.push_back("grad_fn=<" + extra.grad_fn + ">");
  else if (extra.requires_grad)
    suffixes.push_back("requires_grad=True");
  return add_suffixes(prefix + body, suffixes, indent, o.linewidth);
}

}  // namespace tsr

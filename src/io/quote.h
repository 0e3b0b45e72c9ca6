// Names and keys from a file go into error messages JSON-quoted, so control
// characters or odd bytes in a crafted file cannot garble the message (or
// break a binding that decodes messages as UTF-8).
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace tsr::io {

// s as a JSON string literal (escaped as serde_json and nlohmann both do);
// invalid UTF-8 becomes U+FFFD. Not named quoted(): ADL would pick
// std::quoted for std::string arguments.
inline std::string json_quoted(std::string_view s) {
  // The common case, printable ASCII without '"' or '\\', needs no escape:
  // quoted directly, as nlohmann would (a save serializes every name twice,
  // and building a json value per name cost 5% of saving many small tensors).
  bool plain = true;
  for (unsigned char c : s) plain &= c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
  if (plain) {
    std::string out;
    out.reserve(s.size() + 2);
    out += '"';
    out += s;
    out += '"';
    return out;
  }
  return nlohmann::json(std::string(s)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// s with every byte outside printable ASCII written as \xNN.
inline std::string printable(std::string_view s) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    if (c >= 0x20 && c < 0x7f) {
      out += char(c);
    } else {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

}  // namespace tsr::io

#include "page.h"

#include <map>

#include "memviz_assets.h"  // generated: kPageTemplate

namespace memviz {

std::string json_for_script(const nlohmann::json& value) {
  // The input was parsed, so its strings are valid UTF-8 and dump cannot throw.
  std::string text = value.dump();
  std::string out;
  out.reserve(text.size() + text.size() / 64);
  for (char c : text) {
    if (c == '<') out += "\\u003c";  // only inside strings: JSON has no other '<'
    else out += c;
  }
  return out;
}

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

namespace {

// Replaces each {{NAME}} of the template that `values` knows, in one pass, so
// a substituted value is never scanned for placeholders itself.
std::string splice(std::string_view tmpl, const std::map<std::string, std::string, std::less<>>& values) {
  std::string out;
  size_t pos = 0;
  while (true) {
    size_t open = tmpl.find("{{", pos);
    size_t close = open == std::string_view::npos ? open : tmpl.find("}}", open + 2);
    if (close == std::string_view::npos) break;
    auto it = values.find(tmpl.substr(open + 2, close - open - 2));
    if (it == values.end()) {  // not ours (some text of the page): keep it
      out.append(tmpl.substr(pos, open + 2 - pos));
      pos = open + 2;
      continue;
    }
    out.append(tmpl.substr(pos, open - pos));
    out += it->second;
    pos = close + 2;
  }
  out.append(tmpl.substr(pos));
  return out;
}

}  // namespace

std::string render_page(const nlohmann::json& snapshot, std::string_view source) {
  std::string name = html_escape(source);
  return splice(kPageTemplate, {{"MEMVIZ_TITLE", "Memory snapshot \xE2\x80\x94 " + name},
                                {"MEMVIZ_SOURCE", name},
                                {"MEMVIZ_SNAPSHOT", json_for_script(snapshot)}});
}

}  // namespace memviz

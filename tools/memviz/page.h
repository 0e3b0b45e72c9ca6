// The HTML page: the template embedded at build time (page.html.in with
// viewer.css and js/*.js inlined, see embed.cmake) with the snapshot and the
// page's title spliced in. Self-contained: nothing is fetched when viewed.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace memviz {

// `source` names the snapshot (its file name) in the title and the header.
std::string render_page(const nlohmann::json& snapshot, std::string_view source);

// The JSON text of `value`, safe inside <script type="application/json">:
// every "<" is written \u003c, so no string in it can close the script
// element ("</script>") or open a comment ("<!--").
std::string json_for_script(const nlohmann::json& value);

// Text with &, <, >, " escaped, for HTML text and attribute values.
std::string html_escape(std::string_view text);

}  // namespace memviz

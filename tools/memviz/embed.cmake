# Builds the page template with its stylesheet and scripts inlined, and writes
# it into a C++ header as one raw string literal, so tessera-memviz is a single
# file that needs nothing at run time (and the page nothing from the network).
#   cmake -DTEMPLATE=page.html.in -DCSS=viewer.css -DJS="a.js|b.js" -DOUT=x.h -P embed.cmake
# JS is "|"-separated: a ";" list would be split into separate arguments by
# add_custom_command. The scripts are concatenated in the order given.
foreach(var TEMPLATE CSS JS OUT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "embed.cmake: -D${var}=... is required")
  endif()
endforeach()

file(READ "${TEMPLATE}" page)
file(READ "${CSS}" css)
string(REPLACE "|" ";" js_files "${JS}")
set(js "")
foreach(f IN LISTS js_files)
  file(READ "${f}" part)
  get_filename_component(name "${f}" NAME)
  string(APPEND js "// ---- ${name} ----\n${part}\n")
endforeach()

string(REPLACE "@MEMVIZ_CSS@" "${css}" page "${page}")
string(REPLACE "@MEMVIZ_JS@" "${js}" page "${page}")

set(delim "tsr_memviz")
string(FIND "${page}" ")${delim}\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "embed.cmake: the page contains the raw string's end )${delim}\"")
endif()

set(header "// Generated from tools/memviz/page.html.in, viewer.css and js/*.js by\n")
string(APPEND header "// tools/memviz/embed.cmake. Do not edit.\n#pragma once\n\n#include <string_view>\n\n")
string(APPEND header "namespace memviz {\n\n")
string(APPEND header "inline constexpr std::string_view kPageTemplate = R\"${delim}(${page})${delim}\";\n\n")
string(APPEND header "}  // namespace memviz\n")

file(WRITE "${OUT}" "${header}")

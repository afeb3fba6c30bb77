# Precompiled headers: the standard library's, GoogleTest's and Qt's headers are parsed once per
# kind of target instead of once per file (before, parsing them was up to half of a test file's
# compile time under the sanitizers). Each kind has one owner that makes the precompiled header;
# the others reuse it (REUSE_FROM), which needs the same compile flags: libraries (-fPIC) and
# executables (-fPIE) do not share one. GCC refuses a header made with other flags, and CMake's
# -Winvalid-pch with -Werror turns that into an error rather than a silent slow build.
#
# Only system headers go in: a library still sees only the headers of what it links (the
# layering, tests/layering).
# On by default in the sanitized build only: at -O3, GCC 12 reports libstdc++'s inlined string code
# (-Wstringop-overflow in core/common/params.cpp) when the headers come in through the
# precompiled header, which without it are silent system-header warnings.
option(PERFLAB_PCH "Precompile the standard library, GoogleTest and Qt headers" ${PERFLAB_SANITIZE})

# The standard headers most of Perflab's files include.
set(PERFLAB_PCH_STD <algorithm> <array> <chrono> <cmath> <cstddef> <cstdint> <cstdio> <cstring>
  <filesystem> <fstream> <functional> <map> <memory> <mutex> <optional> <set> <span> <sstream>
  <stdexcept> <stop_token> <string> <string_view> <thread> <utility> <vector>)

# perflab_pch(OWNER HEADER...): OWNER makes the precompiled header of these headers.
function(perflab_pch owner)
  if(PERFLAB_PCH)
    target_precompile_headers(${owner} PRIVATE ${ARGN})
  endif()
endfunction()

# perflab_pch_owner(NAME HEADER...): an object library of its own that makes the precompiled
# header, for libraries whose own flags differ (it is compiled like a library, with -fPIC).
function(perflab_pch_owner name)
  if(PERFLAB_PCH)
    set(anchor ${CMAKE_CURRENT_BINARY_DIR}/${name}.cpp)
    file(CONFIGURE OUTPUT ${anchor} CONTENT "// Precompiled headers only (cmake/PerflabPch.cmake).\n")
    add_library(${name} OBJECT ${anchor})
    target_precompile_headers(${name} PRIVATE ${ARGN})
  endif()
endfunction()

# perflab_pch_from(OWNER TARGET...): each TARGET uses OWNER's precompiled header.
function(perflab_pch_from owner)
  if(PERFLAB_PCH)
    foreach(t IN LISTS ARGN)
      target_precompile_headers(${t} REUSE_FROM ${owner})
    endforeach()
  endif()
endfunction()

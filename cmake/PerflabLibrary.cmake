# perflab_library(NAME [AREA FOLDER] [HEADERS H...] SOURCES S...)
#
# A static library that exposes only its own headers. Its PUBLIC include directory is a folder of
# the build tree, <build>/include/NAME, holding symbolic links:
#   - AREA without HEADERS: FOLDER -> the calling source folder (every header of the area);
#   - AREA with HEADERS:    FOLDER/H -> each listed header (two libraries sharing one folder,
#                           e.g. perflab_proxy and perflab_sharding in core/sharding);
#   - HEADERS without AREA: H -> each listed header at the top (registry.h).
# A target sees the include directories of what it links (CMake propagates PUBLIC ones), and
# nothing else: an #include "targets/..." in a library that does not link perflab_targets does
# not compile. That is how the build enforces the layering.
set(PERFLAB_INCLUDE_ROOT ${PROJECT_BINARY_DIR}/include)

function(perflab_library name)
  cmake_parse_arguments(PARSE_ARGV 1 A "" "AREA" "HEADERS;SOURCES")
  add_library(${name} STATIC ${A_SOURCES})
  set(root ${PERFLAB_INCLUDE_ROOT}/${name})
  set(dir ${root})
  if(A_AREA)
    set(dir ${root}/${A_AREA})
  endif()
  file(MAKE_DIRECTORY ${root})
  # Links of an earlier configure go first (a header removed from the list stays hidden).
  if(IS_SYMLINK ${dir})
    file(REMOVE ${dir})
  elseif(IS_DIRECTORY ${dir})
    file(GLOB old LIST_DIRECTORIES true ${dir}/*)
    foreach(o IN LISTS old)
      if(IS_SYMLINK ${o})
        file(REMOVE ${o})
      endif()
    endforeach()
  endif()
  if(A_HEADERS)
    file(MAKE_DIRECTORY ${dir})
    foreach(h IN LISTS A_HEADERS)
      file(CREATE_LINK ${CMAKE_CURRENT_SOURCE_DIR}/${h} ${dir}/${h} SYMBOLIC)
    endforeach()
  elseif(A_AREA)
    file(CREATE_LINK ${CMAKE_CURRENT_SOURCE_DIR} ${dir} SYMBOLIC)
  else()
    message(FATAL_ERROR "perflab_library(${name}): give AREA, HEADERS or both")
  endif()
  target_include_directories(${name} PUBLIC ${root})
endfunction()

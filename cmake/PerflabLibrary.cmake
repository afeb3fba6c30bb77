# perflab_library(NAME AREA FOLDER SOURCES S...)   a library of one folder (core/FOLDER)
#
# A static library that exposes only its own headers. Its PUBLIC include directory is a folder of
# the build tree, <build>/include/NAME, holding a symbolic link FOLDER -> the calling source folder
# (every header of the area, included as "FOLDER/x.h").
# A target sees the include directories of what it links (CMake propagates PUBLIC ones), and
# nothing else: an #include "targets/..." in a library that does not link perflab_targets does
# not compile. That is how the build enforces the layering.
set(PERFLAB_INCLUDE_ROOT ${PROJECT_BINARY_DIR}/include)

function(perflab_library name)
  cmake_parse_arguments(PARSE_ARGV 1 A "" "AREA" "SOURCES")
  if(NOT A_AREA)
    message(FATAL_ERROR "perflab_library(${name}): give its AREA (the folder it is)")
  endif()
  add_library(${name} STATIC ${A_SOURCES})
  set(root ${PERFLAB_INCLUDE_ROOT}/${name})
  file(MAKE_DIRECTORY ${root})
  # Links of an earlier configure go first (a header removed from the list stays hidden), and
  # folders of links an older layout made (they hold nothing but links into the sources).
  file(GLOB old LIST_DIRECTORIES true ${root}/*)
  foreach(o IN LISTS old)
    if(IS_SYMLINK ${o})
      file(REMOVE ${o})
    elseif(IS_DIRECTORY ${o})
      file(REMOVE_RECURSE ${o})
    endif()
  endforeach()
  file(CREATE_LINK ${CMAKE_CURRENT_SOURCE_DIR} ${root}/${A_AREA} SYMBOLIC)
  target_include_directories(${name} PUBLIC ${root})
endfunction()

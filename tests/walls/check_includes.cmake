# The include walls of a DPDK-free library folder: every project header its
# sources include ("dir/file.h", not <...>) must lie in one of the allowed
# folders. A folder that reaches past its wall fails, naming the file, the
# line and the header (e.g. dataplane/wire including pfc/: the wire formats
# must build without the PFC library).
#   cmake -DSRC=<source root> -DDIR=<folder> -DALLOW=<folder;folder...> -P check_includes.cmake
# Only the folder's own files (*.h, *.cc), not its subfolders.
cmake_minimum_required(VERSION 3.25)
if(NOT SRC OR NOT DIR OR NOT ALLOW)
  message(FATAL_ERROR "usage: cmake -DSRC=root -DDIR=folder -DALLOW=folders -P check_includes.cmake")
endif()
string(REPLACE "," ";" ALLOW "${ALLOW}")
file(GLOB files ${SRC}/${DIR}/*.h ${SRC}/${DIR}/*.cc)
if(NOT files)
  message(FATAL_ERROR "${DIR}: no sources")
endif()
set(bad 0)
foreach(file ${files})
  file(STRINGS ${file} lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
  foreach(line ${lines})
    string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([^\"]*)\".*" "\\1" header "${line}")
    if(NOT header MATCHES "/")
      continue()  # a header next to the file (lb/bpf/rocelb_policy.h's ABI style)
    endif()
    # The allowed folder itself, not its subfolders (dataplane would
    # otherwise admit dataplane/forward).
    get_filename_component(folder "${header}" DIRECTORY)
    if(NOT folder IN_LIST ALLOW)
      file(RELATIVE_PATH rel ${SRC} ${file})
      message("${rel}: includes \"${header}\", outside ${DIR}'s wall (allowed: ${ALLOW})")
      math(EXPR bad "${bad} + 1")
    endif()
  endforeach()
endforeach()
if(bad GREATER 0)
  message(FATAL_ERROR "${DIR}: ${bad} include(s) past its wall")
endif()
message("${DIR}: every include within ${ALLOW}")

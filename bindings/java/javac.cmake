# javac.cmake — compiles every .java file under some directories (a CMake
# script, because the SWIG-generated file list is known only after SWIG ran).
#   cmake -DJAVAC=... -DOUT=classes-dir -DSOURCES="dir1|dir2" [-DCLASSPATH=...]
#         [-DFLAGS="..."] -P javac.cmake
# OUT is emptied first, so a class whose source vanished does not linger.
set(files)
string(REPLACE "|" ";" source_dirs "${SOURCES}")
foreach(dir IN LISTS source_dirs)
  file(GLOB_RECURSE found "${dir}/*.java")
  list(APPEND files ${found})
endforeach()
if(NOT files)
  message(FATAL_ERROR "javac.cmake: no .java files under ${SOURCES}")
endif()
list(SORT files)
file(REMOVE_RECURSE "${OUT}")
file(MAKE_DIRECTORY "${OUT}")
set(args --release 17 -encoding UTF-8 -d "${OUT}")
if(CLASSPATH)
  list(APPEND args -classpath "${CLASSPATH}")
endif()
separate_arguments(flags UNIX_COMMAND "${FLAGS}")
execute_process(COMMAND "${JAVAC}" ${args} ${flags} ${files} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "javac failed (${rc})")
endif()

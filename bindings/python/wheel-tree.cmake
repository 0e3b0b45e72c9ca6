# bindings/python/wheel-tree.cmake — lays out the tree pip turns into the
# wheel (bindings/python/CMakeLists.txt, section 5). Run with cmake -P:
#   -DPACKAGE=<build package dir> -DTREE=<wheel tree> -DMODULE=<_core*.so>
#   -DLIBRARY=<libtessera.so.X.Y.Z> -DSONAME=<libtessera.so.X>
#   -DSETUP_PY=<generated setup.py> -DPYPROJECT=<pyproject.toml> [-DSTRIP=<strip>]
# TREE/tessera gets the Python files, stubs and py.typed, the module, and
# the library under its SONAME (the name the module's DT_NEEDED asks for).
# The module's RUNPATH becomes exactly $ORIGIN: the build tree's points into
# the build folder and carries empty entries (CMake pads it so that install
# can rewrite it in place), and glibc reads an empty entry as the current
# directory. The library's own RUNPATH, if any, goes: it needs only system
# libraries. Both lose their debug information when STRIP is given (the
# library's is most of its 60 MB in a RelWithDebInfo build), as wheels do.
# The tree is made anew each time, so nothing stale is packaged.
file(REMOVE_RECURSE ${TREE})
file(MAKE_DIRECTORY ${TREE}/tessera)
file(GLOB sources ${PACKAGE}/*.py ${PACKAGE}/*.pyi ${PACKAGE}/py.typed)
file(COPY ${sources} DESTINATION ${TREE}/tessera)
file(COPY ${SETUP_PY} ${PYPROJECT} DESTINATION ${TREE})

get_filename_component(module_name ${MODULE} NAME)
file(COPY_FILE ${MODULE} ${TREE}/tessera/${module_name})
file(RPATH_SET FILE ${TREE}/tessera/${module_name} NEW_RPATH "$ORIGIN")

file(COPY_FILE ${LIBRARY} ${TREE}/tessera/${SONAME})
file(RPATH_REMOVE FILE ${TREE}/tessera/${SONAME})

if(STRIP)
  execute_process(COMMAND ${STRIP} --strip-debug ${TREE}/tessera/${module_name} ${TREE}/tessera/${SONAME}
                  COMMAND_ERROR_IS_FATAL ANY)
endif()

# bindings/go/assemble.cmake — copies the hand-written half of the Go module
# next to the SWIG-generated half, so the build tree holds one complete
# module and the source tree only hand-written files. Run with cmake -P:
#   -DSOURCE=<bindings/go> -DMODULE=<build module dir> -DSUPPORT_H=<bind_support.h>
# Earlier copies are removed first, so a file deleted from the source tree
# does not linger in the module.
file(GLOB stale ${MODULE}/*.go)
if(stale)
  file(REMOVE ${stale})
endif()
file(REMOVE_RECURSE ${MODULE}/testdata)
file(GLOB sources ${SOURCE}/*.go)
file(COPY ${SOURCE}/go.mod ${sources} ${SOURCE}/testdata DESTINATION ${MODULE})

# The wrapper says #include "support/bind_support.h" (tessera.i). The header
# itself goes into the package directory, where Go's build cache hashes it (it
# ignores headers in subdirectories, so an edit there would leave a stale
# object); support/bind_support.h only forwards to it.
set(capi ${MODULE}/internal/capi)
file(COPY ${SUPPORT_H} DESTINATION ${capi})
file(WRITE ${capi}/support/bind_support.h.new
     "/* Forwards to the copy Go's build cache tracks (bindings/go/assemble.cmake). */\n"
     "#include \"../bind_support.h\"\n")
file(COPY_FILE ${capi}/support/bind_support.h.new ${capi}/support/bind_support.h ONLY_IF_DIFFERENT)
file(REMOVE ${capi}/support/bind_support.h.new)

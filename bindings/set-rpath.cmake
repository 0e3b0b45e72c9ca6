# set-rpath.cmake — cmake -DFILE=lib.so -DRPATH='$ORIGIN' -P set-rpath.cmake
# Sets the RUNPATH of a copy of a built library (the copies inside tessera.jar
# and the NuGet package): the build tree's RUNPATH names absolute build
# directories that mean nothing, or something unintended, on another machine.
# The new value must not be longer than the old one (it always is shorter here).
file(RPATH_SET FILE "${FILE}" NEW_RPATH "${RPATH}")

/**
 * @file tessera/version.h
 * @brief The version this header describes, and the version of the library
 * actually loaded.
 *
 * Compare TSR_VERSION_NUMBER (compile time) with tsr_version_number() (run
 * time) to detect a header/library mismatch.
 */
#ifndef TESSERA_VERSION_H
#define TESSERA_VERSION_H

#include "types.h"

/** @brief Major version of this header. */
#define TSR_VERSION_MAJOR 0
/** @brief Minor version of this header. */
#define TSR_VERSION_MINOR 1
/** @brief Patch version of this header. */
#define TSR_VERSION_PATCH 0
/** @brief This header's version: major*10000 + minor*100 + patch */
#define TSR_VERSION_NUMBER \
  (TSR_VERSION_MAJOR * 10000 + TSR_VERSION_MINOR * 100 + TSR_VERSION_PATCH)

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief TSR_VERSION_NUMBER of the library that is loaded.
 * @return major*10000 + minor*100 + patch of the loaded library. Never fails.
 */
TSR_API int32_t tsr_version_number(void);
/**
 * @brief "major.minor.patch" of the loaded library.
 * @return the string; static storage, never freed. Never fails.
 */
TSR_API const char* tsr_version_string(void);

#ifdef __cplusplus
}
#endif
#endif

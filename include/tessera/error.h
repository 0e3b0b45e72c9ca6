/**
 * @file tessera/error.h
 * @brief The thread-local error state.
 *
 * Every function that can fail returns a tsr_status. On failure it also
 * records the status and a message on the calling thread, and leaves its out
 * parameters and every argument unchanged. Successful calls do not clear the
 * record. Same model as sqlite3_errcode/sqlite3_errmsg, per thread.
 */
#ifndef TESSERA_ERROR_H
#define TESSERA_ERROR_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief Status of the last failed call on this thread.
 * @return the status; TSR_OK if none failed yet (or since
 * tsr_clear_last_error()). Never fails.
 */
TSR_API tsr_status tsr_last_error_code(void);

/**
 * @brief Message of the last failed call on this thread ("" if none).
 * @return the message. Borrowed: valid until the next failing call on the
 * same thread. Never fails.
 */
TSR_API const char* tsr_last_error_message(void);

/** @brief Resets this thread's record to TSR_OK and "". Never fails. */
TSR_API void tsr_clear_last_error(void);

/**
 * @brief Upper-case name of a status ("TSR_ERR_NOT_VIEWABLE").
 * @param[in] status any value
 * @return the name, or "TSR_UNKNOWN_STATUS" for a value outside the enum.
 * Static storage. Never fails.
 */
TSR_API const char* tsr_status_name(tsr_status status);

/**
 * @brief Name of a dtype as PyTorch prints it ("float32", "bfloat16", ...).
 * @param[in] dtype any value
 * @return the name, or NULL for a value outside the enum. Static storage.
 * Never fails.
 */
TSR_API const char* tsr_dtype_name(tsr_dtype dtype);

/**
 * @brief Frees a string that tessera returned as "caller frees with
 * tsr_free_string". Accepts NULL.
 * @param[in] s the string, or NULL
 */
TSR_API void tsr_free_string(char* s);

#ifdef __cplusplus
}
#endif
#endif

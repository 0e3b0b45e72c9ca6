/* check.h — how the digits example handles tessera's statuses: every call
 * that returns a tsr_status goes through CHECK, which on failure prints the
 * call, the status name and tsr_last_error_message(), then exits. An example
 * that ignored statuses would teach the wrong habit. */
#ifndef DIGITS_CHECK_H
#define DIGITS_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#include <tessera/tessera.h>

#define CHECK(call)                                                                 \
  do {                                                                              \
    tsr_status st_ = (call);                                                        \
    if (st_ != TSR_OK) {                                                            \
      fprintf(stderr, "%s:%d: %s failed: %s: %s\n", __FILE__, __LINE__, #call,      \
              tsr_status_name(st_), tsr_last_error_message());                      \
      exit(EXIT_FAILURE);                                                           \
    }                                                                               \
  } while (0)

#endif

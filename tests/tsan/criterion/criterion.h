/* A stand-in for Criterion's header in the ThreadSanitizer tests
 * (tests/CMakeLists.txt puts this directory first on their include path):
 * Criterion maps its arena at an address that TSan's shadow memory owns
 * ("Could not initialize inheritable arena"), so these tests register
 * Test() functions with constructors and run them in one process, in
 * order. Only the assertions the distributed tests use are here; a failed
 * one prints its message and exits 1. */
#ifndef TSR_TSAN_CRITERION_SHIM_H
#define TSR_TSAN_CRITERION_SHIM_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct tsr_shim_test {
  const char* name;
  void (*fn)(void);
  struct tsr_shim_test* next;
} tsr_shim_test;

extern tsr_shim_test* tsr_shim_tests;
extern tsr_shim_test** tsr_shim_tail;

#define Test(suite, name)                                                       \
  static void suite##_##name(void);                                             \
  static tsr_shim_test suite##_##name##_entry = {#suite "::" #name, suite##_##name, NULL}; \
  __attribute__((constructor)) static void suite##_##name##_register(void) {    \
    *tsr_shim_tail = &suite##_##name##_entry;                                   \
    tsr_shim_tail = &suite##_##name##_entry.next;                               \
  }                                                                             \
  static void suite##_##name(void)

#define TSR_SHIM_FAIL(what, ...)                                                \
  do {                                                                          \
    fprintf(stderr, "%s:%d: assertion failed: %s. ", __FILE__, __LINE__, what); \
    fprintf(stderr, "" __VA_ARGS__);                                            \
    fprintf(stderr, "\n");                                                      \
    exit(1);                                                                    \
  } while (0)

#define cr_assert(cond, ...) do { if (!(cond)) TSR_SHIM_FAIL(#cond, ##__VA_ARGS__); } while (0)
#define cr_expect(cond, ...) cr_assert(cond, ##__VA_ARGS__)
#define cr_assert_eq(a, b, ...) cr_assert((a) == (b), ##__VA_ARGS__)
#define cr_expect_eq(a, b, ...) cr_assert((a) == (b), ##__VA_ARGS__)
#define cr_assert_neq(a, b, ...) cr_assert((a) != (b), ##__VA_ARGS__)
#define cr_assert_lt(a, b, ...) cr_assert((a) < (b), ##__VA_ARGS__)
#define cr_assert_gt(a, b, ...) cr_assert((a) > (b), ##__VA_ARGS__)
#define cr_assert_null(p, ...) cr_assert((p) == NULL, ##__VA_ARGS__)
#define cr_assert_not_null(p, ...) cr_assert((p) != NULL, ##__VA_ARGS__)
#define cr_assert_str_eq(a, b, ...) cr_assert(strcmp((a), (b)) == 0, ##__VA_ARGS__)
#define cr_expect_null(p, ...) cr_assert_null(p, ##__VA_ARGS__)
#define cr_expect_not_null(p, ...) cr_assert_not_null(p, ##__VA_ARGS__)
#define cr_expect_neq(a, b, ...) cr_assert_neq(a, b, ##__VA_ARGS__)

#endif

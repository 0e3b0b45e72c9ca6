/* The stand-in Criterion's runner (criterion/criterion.h): every
 * registered test in order; a failing assertion has already exited 1. */
#include <stdio.h>

#include "criterion/criterion.h"

tsr_shim_test* tsr_shim_tests = NULL;
tsr_shim_test** tsr_shim_tail = &tsr_shim_tests;

int main(void) {
  int n = 0;
  for (tsr_shim_test* t = tsr_shim_tests; t; t = t->next, ++n) {
    fprintf(stderr, "[RUN ] %s\n", t->name);
    t->fn();
    fprintf(stderr, "[PASS] %s\n", t->name);
  }
  fprintf(stderr, "%d tests passed\n", n);
  return 0;
}

/* GENERATED FILE - do not edit.
 * Produced by tests/golden/gen_ops.py with PyTorch 1.13.0a0
 * (/usr/bin/python3). In-place ops and version counters (test_inplace.c).
 * Regenerate: /usr/bin/python3 tests/golden/gen_ops.py */
#ifndef TSR_TESTS_GOLDEN_INPLACE_GOLDEN_H
#define TSR_TESTS_GOLDEN_INPLACE_GOLDEN_H

#include <math.h>
#include <stdint.h>

static const double ip_add_x[] = {-0.1467950940132141, 0.7861412763595581, 0.9468216300010681, -1.1143440008163452, 1.6907901763916016, -0.8948279023170471};
static const double ip_add_other[] = {-0.3556250333786011, 1.2323857545852661, 0.13817265629768372};
static const double ip_add_result[] = {0.031017422676086426, 0.16994839906692505, 0.8777353167533875, -0.9365314841270447, 1.0745973587036133, -0.9639142155647278};
static const double ip_view_base[] = {-1.6821985244750977, 0.317678302526474, 0.13280697166919708, 0.13732409477233887, 0.2405461221933365, 1.3954508304595947, 1.3470226526260376, 2.4382081031799316, 0.2027582824230194, 2.4505412578582764, 2.025601863861084, 1.7791550159454346};
static const double ip_view_other[] = {-0.9179307222366333, -0.4578188955783844, -0.7244732975959778, 1.2798781394958496, -0.9940662384033203, 1.8149727582931519};
static const double ip_view_result[] = {-1.6821985244750977, -1.5181831121444702, 2.69256329536438, 0.13732409477233887, 0.2405461221933365, 0.4798130393028259, -0.641109824180603, 2.4382081031799316, 0.2027582824230194, 1.0015946626663208, 5.655547142028809, 1.7791550159454346};
static const double ip_int_other[] = {1.0, -2.0, 3.0};
static const double ip_int_result[] = {0.8532049059867859, -1.213858723640442, 3.946821689605713, -0.11434400081634521, -0.30920982360839844, 2.1051721572875977};
static const double ip_interleaved_add_result[] = {1.0, 1.0, 5.0, 3.0, 9.0, 5.0};
static const double ip_fill_zero_mul_result[] = {-4.5, 3.0, -4.5, 9.0, 0.0, 0.0, 0.0, 0.0, -4.5, 27.0, -4.5, 33.0};
static const double ip_interleaved_result[] = {1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0};
static const int64_t ip_int64_wrap_result[] = {INT64_MIN, INT64_C(9223372036854775807), INT64_C(-9223372036854775804)};
static const int64_t ip_int64_mul_wrap_result[] = {INT64_C(0), INT64_C(-12)};
static const int64_t ip_versions[] = {0, 1, 2, 3, 4, 5, 5};
static const double ip_versions_final[] = {4.5, 4.5, 4.5, 4.5, 0.5, 0.5, 0.5, 0.5, 4.5, 4.5, 4.5, 4.5};

#endif /* TSR_TESTS_GOLDEN_INPLACE_GOLDEN_H */

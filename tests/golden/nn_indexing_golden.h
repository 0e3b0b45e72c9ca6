/* GENERATED FILE - do not edit.
 * Produced by tests/golden/gen_nn.py with PyTorch 1.13.0a0
 * (/usr/bin/python3). where, index_select, gather, embedding.
 * Regenerate: /usr/bin/python3 tests/golden/gen_nn.py */
#ifndef TSR_TESTS_GOLDEN_NN_INDEXING_GOLDEN_H
#define TSR_TESTS_GOLDEN_NN_INDEXING_GOLDEN_H

#include <math.h>
#include <stdint.h>

#include "ops_program.h"

/* WHERE same shape */
static const double tg_index_fwd_0_in0[] = {0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0,
    0.0, 0.0, 1.0, 1.0};
static const double tg_index_fwd_0_in1[] = {1.1718467473983765, -0.6712520122528076, 1.0936110019683838, -0.9594764113426208, 0.6084395051002502, -1.4311599731445312, -1.7045958042144775, -0.007021847181022167,
    0.19055229425430298, -0.6219504475593567, 1.079723596572876, -0.8319105505943298};
static const double tg_index_fwd_0_in2[] = {0.23380333185195923, 1.2543678283691406, 1.3523266315460205, -0.43691369891166687, 0.3989865481853485, -0.6273674368858337, -1.2357791662216187, 1.777160406112671,
    0.27968984842300415, 0.8438376188278198, 0.004475474823266268, -0.5175716876983643};
static const double tg_index_fwd_0_out[] = {0.23380333185195923, -0.6712520122528076, 1.3523266315460205, -0.9594764113426208, 0.3989865481853485, -0.6273674368858337, -1.2357791662216187, 1.777160406112671,
    0.27968984842300415, 0.8438376188278198, 1.079723596572876, -0.8319105505943298};

/* WHERE broadcast all three */
static const double tg_index_fwd_1_in0[] = {0.0, 0.0, 1.0};
static const double tg_index_fwd_1_in1[] = {0.9693283438682556, 0.4949154853820801, -0.43493881821632385, 1.0455244779586792};
static const double tg_index_fwd_1_in2[] = {0.3610735833644867, 2.0284786224365234};
static const double tg_index_fwd_1_out[] = {0.3610735833644867, 0.3610735833644867, 0.3610735833644867, 0.3610735833644867, 0.3610735833644867, 0.3610735833644867, 0.3610735833644867, 0.3610735833644867,
    0.9693283438682556, 0.4949154853820801, -0.43493881821632385, 1.0455244779586792, 2.0284786224365234, 2.0284786224365234, 2.0284786224365234, 2.0284786224365234,
    2.0284786224365234, 2.0284786224365234, 2.0284786224365234, 2.0284786224365234, 0.9693283438682556, 0.4949154853820801, -0.43493881821632385, 1.0455244779586792};

/* WHERE 0-dim operands */
static const double tg_index_fwd_2_in0[] = {1.0, 0.0, 1.0, 0.0, 0.0, 0.0};
static const double tg_index_fwd_2_in1[] = {-1.234594464302063};
static const double tg_index_fwd_2_in2[] = {0.5087057948112488};
static const double tg_index_fwd_2_out[] = {-1.234594464302063, 0.5087057948112488, -1.234594464302063, 0.5087057948112488, 0.5087057948112488, 0.5087057948112488};

/* WHERE promotion float32 / float64 */
static const double tg_index_fwd_3_in0[] = {1.0, 0.0, 0.0, 0.0};
static const double tg_index_fwd_3_in1[] = {-0.08790972828865051, -0.3826039433479309, 1.1433905363082886, -1.7259628772735596};
static const double tg_index_fwd_3_in2[] = {0.19652421273591217, 0.39479964122432815, -0.1595842497689205, -0.650837892216508};
static const double tg_index_fwd_3_out[] = {-0.08790972828865051, 0.39479964122432815, -0.1595842497689205, -0.650837892216508};

/* WHERE promotion float32 / int64 */
static const double tg_index_fwd_4_in0[] = {1.0, 0.0, 0.0, 0.0};
static const double tg_index_fwd_4_in1[] = {1.1812670230865479, -1.447340965270996, 1.2231703996658325, 2.6438896656036377};
static const double tg_index_fwd_4_in2[] = {27.0, 48.0, 16.0, 15.0};
static const double tg_index_fwd_4_out[] = {1.1812670230865479, 48.0, 16.0, 15.0};

/* WHERE 0-dim float64 does not widen float32 */
static const double tg_index_fwd_5_in0[] = {0.0, 0.0, 0.0};
static const double tg_index_fwd_5_in1[] = {0.11794044077396393, -0.07685869932174683, -2.175708055496216};
static const double tg_index_fwd_5_in2[] = {1.1199306823348218};
static const double tg_index_fwd_5_out[] = {1.119930624961853, 1.119930624961853, 1.119930624961853};

/* WHERE int32 / bool */
static const double tg_index_fwd_6_in0[] = {0.0, 1.0, 1.0, 1.0};
static const double tg_index_fwd_6_in1[] = {-40.0, -20.0, -49.0, 2.0};
static const double tg_index_fwd_6_in2[] = {1.0, 1.0, 0.0, 0.0};
static const double tg_index_fwd_6_out[] = {1.0, -20.0, -49.0, 2.0};

/* WHERE float16 / bfloat16 gives float32 */
static const double tg_index_fwd_7_in0[] = {0.0, 1.0, 1.0};
static const double tg_index_fwd_7_in1[] = {-0.139892578125, 0.52587890625, 0.1400146484375};
static const double tg_index_fwd_7_in2[] = {-0.1279296875, 0.365234375, 0.3515625};
static const double tg_index_fwd_7_out[] = {-0.1279296875, 0.52587890625, 0.1400146484375};

/* WHERE uint8 condition */
static const double tg_index_fwd_8_in0[] = {0.0, 1.0, 7.0, 0.0};
static const double tg_index_fwd_8_in1[] = {-1.2981958389282227, -0.7990842461585999, 1.6323730945587158, 2.818866729736328};
static const double tg_index_fwd_8_in2[] = {-0.48002150654792786, 0.96774822473526, -0.8004872798919678, 0.45366594195365906};
static const double tg_index_fwd_8_out[] = {-0.48002150654792786, -0.7990842461585999, 1.6323730945587158, 0.45366594195365906};

/* WHERE transposed operands keep their order */
static const double tg_index_fwd_9_in0[] = {0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 0.0,
    1.0, 1.0, 1.0, 0.0};
static const double tg_index_fwd_9_in1[] = {-0.2725261151790619, -1.1518890857696533, 0.3437484800815582, -1.1244674921035767, 1.392310380935669, -1.2339028120040894, -1.098374366760254, -1.1608357429504395,
    0.997643768787384, -0.6272767782211304, -1.2701754570007324, -0.3007514178752899};
static const double tg_index_fwd_9_in2[] = {0.1291774958372116, -0.5648977756500244, -1.0217572450637817, -0.08044212311506271, 0.48869916796684265, 0.9485269784927368, 1.2438411712646484, -1.945749282836914,
    -1.127368450164795, 0.5166782140731812, 0.7377077341079712, 0.3400053381919861};
static const double tg_index_fwd_9_out[] = {0.1291774958372116, -1.1244674921035767, -1.098374366760254, -0.6272767782211304, -0.5648977756500244, 1.392310380935669, -1.945749282836914, -1.2701754570007324,
    -1.0217572450637817, -1.2339028120040894, 0.997643768787384, 0.3400053381919861};

/* WHERE channels_last operands */
static const double tg_index_fwd_10_in0[] = {1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 0.0, 1.0,
    0.0, 0.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0,
    1.0, 0.0, 0.0, 1.0, 0.0, 1.0, 1.0, 0.0};
static const double tg_index_fwd_10_in1[] = {-0.6825222373008728, 1.3260812759399414, 0.8704835772514343, -1.7165844440460205, -0.8592332601547241, 0.024365922436118126, -0.02947215549647808, -1.5164082050323486,
    0.10788844525814056, -1.487470030784607, 0.2309013456106186, 0.5791015625, -0.6439359784126282, 0.4309659004211426, 0.764352560043335, -0.12422025948762894,
    -0.6111637353897095, 0.8331455588340759, -0.8924594521522522, -0.06333348900079727, 0.4926772713661194, 0.4567033350467682, -1.2764695882797241, 0.6412734985351562};
static const double tg_index_fwd_10_in2[] = {2.964015483856201, -0.8593551516532898, 0.7690892815589905, 1.7127779722213745, -1.4311164617538452, 1.7966723442077637, 0.22006967663764954, 1.2880613803863525,
    -1.6830174922943115, -1.2875721454620361, -1.3991049528121948, -2.8643267154693604, 1.7798030376434326, -1.1915340423583984, -0.20891204476356506, 0.541920006275177,
    0.23795028030872345, 0.918670654296875, 1.1231015920639038, -0.4445366859436035, -0.2703486382961273, 1.0893319845199585, 0.7347903251647949, 0.06309588253498077};
static const double tg_index_fwd_10_out[] = {-0.6825222373008728, -1.7165844440460205, 0.22006967663764954, -1.2875721454620361, -0.8593551516532898, -1.4311164617538452, -1.5164082050323486, 0.2309013456106186,
    0.8704835772514343, 0.024365922436118126, -1.6830174922943115, 0.5791015625, -0.6439359784126282, 0.541920006275177, 1.1231015920639038, 0.4567033350467682,
    -1.1915340423583984, -0.6111637353897095, -0.06333348900079727, -1.2764695882797241, -0.20891204476356506, 0.918670654296875, -0.2703486382961273, 0.06309588253498077};

/* WHERE expanded condition */
static const double tg_index_fwd_11_in0[] = {0.0, 0.0, 0.0, 0.0};
static const double tg_index_fwd_11_in1[] = {0.9351151585578918, -1.1574361324310303, -0.0977051630616188, 0.9006384015083313, -0.4557238519191742, -2.0433130264282227, -0.06959318369626999, -0.31215548515319824,
    0.2549842894077301, 0.6883264183998108, 2.2500758171081543, -0.8146946430206299};
static const double tg_index_fwd_11_in2[] = {-0.8540223240852356, 1.9384866952896118, -0.4970336854457855, -0.7210334539413452, 1.980615496635437, -0.32828521728515625, -0.7799695730209351, -0.40222272276878357,
    -1.1517024040222168, -0.4852364957332611, -0.1285478174686432, -1.241965413093567};
static const double tg_index_fwd_11_out[] = {-0.8540223240852356, 1.9384866952896118, -0.4970336854457855, -0.7210334539413452, 1.980615496635437, -0.32828521728515625, -0.7799695730209351, -0.40222272276878357,
    -1.1517024040222168, -0.4852364957332611, -0.1285478174686432, -1.241965413093567};

/* WHERE nan and inf pass through */
static const double tg_index_fwd_12_in0[] = {1.0, 0.0, 1.0, 0.0};
static const double tg_index_fwd_12_in1[] = {NAN, 0.0, INFINITY, 1.0};
static const double tg_index_fwd_12_in2[] = {1.0, NAN, 2.0, -INFINITY};
static const double tg_index_fwd_12_out[] = {NAN, NAN, INFINITY, -INFINITY};

/* WHERE empty */
static const double tg_index_fwd_13_in0[] = {0};
static const double tg_index_fwd_13_in1[] = {-1.4476392269134521, -1.2075353860855103, 0.4872027039527893};
static const double tg_index_fwd_13_in2[] = {0.45058977603912354};
static const double tg_index_fwd_13_out[] = {0};

static const tg_case tg_index_fwd[] = {
  {"WHERE same shape",
   3, {{TSR_BOOL, 2, {3, 4}, {4, 1}, 0, 12, tg_index_fwd_0_in0, false}, {TSR_FLOAT32, 2, {3, 4}, {4, 1}, 0, 12, tg_index_fwd_0_in1, false}, {TSR_FLOAT32, 2, {3, 4}, {4, 1}, 0, 12, tg_index_fwd_0_in2, false}},
   1, {{TG_WHERE, 0, 1, 1, {2}, 0.0, false, NULL, false, true}},
   {TSR_FLOAT32, 2, {3, 4}, {4, 1}, 12, tg_index_fwd_0_out},
   true, 1e-05, 1e-06,
   NULL, {{0}, {0}, {0}}},
  {"WHERE broadcast all three",
   3, {{TSR_BOOL, 2, {3, 1}, {1, 1}, 0, 3, tg_index_fwd_1_in0, false}, {TSR_FLOAT32, 1, {4}, {1}, 0, 4, tg_index_fwd_1_in1, false}, {TSR_FLOAT32, 3, {2, 1, 1}, {1, 1, 1}, 0, 2, tg_index_fwd_1_in2, false}},
   1, {{TG_WHERE, 0, 1, 1, {2}, 0.0, false, NULL, false, true}},
   {TSR_FLOAT32, 3, {2, 3, 4}, {12, 4, 1}, 24, tg_index_fwd_1_out},
   true, 1e-05, 1e-06,
   NULL, {{0}, {0}, {0}}},
  {"WHERE 0-dim operands",
   3, {{TSR_BOOL, 2, {2, 3}, {3, 1}, 0, 6, tg_index_fwd_2_in0, false}, {TSR_FLOAT32, 0, {0}, {0}, 0, 1, tg_index_fwd_2_in1, false}, {TSR_FLOAT32, 0, {0}, {0}, 0, 1, tg_index_fwd_2_in2, false}},
   1, {{TG_WHERE, 0, 1, 1, {2}, 0.0, false, NULL, false, true}},
   {TSR_FLOAT32, 2, {2, 3}, {3, 1}, 6, tg_index_fwd_2_out},
   true, 1e-05, 1e-06,
   NULL, {{0}, {0}, {0}}},
  {"WHERE promotion float32 / float64",
   3, {{TSR_BOOL, 1, {4}, {1}, 0, 4, tg_index_fwd_3_in0, false}, {TSR_FLOAT32, 1, {4}, {1}, 0, 4, tg_index_fwd_3_in1, false}, {TSR_FLOAT64, 1, {4}, {1}, 0, 4, tg_index_fwd_3_in2, false}},
   1, {{TG_WHERE, 0, 1, 1, {2}, 0.0, false, NULL, false, true}},
   {TSR_FLOAT64, 1, {4}, {1}, 4, tg_index_fwd_3_out},
   true, 1e-12, 1e-12,
   NULL, {{0}, {0}, {0}}},
  {"WHERE promotion float32 / int64",
   3, {{TSR_BOOL, 1, {4}, {1}, 0, 4, tg_index_fwd_4_in0, false}, {TSR_FLOAT32, 1, {4}, {1}, 0, 4, tg_index_fwd_4_in1, false}, {TSR_INT64, 1, {4}, {1}, 0, 4, tg_index_fwd_4_in2, false}},
   1, {{TG_WHERE, 0, 1, 1, {2}, 0.0, false, NULL, false, true}},
   {TSR_FLOAT32, 1, {4}, {1}, 4, tg_index_fwd_4_out},
   true, 1e-05, 1e-06,
   NULL, {{0}, {0}, {0}}},
  {"WHERE 0-dim float64 does not widen float32",
   3, {{TSR_BOOL, 1, {3}, {1}, 0, 3, tg_index_fwd_5_in0, false}, {TSR_FLOAT32, 1, {3}, {1}, 0, 3, tg_index_fwd_5_in1, false}, {TSR_FLOAT64, 0, {0}, {0}, 0, 1, tg_index_fwd_5_in2, false}},
   1, {{TG_WHERE, 0, 1, 1, {2}, 0.0, false, NULL, false, true}},
   {TSR_FLOAT32, 1, {3}, {1}, 3, tg_index_fwd_5_out},
   true, 1e-05, 1e-06,
   NULL, {{0}, {0}, {0}}},
  {"WHERE int32 / bool",
   3, {{TSR_BOOL, 1, {4}, {1}, 0, 4, tg_index_fwd_6_in0, false}, {TSR_INT32, 1, {4}, {1}, 0, 4, tg_index_fwd_6_in1, false}, {TSR_BOOL, 1, {4}, {1}, 0, 4, tg_index_fwd_6_in2, false}},
   1, {{TG_WHERE, 0, 1, 1, {2}, 0.0, false, NULL, false, true}},
   {TSR_INT32, 1, {4}, {1}, 4, tg_index_fwd_6_out},
   true, 0.0, 0.0,
   NULL, {{0}, {0}, {0}}},
  {"WHERE float16 / bfloat16 gives float32",
   3, {{TSR_BOOL, 1, {3}, {1}, 0, 3, tg_index_fwd_7_in0, false}, {TSR_FLOAT16, 1, {3}, {1}, 0, 3, tg_index_fwd_7_in1, false}, {TSR_BFLOAT16, 1, {3}, {1}, 0, 3, tg_index_fwd_7_in2, false}},
   1, {{TG_WHERE, 0, 1, 1, {2}, 0.0, false, NULL, false, true}},
   {TSR_FLOAT32, 1, {3}, {1}, 3, tg_index_fwd_7_out},
   true, 1e-05, 1e-06,
   NULL, {{0}, {0}, {0}}},
  {"WHERE uint8 condition",
   3, {{TSR_UINT8, 1, {4}, {1}, 0, 4, tg_index_fwd_8_in0, false}, {TSR_FLOAT32, 1, {4}, {1}, 0, 4, tg_index_fwd_8_in1, false}, {TSR_FLOAT32, 1, {4}, {1}, 0, 4, tg_index_fwd_8_in2, false}},
   1, {{TG_WHERE, 0, 1, 1, {2}, 0.0, false, NULL, false, true}},
   {TSR_FLOAT32, 1, {4}, {1}, 4, tg_index_fwd_8_out},
   true, 1e-05, 1e-06,
   NULL, {{0}, {0}, {0}}},
  {"WHERE transposed operands keep their order",
   3, {{TSR_BOOL, 2, {3, 4}, {1, 3}, 0, 12, tg_index_fwd_9_in0, false}, {TSR_FLOAT32, 2, {3, 4}, {1, 3}, 0, 12, tg_index_fwd_9_in1, false}, {TSR_FLOAT32, 2, {3, 4}, {1, 3}, 0, 12, tg_index_fwd_9_in2, false}},
   1, {{TG_WHERE, 0, 1, 1, {2}, 0.0, false, NULL, false, true}},
   {TSR_FLOAT32, 2, {3, 4}, {1, 3}, 12, tg_index_fwd_9_out},
   true, 1e-05, 1e-06,
   NULL, {{0}, {0}, {0}}},
  {"WHERE channels_last operands",
   3, {{TSR_BOOL, 4, {2, 3, 2, 2}, {12, 1, 6, 3}, 0, 24, tg_index_fwd_10_in0, false}, {TSR_FLOAT32, 4, {2, 3, 2, 2}, {12, 1, 6, 3}, 0, 24, tg_index_fwd_10_in1, false}, {TSR_FLOAT32, 4, {2, 3, 2, 2}, {12, 1, 6, 3}, 0, 24, tg_index_fwd_10_in2, false}},
   1, {{TG_WHERE, 0, 1, 1, {2}, 0.0, false, NULL, false, true}},
   {TSR_FLOAT32, 4, {2, 3, 2, 2}, {12, 1, 6, 3}, 24, tg_index_fwd_10_out},
   true, 1e-05, 1e-06,
   NULL, {{0}, {0}, {0}}},
  {"WHERE expanded condition",
   3, {{TSR_BOOL, 2, {3, 4}, {0, 1}, 0, 4, tg_index_fwd_11_in0, false}, {TSR_FLOAT32, 2, {3, 4}, {4, 1}, 0, 12, tg_index_fwd_11_in1, false}, {TSR_FLOAT32, 2, {3, 4}, {4, 1}, 0, 12, tg_index_fwd_11_in2, false}},
   1, {{TG_WHERE, 0, 1, 1, {2}, 0.0, false, NULL, false, true}},
   {TSR_FLOAT32, 2, {3, 4}, {4, 1}, 12, tg_index_fwd_11_out},
   true, 1e-05, 1e-06,
   NULL, {{0}, {0}, {0}}},
  {"WHERE nan and inf pass through",
   3, {{TSR_BOOL, 1, {4}, {1}, 0, 4, tg_index_fwd_12_in0, false}, {TSR_FLOAT32, 1, {4}, {1}, 0, 4, tg_index_fwd_12_in1, false}, {TSR_FLOAT32, 1, {4}, {1}, 0, 4, tg_index_fwd_12_in2, false}},
   1, {{TG_WHERE, 0, 1, 1, {2}, 0.0, false, NULL, false, true}},
   {TSR_FLOAT32, 1, {4}, {1}, 4, tg_index_fwd_12_out},
   true, 1e-05, 1e-06,
   NULL, {{0}, {0}, {0}}},
  {"WHERE empty",
   3, {{TSR_BOOL, 2, {0, 3}, {3, 1}, 0, 0, tg_index_fwd_13_in0, false}, {TSR_FLOAT32, 1, {3}, {1}, 0, 3, tg_index_fwd_13_in1, false}, {TSR_FLOAT32, 1, {1}, {1}, 0, 1, tg_index_fwd_13_in2, false}},
   1, {{TG_WHERE, 0, 1, 1, {2}, 0.0, false, NULL, false, true}},
   {TSR_FLOAT32, 2, {0, 3}, {3, 1}, 0, tg_index_fwd_13_out},
   true, 1e-05, 1e-06,
   NULL, {{0}, {0}, {0}}}
};
#define TG_INDEX_FWD_N ((size_t)(sizeof tg_index_fwd / sizeof tg_index_fwd[0]))

/* WHERE same shape */
static const double tg_index_grad_0_in0[] = {1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0,
    0.0, 1.0, 1.0, 1.0};
static const double tg_index_grad_0_in1[] = {-1.431604027748108, -0.06664778292179108, -0.5611717104911804, -0.7694705724716187, 2.1470046043395996, -0.2333119660615921, -0.5818884372711182, 0.11877334862947464,
    -1.212461233139038, -0.08895548433065414, 0.18222109973430634, -1.1106520891189575};
static const double tg_index_grad_0_in2[] = {-0.09271080791950226, 0.8811140656471252, -0.5035663843154907, -0.15929751098155975, -1.4953806400299072, 0.2087801992893219, 0.3486247956752777, 2.144697904586792,
    -1.1510083675384521, -0.5026168823242188, 0.6560572981834412, 1.3269885778427124};
static const double tg_index_grad_0_out[] = {-1.431604027748108, 0.8811140656471252, -0.5611717104911804, -0.7694705724716187, 2.1470046043395996, -0.2333119660615921, 0.3486247956752777, 2.144697904586792,
    -1.1510083675384521, -0.08895548433065414, 0.18222109973430634, -1.1106520891189575};
static const double tg_index_grad_0_gout[] = {0.1587950587272644, 0.6230924725532532, 1.0449422597885132, -1.4044314622879028, 0.6567293405532837, 0.11884339898824692, -1.7788276672363281, -0.3810318410396576,
    0.7743124961853027, -0.1534890979528427, -1.3818608522415161, -1.2033460140228271};
static const double tg_index_grad_0_grad1[] = {0.1587950587272644, 0.0, 1.0449422597885132, -1.4044314622879028, 0.6567293405532837, 0.11884339898824692, 0.0, 0.0,
    0.0, -0.1534890979528427, -1.3818608522415161, -1.2033460140228271};
static const double tg_index_grad_0_grad2[] = {0.0, 0.6230924725532532, 0.0, 0.0, 0.0, 0.0, -1.7788276672363281, -0.3810318410396576,
    0.7743124961853027, 0.0, 0.0, 0.0};

/* WHERE broadcast sums back */
static const double tg_index_grad_1_in0[] = {1.0, 0.0, 0.0};
static const double tg_index_grad_1_in1[] = {1.2533180488471904, 1.006757505955258, -0.8740841997517238, 0.6716133409640713};
static const double tg_index_grad_1_in2[] = {2.0850077588483336, 0.1587052200854673};
static const double tg_index_grad_1_out[] = {1.2533180488471904, 1.006757505955258, -0.8740841997517238, 0.6716133409640713, 2.0850077588483336, 2.0850077588483336, 2.0850077588483336, 2.0850077588483336,
    2.0850077588483336, 2.0850077588483336, 2.0850077588483336, 2.0850077588483336, 1.2533180488471904, 1.006757505955258, -0.8740841997517238, 0.6716133409640713,
    0.1587052200854673, 0.1587052200854673, 0.1587052200854673, 0.1587052200854673, 0.1587052200854673, 0.1587052200854673, 0.1587052200854673, 0.1587052200854673};
static const double tg_index_grad_1_gout[] = {-0.48492832632192195, 0.8069436174361537, -1.5430770863471948, 0.10182436324948403, 0.08745654938279004, 0.3859264938233611, -0.710825031862756, 1.8836283226397603,
    -1.8487683179637366, 0.6828568778208736, 1.6833470912883544, -0.2537323661550229, 1.0462343556348164, 1.5457818997299657, -0.27605761484940994, -1.8420794399832185,
    -0.04092033187764971, 1.0206118868130563, 0.7591569386232121, -0.2889636610101564, 0.04323371733095808, -0.26550495328984663, 0.09595447836497022, 0.44664257852628225};
static const double tg_index_grad_1_grad1[] = {0.5613060293128944, 2.352725517166119, -1.8191347011966048, -1.7402550767337346};
static const double tg_index_grad_1_grad2[] = {1.909889618973624, 1.7702106534808264};

/* WHERE promotion float32 / float64 */
static const double tg_index_grad_2_in0[] = {1.0, 0.0, 1.0, 0.0};
static const double tg_index_grad_2_in1[] = {0.5999791026115417, 0.26514846086502075, 1.831663727760315, -0.1577037274837494};
static const double tg_index_grad_2_in2[] = {0.768184998611004, -1.570311537340498, 1.7182522409090566, 0.6618292328424168};
static const double tg_index_grad_2_out[] = {0.5999791026115417, -1.570311537340498, 1.831663727760315, 0.6618292328424168};
static const double tg_index_grad_2_gout[] = {1.6557388891197724, -0.4669931332115081, -1.260363999753567, -0.8640993099096381};
static const double tg_index_grad_2_grad1[] = {1.6557388305664062, 0.0, -1.260364055633545, 0.0};
static const double tg_index_grad_2_grad2[] = {0.0, -0.4669931332115081, 0.0, -0.8640993099096381};

/* WHERE only a requires grad */
static const double tg_index_grad_3_in0[] = {1.0, 1.0, 1.0, 0.0};
static const double tg_index_grad_3_in1[] = {0.3203471004962921, 0.9097450375556946, -2.09676194190979, 0.1219155490398407};
static const double tg_index_grad_3_in2[] = {1.084295630455017, 0.7996351718902588, 1.4273816347122192, -1.0231809616088867};
static const double tg_index_grad_3_out[] = {0.3203471004962921, 0.9097450375556946, -2.09676194190979, -1.0231809616088867};
static const double tg_index_grad_3_gout[] = {0.0835425853729248, 0.8449690937995911, -1.4697176218032837, -0.3127289414405823};
static const double tg_index_grad_3_grad1[] = {0.0835425853729248, 0.8449690937995911, -1.4697176218032837, 0.0};

/* WHERE with int64 b */
static const double tg_index_grad_4_in0[] = {1.0, 1.0, 0.0, 1.0};
static const double tg_index_grad_4_in1[] = {1.2985656261444092, -1.3986234664916992, 1.3914885520935059, 1.7761991024017334};
static const double tg_index_grad_4_in2[] = {27.0, 10.0, 45.0, -25.0};
static const double tg_index_grad_4_out[] = {1.2985656261444092, -1.3986234664916992, 45.0, 1.7761991024017334};
static const double tg_index_grad_4_gout[] = {0.78253173828125, 1.8375128507614136, 1.3100261688232422, -0.9455026388168335};
static const double tg_index_grad_4_grad1[] = {0.78253173828125, 1.8375128507614136, 0.0, -0.9455026388168335};

/* WHERE 0-dim a */
static const double tg_index_grad_5_in0[] = {1.0, 1.0, 1.0, 1.0, 1.0, 1.0};
static const double tg_index_grad_5_in1[] = {-0.24240705370903015};
static const double tg_index_grad_5_in2[] = {1.3525773286819458, -1.238582730293274, 1.0655291080474854, -1.9028173685073853, -0.5141288638114929, 0.42300713062286377};
static const double tg_index_grad_5_out[] = {-0.24240705370903015, -0.24240705370903015, -0.24240705370903015, -0.24240705370903015, -0.24240705370903015, -0.24240705370903015};
static const double tg_index_grad_5_gout[] = {-0.9230200052261353, 1.6077803373336792, -0.08069077134132385, -0.2502424120903015, -0.9957776665687561, 0.21267051994800568};
static const double tg_index_grad_5_grad1[] = {-0.42928001284599304};
static const double tg_index_grad_5_grad2[] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};

/* WHERE same tensor both sides */
static const double tg_index_grad_6_in0[] = {1.0, 1.0, 0.0, 0.0, 1.0};
static const double tg_index_grad_6_in1[] = {-0.38407886028289795, 0.8306926488876343, -0.9066128134727478, -0.06692041456699371, -0.069391168653965};
static const double tg_index_grad_6_out[] = {-0.38407886028289795, 0.8306926488876343, -0.9066128134727478, -0.06692041456699371, -0.069391168653965};
static const double tg_index_grad_6_gout[] = {1.2757956981658936, 0.40448758006095886, -0.7457549571990967, -1.9702541828155518, 1.6525250673294067};
static const double tg_index_grad_6_grad1[] = {1.2757956981658936, 0.40448758006095886, -0.7457549571990967, -1.9702541828155518, 1.6525250673294067};

static const tg_case tg_index_grad[] = {
  {"WHERE same shape",
   3, {{TSR_BOOL, 2, {3, 4}, {4, 1}, 0, 12, tg_index_grad_0_in0, false}, {TSR_FLOAT32, 2, {3, 4}, {4, 1}, 0, 12, tg_index_grad_0_in1, true}, {TSR_FLOAT32, 2, {3, 4}, {4, 1}, 0, 12, tg_index_grad_0_in2, true}},
   1, {{TG_WHERE, 0, 1, 1, {2}, 0.0, false, "WhereBackward0", true, false}},
   {TSR_FLOAT32, 2, {3, 4}, {4, 1}, 12, tg_index_grad_0_out},
   true, 1e-05, 1e-06,
   tg_index_grad_0_gout, {{0}, {TSR_FLOAT32, 2, {3, 4}, {4, 1}, 12, tg_index_grad_0_grad1}, {TSR_FLOAT32, 2, {3, 4}, {4, 1}, 12, tg_index_grad_0_grad2}}},
  {"WHERE broadcast sums back",
   3, {{TSR_BOOL, 2, {3, 1}, {1, 1}, 0, 3, tg_index_grad_1_in0, false}, {TSR_FLOAT64, 1, {4}, {1}, 0, 4, tg_index_grad_1_in1, true}, {TSR_FLOAT64, 3, {2, 1, 1}, {1, 1, 1}, 0, 2, tg_index_grad_1_in2, true}},
   1, {{TG_WHERE, 0, 1, 1, {2}, 0.0, false, "WhereBackward0", true, false}},
   {TSR_FLOAT64, 3, {2, 3, 4}, {12, 4, 1}, 24, tg_index_grad_1_out},
   true, 1e-12, 1e-12,
   tg_index_grad_1_gout, {{0}, {TSR_FLOAT64, 1, {4}, {1}, 4, tg_index_grad_1_grad1}, {TSR_FLOAT64, 3, {2, 1, 1}, {1, 1, 1}, 2, tg_index_grad_1_grad2}}},
  {"WHERE promotion float32 / float64",
   3, {{TSR_BOOL, 1, {4}, {1}, 0, 4, tg_index_grad_2_in0, false}, {TSR_FLOAT32, 1, {4}, {1}, 0, 4, tg_index_grad_2_in1, true}, {TSR_FLOAT64, 1, {4}, {1}, 0, 4, tg_index_grad_2_in2, true}},
   1, {{TG_WHERE, 0, 1, 1, {2}, 0.0, false, "WhereBackward0", true, false}},
   {TSR_FLOAT64, 1, {4}, {1}, 4, tg_index_grad_2_out},
   true, 1e-12, 1e-12,
   tg_index_grad_2_gout, {{0}, {TSR_FLOAT32, 1, {4}, {1}, 4, tg_index_grad_2_grad1}, {TSR_FLOAT64, 1, {4}, {1}, 4, tg_index_grad_2_grad2}}},
  {"WHERE only a requires grad",
   3, {{TSR_BOOL, 1, {4}, {1}, 0, 4, tg_index_grad_3_in0, false}, {TSR_FLOAT32, 1, {4}, {1}, 0, 4, tg_index_grad_3_in1, true}, {TSR_FLOAT32, 1, {4}, {1}, 0, 4, tg_index_grad_3_in2, false}},
   1, {{TG_WHERE, 0, 1, 1, {2}, 0.0, false, "WhereBackward0", true, false}},
   {TSR_FLOAT32, 1, {4}, {1}, 4, tg_index_grad_3_out},
   true, 1e-05, 1e-06,
   tg_index_grad_3_gout, {{0}, {TSR_FLOAT32, 1, {4}, {1}, 4, tg_index_grad_3_grad1}, {0}}},
  {"WHERE with int64 b",
   3, {{TSR_BOOL, 1, {4}, {1}, 0, 4, tg_index_grad_4_in0, false}, {TSR_FLOAT32, 1, {4}, {1}, 0, 4, tg_index_grad_4_in1, true}, {TSR_INT64, 1, {4}, {1}, 0, 4, tg_index_grad_4_in2, false}},
   1, {{TG_WHERE, 0, 1, 1, {2}, 0.0, false, "WhereBackward0", true, false}},
   {TSR_FLOAT32, 1, {4}, {1}, 4, tg_index_grad_4_out},
   true, 1e-05, 1e-06,
   tg_index_grad_4_gout, {{0}, {TSR_FLOAT32, 1, {4}, {1}, 4, tg_index_grad_4_grad1}, {0}}},
  {"WHERE 0-dim a",
   3, {{TSR_BOOL, 2, {2, 3}, {3, 1}, 0, 6, tg_index_grad_5_in0, false}, {TSR_FLOAT32, 0, {0}, {0}, 0, 1, tg_index_grad_5_in1, true}, {TSR_FLOAT32, 2, {2, 3}, {3, 1}, 0, 6, tg_index_grad_5_in2, true}},
   1, {{TG_WHERE, 0, 1, 1, {2}, 0.0, false, "WhereBackward0", true, false}},
   {TSR_FLOAT32, 2, {2, 3}, {3, 1}, 6, tg_index_grad_5_out},
   true, 1e-05, 1e-06,
   tg_index_grad_5_gout, {{0}, {TSR_FLOAT32, 0, {0}, {0}, 1, tg_index_grad_5_grad1}, {TSR_FLOAT32, 2, {2, 3}, {3, 1}, 6, tg_index_grad_5_grad2}}},
  {"WHERE same tensor both sides",
   2, {{TSR_BOOL, 1, {5}, {1}, 0, 5, tg_index_grad_6_in0, false}, {TSR_FLOAT32, 1, {5}, {1}, 0, 5, tg_index_grad_6_in1, true}},
   1, {{TG_WHERE, 0, 1, 1, {1}, 0.0, false, "WhereBackward0", true, false}},
   {TSR_FLOAT32, 1, {5}, {1}, 5, tg_index_grad_6_out},
   true, 1e-05, 1e-06,
   tg_index_grad_6_gout, {{0}, {TSR_FLOAT32, 1, {5}, {1}, 5, tg_index_grad_6_grad1}}}
};
#define TG_INDEX_GRAD_N ((size_t)(sizeof tg_index_grad / sizeof tg_index_grad[0]))

#endif /* TSR_TESTS_GOLDEN_NN_INDEXING_GOLDEN_H */

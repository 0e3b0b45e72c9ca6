/* The autograd graph as objects (autograd_graph.h): grad_fn, name(),
 * next_functions and an AccumulateGrad's variable, as torch 1.13 shows
 * them (goldens from torch: the comments give the Python). */
#include "helpers.h"

static tsr_tensor* ones(int64_t n, bool requires_grad) {
  tsr_tensor* t;
  TSR_ASSERT_OK(tsr_ones(1, &n, TSR_FLOAT32, TSR_CPU, &t));
  if (requires_grad) TSR_ASSERT_OK(tsr_set_requires_grad(t, true));
  return t;
}

static tsr_node* grad_fn(const tsr_tensor* t) {
  tsr_node* n = (tsr_node*)0x1;
  TSR_ASSERT_OK(tsr_tensor_grad_fn(t, &n));
  return n;
}

/* next_functions[i] of node: the node (NULL for None) and its input_nr. */
static tsr_node* next_of(const tsr_node* node, int64_t i, int32_t* input_nr) {
  tsr_node* next = (tsr_node*)0x1;
  *input_nr = -7;
  TSR_ASSERT_OK(tsr_node_next_function(node, i, &next, input_nr));
  return next;
}

/* a, b leaves; c without grad: s = ((a * b) * c).sum()
 *   SumBackward0 ((MulBackward0, 0),)
 *   MulBackward0 ((MulBackward0, 0), (None, 0))
 *   MulBackward0 ((AccumulateGrad, 0), (AccumulateGrad, 0)); variable is a, b */
Test(autograd_graph, walks_the_graph_as_torch_shows_it) {
  tsr_tensor *a = ones(2, true), *b = ones(2, true), *c = ones(2, false), *ab, *abc, *s;
  TSR_ASSERT_OK(tsr_mul(a, b, &ab));
  TSR_ASSERT_OK(tsr_mul(ab, c, &abc));
  TSR_ASSERT_OK(tsr_sum(abc, 0, NULL, false, &s));

  tsr_node* sum = grad_fn(s);
  cr_assert_str_eq(tsr_node_name(sum), "SumBackward0");
  cr_assert_eq(tsr_node_num_next_functions(sum), 1);
  int32_t nr;
  tsr_node* outer = next_of(sum, 0, &nr);
  cr_assert_str_eq(tsr_node_name(outer), "MulBackward0");
  cr_assert_eq(nr, 0);
  tsr_node* by_tensor = grad_fn(abc);
  cr_assert_eq(tsr_node_id(outer), tsr_node_id(by_tensor), "next_functions and grad_fn: the same node");
  cr_assert_neq(tsr_node_id(outer), tsr_node_id(sum));

  cr_assert_eq(tsr_node_num_next_functions(outer), 2);
  tsr_node* inner = next_of(outer, 0, &nr);
  cr_assert_str_eq(tsr_node_name(inner), "MulBackward0");
  tsr_node* none = next_of(outer, 1, &nr);
  cr_assert_null(none, "c needs no gradient: None");
  cr_assert_eq(nr, 0);

  tsr_node* acc_a = next_of(inner, 0, &nr);
  tsr_node* acc_b = next_of(inner, 1, &nr);
  cr_assert_str_eq(tsr_node_name(acc_a), "torch::autograd::AccumulateGrad");
  cr_assert_eq(tsr_node_num_next_functions(acc_a), 0);
  cr_assert_neq(tsr_node_id(acc_a), tsr_node_id(acc_b));
  tsr_tensor* va;
  TSR_ASSERT_OK(tsr_node_variable(acc_a, &va));
  /* the leaf itself: the same memory, its gradient where a's goes */
  cr_assert_eq(tsr_tensor_data_ptr(va), tsr_tensor_data_ptr(a));
  cr_assert(tsr_requires_grad(va) && tsr_is_leaf(va));
  TSR_ASSERT_OK(tsr_backward(s, NULL, false));
  tsr_tensor *grad_a, *grad_va;
  TSR_ASSERT_OK(tsr_grad(a, &grad_a));
  TSR_ASSERT_OK(tsr_grad(va, &grad_va));
  cr_assert_not_null(grad_va);
  cr_assert_eq(tsr_tensor_data_ptr(grad_va), tsr_tensor_data_ptr(grad_a));
  tsr_tensor_release(grad_a);
  tsr_tensor_release(grad_va);

  tsr_tensor_release(va);
  tsr_node* nodes[] = {sum, outer, by_tensor, inner, acc_a, acc_b};
  for (size_t i = 0; i < sizeof nodes / sizeof nodes[0]; ++i) tsr_node_release(nodes[i]);
  tsr_node_release(none);
  tsr_tensor* ts[] = {a, b, c, ab, abc, s};
  for (size_t i = 0; i < sizeof ts / sizeof ts[0]; ++i) tsr_tensor_release(ts[i]);
}

/* x = ones(4, requires_grad); p, q = x.split(2); r = q * w
 *   r.grad_fn.next_functions[0] == (SplitBackward0, 1) */
Test(autograd_graph, input_nr_names_the_producers_output) {
  tsr_tensor *x = ones(4, true), *w = ones(2, false), *r, *parts[2];
  int64_t count;
  TSR_ASSERT_OK(tsr_split(x, 2, 0, parts, 2, &count));
  cr_assert_eq(count, 2);
  TSR_ASSERT_OK(tsr_mul(parts[1], w, &r));
  tsr_node* mul = grad_fn(r);
  int32_t nr;
  tsr_node* split = next_of(mul, 0, &nr);
  cr_assert_str_eq(tsr_node_name(split), "SplitBackward0");
  cr_assert_eq(nr, 1);
  tsr_node_release(split);
  tsr_node_release(mul);
  tsr_tensor_release(r);
  tsr_tensor_release(parts[0]);
  tsr_tensor_release(parts[1]);
  tsr_tensor_release(w);
  tsr_tensor_release(x);
}

/* A leaf and a tensor made without grad have no grad_fn (torch's None); the
 * node a reference holds outlives the tensors that made it. */
Test(autograd_graph, leaves_have_none_and_a_reference_keeps_the_graph) {
  tsr_tensor *a = ones(3, true), *plain = ones(3, false), *y;
  cr_assert_null(grad_fn(a));
  cr_assert_null(grad_fn(plain));
  TSR_ASSERT_OK(tsr_mul(a, a, &y));
  tsr_node* mul = grad_fn(y);
  tsr_tensor_release(y);
  tsr_tensor_release(a);
  cr_assert_str_eq(tsr_node_name(mul), "MulBackward0");
  int32_t nr;
  tsr_node* acc = next_of(mul, 1, &nr);
  tsr_tensor* leaf;
  TSR_ASSERT_OK(tsr_node_variable(acc, &leaf));
  cr_assert_eq(tsr_tensor_numel(leaf), 3);
  tsr_tensor_release(leaf);
  tsr_node_release(acc);
  tsr_node_release(mul);
  tsr_tensor_release(plain);
}

Test(autograd_graph, bad_arguments_fail_and_change_nothing) {
  tsr_tensor *a = ones(2, true), *y;
  TSR_ASSERT_OK(tsr_mul(a, a, &y));
  tsr_node* mul = grad_fn(y);
  tsr_node* untouched = (tsr_node*)0x1;
  TSR_ASSERT_FAILS(tsr_tensor_grad_fn(NULL, &untouched), TSR_ERR_INVALID_ARGUMENT, "tensor is NULL");
  cr_assert_eq(untouched, (tsr_node*)0x1);
  TSR_ASSERT_FAILS(tsr_tensor_grad_fn(y, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  int32_t nr = -7;
  TSR_ASSERT_FAILS(tsr_node_next_function(mul, 2, &untouched, &nr), TSR_ERR_INDEX_OUT_OF_RANGE,
                   "next_functions index 2 is out of range for MulBackward0, which has 2");
  TSR_ASSERT_FAILS(tsr_node_next_function(mul, -1, &untouched, &nr), TSR_ERR_INDEX_OUT_OF_RANGE, "index -1");
  cr_assert_eq(untouched, (tsr_node*)0x1);
  cr_assert_eq(nr, -7);
  TSR_ASSERT_FAILS(tsr_node_next_function(NULL, 0, &untouched, &nr), TSR_ERR_INVALID_ARGUMENT, "node is NULL");
  TSR_ASSERT_FAILS(tsr_node_next_function(mul, 0, NULL, &nr), TSR_ERR_INVALID_ARGUMENT, "next is NULL");
  tsr_tensor* t = (tsr_tensor*)0x1;
  TSR_ASSERT_FAILS(tsr_node_variable(mul, &t), TSR_ERR_INVALID_ARGUMENT,
                   "'MulBackward0' object has no attribute 'variable'");
  cr_assert_eq(t, (tsr_tensor*)0x1);
  TSR_ASSERT_FAILS(tsr_node_variable(NULL, &t), TSR_ERR_INVALID_ARGUMENT, "node is NULL");
  tsr_clear_last_error();
  cr_assert_null(tsr_node_name(NULL));
  cr_assert_eq(tsr_last_error_code(), TSR_ERR_INVALID_ARGUMENT);
  cr_assert_eq(tsr_node_num_next_functions(NULL), -1);
  cr_assert_eq(tsr_node_id(NULL), 0);
  tsr_node_release(NULL);
  tsr_node_release(mul);
  tsr_tensor_release(y);
  tsr_tensor_release(a);
}

/**
 * @file tessera/autograd_graph.h
 * @brief The autograd graph as objects (torch.Tensor.grad_fn and
 * torch.autograd.graph.Node of PyTorch 1.13: name(), next_functions, an
 * AccumulateGrad's variable).
 *
 * A tensor made by a recorded op has a grad_fn node; each node's
 * next_functions say where the gradient of each of its inputs goes: the
 * node that made that input and which of its outputs it was, a leaf's
 * AccumulateGrad node (whose variable is the leaf), or nothing for an input
 * that needs no gradient. Walking them from a loss shows the whole backward
 * graph, as torchviz does with torch's.
 *
 * @code
 *   tsr_node* fn;
 *   tsr_tensor_grad_fn(loss, &fn);              // NULL for a leaf
 *   printf("%s\n", tsr_node_name(fn));          // "SumBackward0"
 *   for (int64_t i = 0; i < tsr_node_num_next_functions(fn); ++i) {
 *     tsr_node* next; int32_t input_nr;
 *     tsr_node_next_function(fn, i, &next, &input_nr);  // next NULL: no gradient
 *     ...
 *     tsr_node_release(next);
 *   }
 *   tsr_node_release(fn);
 * @endcode
 *
 * A tsr_node is a reference: it keeps the node (and so the part of the
 * graph behind it, saved tensors included) alive until released, as a
 * Python reference to torch's grad_fn does.
 */
#ifndef TESSERA_AUTOGRAD_GRAPH_H
#define TESSERA_AUTOGRAD_GRAPH_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Opaque reference to a node of the autograd graph (torch.autograd.graph.Node). */
typedef struct tsr_node tsr_node;

/**
 * @brief torch.Tensor.grad_fn: the node that made t.
 * @param[in]  t   the tensor
 * @param[out] out a new reference, released with tsr_node_release(); NULL
 *                 for a leaf or a tensor without history (torch's None)
 * @return TSR_OK; TSR_ERR_INVALID_ARGUMENT for a NULL t or out (out is then
 *   unchanged).
 */
TSR_API tsr_status tsr_tensor_grad_fn(const tsr_tensor* t, tsr_node** out);

/**
 * @brief torch.autograd.graph.Node.name(): "MulBackward0", "SumBackward0",
 * and "torch::autograd::AccumulateGrad" for a leaf's gradient sink.
 * @param[in] node the node
 * @return the name (static storage); NULL for a NULL node (recorded as
 *   TSR_ERR_INVALID_ARGUMENT).
 */
TSR_API const char* tsr_node_name(const tsr_node* node);

/**
 * @brief len(Node.next_functions): the number of the node's inputs torch
 * lists, one entry each, those that need no gradient included; inputs of a
 * non-floating dtype (where's condition, masked_fill's mask, an index) are
 * not listed, as torch's schemas leave them out.
 * @param[in] node the node
 * @return the count (0 for an AccumulateGrad); -1 for a NULL node (recorded
 *   as TSR_ERR_INVALID_ARGUMENT).
 */
TSR_API int64_t tsr_node_num_next_functions(const tsr_node* node);

/**
 * @brief Node.next_functions[i]: where the gradient of the node's input i
 * goes.
 * @param[in]  node     the node
 * @param[in]  i        the input, in [0, tsr_node_num_next_functions(node))
 * @param[out] next     a new reference to the node that made input i (or the
 *                      leaf's AccumulateGrad), released with
 *                      tsr_node_release(); NULL when the input needs no
 *                      gradient (torch's None)
 * @param[out] input_nr which output of *next input i was (0 for an
 *                      AccumulateGrad and for NULL); may be NULL
 * @return TSR_OK; TSR_ERR_INVALID_ARGUMENT for a NULL node or next;
 *   TSR_ERR_INDEX_OUT_OF_RANGE for i outside the range. Outputs are
 *   unchanged on failure.
 */
TSR_API tsr_status tsr_node_next_function(const tsr_node* node, int64_t i, tsr_node** next, int32_t* input_nr);

/**
 * @brief AccumulateGrad.variable: the leaf whose .grad this node fills.
 * @param[in]  node an AccumulateGrad node (from next_functions)
 * @param[out] out  a new handle to the leaf, released with tsr_tensor_release()
 * @return TSR_OK; TSR_ERR_INVALID_ARGUMENT for a NULL node or out, or a
 *   node that is not an AccumulateGrad (torch: "object has no attribute
 *   'variable'"); out is then unchanged.
 */
TSR_API tsr_status tsr_node_variable(const tsr_node* node, tsr_tensor** out);

/**
 * @brief The node's identity: two references to the same node give the same
 * value, different live nodes different values (Python's `is` and hash).
 * @param[in] node the node
 * @return the identity; 0 for a NULL node.
 */
TSR_API uint64_t tsr_node_id(const tsr_node* node);

/**
 * @brief Drops a reference; the node goes when neither a reference nor a
 * tensor's history holds it.
 * @param[in] node the reference; NULL is ignored
 */
TSR_API void tsr_node_release(tsr_node* node);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_AUTOGRAD_GRAPH_H */

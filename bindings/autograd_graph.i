/* bindings/autograd_graph.i — the autograd graph as objects (torch's grad_fn
 * nodes: name(), next_functions, an AccumulateGrad's variable) over
 * include/tessera/autograd_graph.h. Included at the end of tessera.i, so
 * tessera.i's conventions hold (error bracket, TSR_RETURN_OUT).
 *
 * Python only so far: tessera/_graph.py makes Tensor.grad_fn a Node of
 * torch's class name over this handle. Java, C# and Go keep
 * Tensor.grad_fn_name and can reach the C API itself. */
#ifdef SWIGPYTHON
/* TsrNode is declared in support/bind_support.h: SWIG emits every
 * %extend TsrTensor function where tessera.i first extends it. */

%rename(GraphNode) TsrNode;
%nodefaultctor TsrNode;
typedef struct {} TsrNode;

%newobject TsrNode::next_function;
%newobject TsrNode::variable;
%newobject TsrTensor::grad_fn_node;

%extend TsrNode {
  ~TsrNode() { tsr_node_release($self); }
  /* Node.name(): "MulBackward0", "torch::autograd::AccumulateGrad". */
  const char* name() { return tsr_node_name($self); }
  /* len(next_functions) */
  int64_t num_next_functions() { return tsr_node_num_next_functions($self); }
  /* next_functions[i][0]: the node, or None for an input without gradient. */
  TsrNode* next_function(int64_t i) { TSR_RETURN_OUT(tsr_node*, NULL, tsr_node_next_function($self, i, &out, NULL)); }
  /* next_functions[i][1] */
  int32_t next_input_nr(int64_t i) {
    tsr_node* next = NULL;
    int32_t input_nr = 0;
    if (tsr_node_next_function($self, i, &next, &input_nr) != TSR_OK) return 0;
    tsr_node_release(next);
    return input_nr;
  }
  /* AccumulateGrad.variable */
  TsrTensor* variable() { TSR_RETURN_TENSOR(tsr_node_variable($self, &out)); }
  /* Equal for two handles of one node: the Python layer's identity. */
  uint64_t id() { return tsr_node_id($self); }
}

%extend TsrTensor {
  /* torch.Tensor.grad_fn's node, or None. */
  TsrNode* grad_fn_node() { TSR_RETURN_OUT(tsr_node*, NULL, tsr_tensor_grad_fn($self, &out)); }
}
#endif

/* mlp.h — a two-layer perceptron 64 -> 128 -> 10 on tessera tensors. */
#ifndef DIGITS_MLP_H
#define DIGITS_MLP_H

#include <stdbool.h>
#include <stdint.h>

#include <tessera/tessera.h>

#include "device.h"

#define MLP_INPUTS 64
#define MLP_HIDDEN 128
#define MLP_OUTPUTS 10
#define MLP_NPARAMS 4

/* The parameters, each a float32 leaf tensor of which the struct owns one
 * reference: params[MLP_W1] [64, 128], params[MLP_B1] [128],
 * params[MLP_W2] [128, 10], params[MLP_B2] [10]. */
enum { MLP_W1, MLP_B1, MLP_W2, MLP_B2 };
enum { MLP_NO_REGIONS, MLP_REGION_PER_LAYER, MLP_ONE_REGION };
typedef struct mlp {
  tsr_tensor* params[MLP_NPARAMS];
  /* Checkpoint regions (checkpoint.h) in the forward: backward recomputes
   * what they saved instead of keeping it. MLP_REGION_PER_LAYER puts each
   * layer in its own region, MLP_ONE_REGION the whole network in one. */
  int checkpoint_layers;
} mlp;

/* Names of params[i] in checkpoints: "w1", "b1", "w2", "b2". */
extern const char* const mlp_param_names[MLP_NPARAMS];

/* Weights ~ N(0, 1) * sqrt(2 / fan_in) (He initialisation, for ReLU), biases
 * 0, all requiring grad. Draws from g. */
void mlp_init(mlp* m, tsr_generator* g);
/* Moves the parameters to d (model.to(device)): each becomes a new leaf on
 * d requiring grad, as nn.Module.to leaves parameters leaves. Nothing to do
 * when they are there already. */
void mlp_to_device(mlp* m, const digits_device* d);
/* logits [B, 10] = relu(x @ w1 + b1) @ w2 + b2 for x [B, 64]; a new
 * reference. Records the graph when grad mode is on, in the checkpoint
 * regions that checkpoint_layers asks for. */
tsr_tensor* mlp_forward(const mlp* m, const tsr_tensor* x);
/* p -= lr * p.grad for every parameter (in place, under no_grad), then
 * zeroes the gradients, as optimizer.step(); optimizer.zero_grad(). */
void mlp_sgd_step(mlp* m, double lr);
/* Class with the largest logit for each row of x [B, 64], written to
 * out[0..B) (argmax, first maximum on ties). Runs under no_grad. */
void mlp_predict(const mlp* m, const tsr_tensor* x, int64_t* out);
/* Drops the parameters' references. */
void mlp_release(mlp* m);

#endif

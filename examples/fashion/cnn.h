/* cnn.h — a small convolutional network for 28x28 grey images:
 *
 *   conv 3x3, 1 -> 32, padding 1 -> batch norm -> relu -> max pool 2
 *   conv 3x3, 32 -> 64, padding 1 -> batch norm -> relu -> max pool 2
 *   flatten -> linear 64*7*7 -> 10
 *
 * the shape of torch.nn.Sequential(Conv2d(1, 32, 3, padding=1),
 * BatchNorm2d(32), ReLU(), MaxPool2d(2), Conv2d(32, 64, 3, padding=1),
 * BatchNorm2d(64), ReLU(), MaxPool2d(2), Flatten(), Linear(3136, 10)). */
#ifndef FASHION_CNN_H
#define FASHION_CNN_H

#include <stdbool.h>
#include <stdint.h>

#include <tessera/tessera.h>

#define CNN_CLASSES 10

/* The parameters (float32 leaves requiring grad) and batch-norm buffers
 * (float32, no grad), each an owned reference, in torch's state_dict order. */
enum {
  CNN_CONV1_WEIGHT, CNN_CONV1_BIAS, CNN_BN1_WEIGHT, CNN_BN1_BIAS,
  CNN_CONV2_WEIGHT, CNN_CONV2_BIAS, CNN_BN2_WEIGHT, CNN_BN2_BIAS,
  CNN_FC_WEIGHT, CNN_FC_BIAS, CNN_NPARAMS
};
enum { CNN_BN1_MEAN, CNN_BN1_VAR, CNN_BN2_MEAN, CNN_BN2_VAR, CNN_NBUFFERS };

typedef struct cnn {
  tsr_tensor* params[CNN_NPARAMS];
  tsr_tensor* buffers[CNN_NBUFFERS];
  /* Where the 4-D weights and each input batch are laid out: contiguous
   * (NCHW) or channels_last (NHWC). Convolution picks its output format
   * from its input and weight, as torch does, so this decides the format
   * of every activation. */
  tsr_memory_format memory_format;
  /* Each conv -> bn -> relu -> pool block in a checkpoint region
   * (checkpoint.h): backward recomputes the block instead of keeping its
   * activations. */
  bool checkpoint_blocks;
  /* Whether the blocks normalise (the default); false: conv -> relu ->
   * pool, the bn parameters and buffers kept but unused. fashion
   * --no-batchnorm: a model whose gradient over a batch is the mean of
   * per-sample gradients, so data-parallel ranks, each on its slice of
   * the batch, average to exactly the single-process gradient (batch
   * statistics over a slice would differ from the whole batch's). */
  bool batch_norm;
} cnn;

/* state_dict names: "conv1.weight", ..., "bn1.running_mean", ... */
extern const char* const cnn_param_names[CNN_NPARAMS];
extern const char* const cnn_buffer_names[CNN_NBUFFERS];

/* torch's default initialisation of each layer (kaiming_uniform_ with
 * a = sqrt(5) for conv and linear weights; here biases start at zero),
 * batch norm's weight 1, bias 0, running mean 0, running var 1; drawn
 * from g. Contiguous format. */
void cnn_init(cnn* m, tsr_generator* g);
/* A copy of src with its own tensors (same values), the 4-D weights in
 * memory_format, as copy.deepcopy(model).to(memory_format=...). */
void cnn_copy(cnn* dst, const cnn* src, tsr_memory_format memory_format);
/* Moves every parameter and buffer of m to the device (model.to(device)):
 * the parameters stay leaves requiring grad; a no-op on their device. */
void cnn_to_device(cnn* m, tsr_device_type device);
/* logits [B, 10] for x [B, 1, 28, 28] (any format; it is laid out in
 * m->memory_format first). training: batch statistics and running-stat
 * updates (model.train()); false: running statistics (model.eval()).
 * A new reference; records the graph when grad mode is on. */
tsr_tensor* cnn_forward(cnn* m, const tsr_tensor* x, bool training);
/* Class with the largest logit for each image of x [N, 1, 28, 28], in
 * eval mode under no_grad, batch by batch, written to out[0..N). */
void cnn_predict(cnn* m, const tsr_tensor* x, int64_t* out);
/* The indices into params[] of the parameters the forward uses (all of
 * them, or all but the bn ones without batch norm), written to out
 * [CNN_NPARAMS]; returns how many. */
int cnn_used_params(const cnn* m, int* out);
/* Number of parameter elements. */
int64_t cnn_num_parameters(const cnn* m);
void cnn_release(cnn* m);

#endif

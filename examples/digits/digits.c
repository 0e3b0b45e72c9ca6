/* digits — tessera end to end on real data, through the public C API only.
 *
 *   digits [--device cpu|cuda] [--checkpoint] [DATA.csv.gz [CHECKPOINT]]
 *
 * Reads the UCI handwritten digits (examples/data/digits.csv.gz, 8x8 grey
 * images), shuffles them with a seeded generator and splits 80/20, shows how
 * the images are laid out in memory (sizes, strides, channels_last, a
 * transposed view and its contiguous copy), trains a 64-128-10 perceptron
 * with minibatch SGD and autograd, reports held-out accuracy and the
 * allocator's statistics, saves a zstd-compressed checkpoint, loads it back
 * and checks that the reloaded model predicts exactly the same classes.
 * With --checkpoint each layer runs in a checkpoint region (gradient
 * checkpointing): it first takes one full-batch step without regions, with
 * one per layer and with one around the network, prints the peak allocated
 * memory of each and whether the gradients are identical, then trains with
 * a region per layer (same losses, same model).
 * With --device cuda the model's parameters and each minibatch move to CUDA
 * device 0 (tsr_to_device) and training, evaluation and the checkpoint
 * comparison run there; losses and predictions are read back to the host.
 * Exits 1 if any call fails, if accuracy is below 0.95, if the reloaded
 * model differs, or if checkpointing changed a gradient; 2 for a bad
 * command line; 3 (DIGITS_EXIT_NO_CUDA) when --device cuda is asked for and
 * CUDA cannot be used, after printing why to stderr. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <tessera/tessera.h>

#include "check.h"
#include "same_contents.h"
#include "dataset.h"
#include "device.h"
#include "mlp.h"

enum { SEED = 20240611, EPOCHS = 25, BATCH = 64 };
static const double LEARNING_RATE = 0.1;
static const double MIN_ACCURACY = 0.95;

/* ---- printing ----------------------------------------------------------- */

static void print_ints(const int64_t* v, int64_t n) {
  printf("[");
  for (int64_t i = 0; i < n; ++i) printf("%s%" PRId64, i ? ", " : "", v[i]);
  printf("]");
}

static bool is_contiguous(const tsr_tensor* t, tsr_memory_format f) {
  bool yes = false;
  CHECK(tsr_is_contiguous(t, f, &yes));
  return yes;
}

static void print_geometry(const char* what, const tsr_tensor* t) {
  printf("  %-32s sizes ", what);
  print_ints(tsr_tensor_sizes(t), tsr_tensor_ndim(t));
  printf("  strides ");
  print_ints(tsr_tensor_strides(t), tsr_tensor_ndim(t));
  printf("  contiguous=%s channels_last=%s\n",
         is_contiguous(t, TSR_CONTIGUOUS_FORMAT) ? "yes" : "no",
         is_contiguous(t, TSR_CHANNELS_LAST) ? "yes" : "no");
}

static bool shares_storage(const tsr_tensor* a, const tsr_tensor* b) {
  bool yes = false;
  CHECK(tsr_shares_storage(a, b, &yes));
  return yes;
}

static double pixel(const tsr_tensor* images, int64_t n, int64_t row, int64_t col) {
  const int64_t index[] = {n, 0, row, col};
  double v = 0;
  CHECK(tsr_get_double(images, 4, index, &v));
  return v;
}

/* ---- the data ----------------------------------------------------------- */

/* X [N, 1, 8, 8] float32 and y [N] int64, rows in the order of a seeded
 * random permutation (torch.randperm with a generator). */
static void shuffled_tensors(const digits_dataset* d, tsr_generator* g, tsr_tensor** X,
                             tsr_tensor** y) {
  tsr_tensor* perm = NULL;
  CHECK(tsr_randperm(d->n, g, &perm));
  int64_t* order = malloc((size_t)d->n * sizeof *order);
  float* pixels = malloc((size_t)d->n * DIGITS_PIXELS * sizeof *pixels);
  int64_t* labels = malloc((size_t)d->n * sizeof *labels);
  if (!order || !pixels || !labels) {
    fprintf(stderr, "out of memory\n");
    exit(EXIT_FAILURE);
  }
  CHECK(tsr_copy_to_buffer(perm, order, (size_t)d->n * sizeof *order, NULL));
  tsr_tensor_release(perm);
  for (int64_t i = 0; i < d->n; ++i) {
    memcpy(pixels + i * DIGITS_PIXELS, d->pixels + order[i] * DIGITS_PIXELS,
           DIGITS_PIXELS * sizeof *pixels);
    labels[i] = d->labels[order[i]];
  }
  const int64_t image_sizes[] = {d->n, 1, DIGITS_SIDE, DIGITS_SIDE};
  CHECK(tsr_from_data(pixels, (size_t)d->n * DIGITS_PIXELS * sizeof *pixels, 4, image_sizes,
                      TSR_FLOAT32, X));
  CHECK(tsr_from_data(labels, (size_t)d->n * sizeof *labels, 1, &d->n, TSR_INT64, y));
  free(order);
  free(pixels);
  free(labels);
}

/* ---- the layout tour ------------------------------------------------------ */

/* What PyTorch users know about memory layout, shown on the images. */
static void layout_tour(const tsr_tensor* X) {
  printf("\nlayout of the images (sizes and strides count elements):\n");
  print_geometry("X", X);

  /* contiguous(channels_last) copies only when needed; with one channel the
   * NCHW strides already satisfy NHWC (size-1 dims are ignored), so it hands
   * back the same tensor. clone(channels_last) always writes NHWC strides. */
  tsr_tensor *cl_same = NULL, *cl = NULL;
  CHECK(tsr_contiguous(X, TSR_CHANNELS_LAST, &cl_same));
  printf("  X.contiguous(channels_last)      %s\n",
         tsr_tensor_data_ptr(cl_same) == tsr_tensor_data_ptr(X)
             ? "is X itself: with C == 1, X is contiguous in both formats"
             : "is a copy");
  CHECK(tsr_clone(X, TSR_CHANNELS_LAST, &cl));
  print_geometry("X.clone(channels_last)", cl);

  /* A transposed view swaps strides and shares storage: no copy, but no
   * longer contiguous; contiguous() then makes a fresh row-major copy. */
  tsr_tensor *xt = NULL, *xt_dense = NULL;
  CHECK(tsr_transpose(X, 2, 3, &xt));
  print_geometry("X.transpose(2, 3)", xt);
  CHECK(tsr_contiguous(xt, TSR_CONTIGUOUS_FORMAT, &xt_dense));
  print_geometry("X.transpose(2, 3).contiguous()", xt_dense);
  printf("  transpose shares X's storage: %s; its contiguous copy does: %s\n",
         shares_storage(X, xt) ? "yes" : "no", shares_storage(X, xt_dense) ? "yes" : "no");
  printf("  X[0,0,2,5] = %.4f = X.transpose(2,3)[0,0,5,2] = %.4f = copy[0,0,5,2] = %.4f\n",
         pixel(X, 0, 2, 5), pixel(xt, 0, 5, 2), pixel(xt_dense, 0, 5, 2));

  tsr_tensor_release(xt_dense);
  tsr_tensor_release(xt);
  tsr_tensor_release(cl);
  tsr_tensor_release(cl_same);
}

/* ---- training and evaluation ---------------------------------------------- */

/* One pass over X/y in minibatches; each batch moves to dev (a copy there,
 * the batch itself on the CPU), as a DataLoader's batches do. */
static double train_epoch(mlp* m, const tsr_tensor* X, const tsr_tensor* y,
                          const digits_device* dev) {
  int64_t n = tsr_tensor_numel(y);
  double loss_sum = 0;
  int64_t batches = 0;
  for (int64_t start = 0; start < n; start += BATCH) {
    int64_t len = n - start < BATCH ? n - start : BATCH;
    /* Minibatches are views (narrow): no copy of the data. */
    tsr_tensor *xb_host = NULL, *yb_host = NULL, *loss = NULL;
    CHECK(tsr_narrow(X, 0, start, len, &xb_host));
    CHECK(tsr_narrow(y, 0, start, len, &yb_host));
    tsr_tensor* xb = digits_to_device(xb_host, dev);
    tsr_tensor* yb = digits_to_device(yb_host, dev);
    tsr_tensor_release(xb_host);
    tsr_tensor_release(yb_host);
    tsr_tensor* logits = mlp_forward(m, xb);
    CHECK(tsr_cross_entropy(logits, yb, &loss));
    CHECK(tsr_backward(loss, NULL, false));
    mlp_sgd_step(m, LEARNING_RATE);
    double value = 0;
    CHECK(tsr_item_double(loss, &value));
    loss_sum += value;
    ++batches;
    tsr_tensor_release(loss);
    tsr_tensor_release(logits);
    tsr_tensor_release(yb);
    tsr_tensor_release(xb);
  }
  return loss_sum / (double)batches;
}

static double accuracy(const int64_t* predicted, const tsr_tensor* y) {
  int64_t n = tsr_tensor_numel(y);
  int64_t* truth = malloc((size_t)n * sizeof *truth);
  if (!truth) exit(EXIT_FAILURE);
  CHECK(tsr_copy_to_buffer(y, truth, (size_t)n * sizeof *truth, NULL));
  int64_t right = 0;
  for (int64_t i = 0; i < n; ++i) right += predicted[i] == truth[i];
  free(truth);
  return (double)right / (double)n;
}

/* ---- allocator ----------------------------------------------------------- */

static double kib(int64_t bytes) { return (double)bytes / 1024.0; }

/* What the caching allocator did for the whole run so far: how much memory
 * is handed out now and at most, how much it holds from the OS, and how few
 * of the many allocations needed the OS at all. */
static void print_allocator_stats(const digits_device* dev) {
  tsr_memory_stats_t s;
  memset(&s, 0, sizeof s);
  s.struct_size = sizeof s;
  CHECK(tsr_memory_stats(dev->type, dev->index, &s));
  printf("\nallocator (%s caching allocator, sizes in KiB):\n", dev->name);
  printf("  allocated  %10.1f now, %10.1f peak  (%" PRId64 " blocks live)\n",
         kib(s.allocated_bytes.current), kib(s.allocated_bytes.peak), s.allocation.current);
  printf("  reserved   %10.1f now, %10.1f peak  (segments held: %" PRId64 ")\n",
         kib(s.reserved_bytes.current), kib(s.reserved_bytes.peak), s.segment.current);
  printf("  %" PRId64 " allocations served, %" PRId64 " of them needed a new segment\n",
         s.allocation.allocated, s.num_device_alloc);
}

/* ---- checkpoint ------------------------------------------------------------ */

static int64_t file_size(const char* path) {
  struct stat st;
  if (stat(path, &st) != 0) {
    perror(path);
    exit(EXIT_FAILURE);
  }
  return (int64_t)st.st_size;
}

static void save_checkpoint(const mlp* m, const char* path) {
  tsr_save_options opts = TSR_SAVE_OPTIONS_INIT;
  opts.compression = TSR_COMPRESSION_ZSTD;
  const char* keys[] = {"model"};
  const char* values[] = {"digits-mlp-64-128-10"};
  opts.n_metadata = 1;
  opts.metadata_keys = keys;
  opts.metadata_values = values;
  CHECK(tsr_save(path, MLP_NPARAMS, mlp_param_names, m->params, &opts));

  int64_t raw = 0;
  for (int i = 0; i < MLP_NPARAMS; ++i) raw += tsr_tensor_nbytes(m->params[i]);
  int64_t size = file_size(path);
  printf("\ncheckpoint %s: %" PRId64 " bytes on disk (zstd, header included) for %" PRId64
         " bytes of float32 parameters (%.3fx)\n",
         path, size, raw, (double)raw / (double)size);
}

/* Loads path into fresh tensors (not requiring grad) named like m's. */
static void load_checkpoint(const char* path, mlp* out) {
  tsr_tensor_map* map = NULL;
  CHECK(tsr_load(path, NULL, &map));
  printf("reloaded %" PRId64 " tensors, model \"%s\"\n", tsr_tensor_map_count(map),
         tsr_tensor_map_metadata_get(map, "model"));
  for (int i = 0; i < MLP_NPARAMS; ++i)
    CHECK(tsr_tensor_map_get_by_name(map, mlp_param_names[i], &out->params[i]));
  /* The tensors hold their own references; the map can go. */
  tsr_tensor_map_release(map);
}


/* One full-batch step of m with and without checkpoint regions, from
 * fresh gradients: prints the peak allocated above what was allocated
 * before each step, and returns whether every gradient is bit-identical. */
static bool compare_checkpointing(mlp* m, const tsr_tensor* X, const tsr_tensor* y,
                                  const digits_device* dev) {
  tsr_tensor* grads[3][MLP_NPARAMS];
  int64_t peaks[3];
  for (int with_regions = MLP_NO_REGIONS; with_regions <= MLP_ONE_REGION; ++with_regions) {
    m->checkpoint_layers = with_regions;
    int64_t base = 0, peak = 0;
    CHECK(tsr_memory_allocated(dev->type, dev->index, &base));
    CHECK(tsr_reset_peak_memory_stats(dev->type, dev->index));
    tsr_tensor* logits = mlp_forward(m, X);
    tsr_tensor* loss = NULL;
    CHECK(tsr_cross_entropy(logits, y, &loss));
    tsr_tensor_release(logits);
    CHECK(tsr_backward(loss, NULL, false));
    tsr_tensor_release(loss);
    CHECK(tsr_max_memory_allocated(dev->type, dev->index, &peak));
    peaks[with_regions] = peak - base;
    for (int i = 0; i < MLP_NPARAMS; ++i) {
      CHECK(tsr_grad(m->params[i], &grads[with_regions][i]));
      CHECK(tsr_set_grad(m->params[i], NULL));
    }
  }
  m->checkpoint_layers = MLP_NO_REGIONS;
  bool same = true;
  for (int i = 0; i < MLP_NPARAMS; ++i) {
    same = same && same_contents(grads[0][i], grads[1][i]) && same_contents(grads[0][i], grads[2][i]);
    for (int k = 0; k < 3; ++k) tsr_tensor_release(grads[k][i]);
  }
  printf("\ncheckpointing, one step on all %" PRId64 " training images:\n", tsr_tensor_numel(y));
  printf("  peak allocated during the step: %.1f KiB without regions, %.1f KiB with a region\n"
         "  per layer, %.1f KiB with one region around the network (in a network this shallow the\n"
         "  peak comes in the forward pass, which regions do not change; bench/checkpoint shows a\n"
         "  deep one)\n",
         kib(peaks[0]), kib(peaks[1]), kib(peaks[2]));
  printf("  gradients identical: %s\n", same ? "yes" : "NO");
  return same;
}

/* ---- main ------------------------------------------------------------------- */

int main(int argc, char** argv) {
  const char* positional[2] = {"examples/data/digits.csv.gz", "digits-checkpoint.tsr"};
  int n_positional = 0;
  bool use_checkpointing = false;
  digits_device dev;
  digits_device_parse("cpu", &dev);
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--checkpoint") == 0) {
      use_checkpointing = true;
    } else if (strcmp(argv[i], "--device") == 0 && i + 1 < argc &&
               digits_device_parse(argv[i + 1], &dev)) {
      ++i;
    } else if (n_positional < 2 && argv[i][0] != '-') {
      positional[n_positional++] = argv[i];
    } else {
      fprintf(stderr,
              "usage: %s [--device cpu|cuda] [--checkpoint] [DATA.csv.gz [CHECKPOINT]]\n"
              "exit status: 0 trained and checked, 1 a failure, 2 bad usage,\n"
              "%d --device cuda where CUDA is not available\n",
              argv[0], DIGITS_EXIT_NO_CUDA);
      return 2;
    }
  }
  /* Before any work: where CUDA cannot be used, say why and stop. */
  digits_device_require(&dev);
  const char* data_path = positional[0];
  const char* checkpoint_path = positional[1];
  printf("tessera %s\n", tsr_version_string());

  digits_dataset data;
  if (digits_dataset_load(data_path, &data) != 0) return 1;
  printf("read %" PRId64 " images of %dx%d pixels from %s\n", data.n, DIGITS_SIDE, DIGITS_SIDE,
         data_path);

  tsr_generator* gen = NULL;
  CHECK(tsr_generator_create(SEED, &gen));
  tsr_tensor *X = NULL, *y = NULL;
  shuffled_tensors(&data, gen, &X, &y);
  digits_dataset_free(&data);
  layout_tour(X);

  /* The MLP sees each image as 64 inputs: a view, [N, 1, 8, 8] -> [N, 64]. */
  int64_t n = tsr_tensor_numel(y), n_train = n * 8 / 10, n_test = n - n_train;
  const int64_t flat_sizes[] = {n, DIGITS_PIXELS};
  tsr_tensor *flat = NULL, *X_train = NULL, *X_test = NULL, *y_train = NULL, *y_test = NULL;
  CHECK(tsr_view(X, 2, flat_sizes, &flat));
  CHECK(tsr_narrow(flat, 0, 0, n_train, &X_train));
  CHECK(tsr_narrow(flat, 0, n_train, n_test, &X_test));
  CHECK(tsr_narrow(y, 0, 0, n_train, &y_train));
  CHECK(tsr_narrow(y, 0, n_train, n_test, &y_test));
  /* Held-out images and the full training set (--checkpoint's full-batch
   * step) live on the device; minibatches move there one at a time. */
  tsr_tensor* X_test_dev = digits_to_device(X_test, &dev);
  tsr_tensor* X_train_dev = use_checkpointing ? digits_to_device(X_train, &dev) : NULL;
  tsr_tensor* y_train_dev = use_checkpointing ? digits_to_device(y_train, &dev) : NULL;
  printf("\nsplit: %" PRId64 " training images, %" PRId64 " held out\n", n_train, n_test);

  mlp model;
  mlp_init(&model, gen);
  mlp_to_device(&model, &dev);
  printf("training on %s\n", dev.name);
  bool checkpointing_same = true;
  if (use_checkpointing) {
    checkpointing_same = compare_checkpointing(&model, X_train_dev, y_train_dev, &dev);
    model.checkpoint_layers = MLP_REGION_PER_LAYER;
  }
  printf("training MLP %d-%d-%d, SGD lr %.2f, batch %d, %d epochs\n", MLP_INPUTS, MLP_HIDDEN,
         MLP_OUTPUTS, LEARNING_RATE, BATCH, EPOCHS);
  for (int epoch = 1; epoch <= EPOCHS; ++epoch)
    printf("  epoch %2d  loss %.4f\n", epoch, train_epoch(&model, X_train, y_train, &dev));

  int64_t* predicted = malloc((size_t)n_test * sizeof *predicted);
  int64_t* reloaded_predicted = malloc((size_t)n_test * sizeof *reloaded_predicted);
  if (!predicted || !reloaded_predicted) return 1;
  mlp_predict(&model, X_test_dev, predicted);
  double acc = accuracy(predicted, y_test);
  printf("test accuracy: %.4f\n", acc);
  print_allocator_stats(&dev);

  /* Saved from the host, as torch.save of a model moved to the CPU; the
   * reloaded model goes back to the device to predict there. */
  mlp model_on_host = model;
  for (int i = 0; i < MLP_NPARAMS; ++i) tsr_tensor_retain(model.params[i]);
  digits_device cpu;
  digits_device_parse("cpu", &cpu);
  mlp_to_device(&model_on_host, &cpu);
  save_checkpoint(&model_on_host, checkpoint_path);
  mlp_release(&model_on_host);
  mlp reloaded;
  load_checkpoint(checkpoint_path, &reloaded);
  mlp_to_device(&reloaded, &dev);
  bool params_same = true;
  for (int i = 0; i < MLP_NPARAMS; ++i)
    params_same = params_same && same_contents(model.params[i], reloaded.params[i]);
  mlp_predict(&reloaded, X_test_dev, reloaded_predicted);
  bool predictions_same =
      memcmp(predicted, reloaded_predicted, (size_t)n_test * sizeof *predicted) == 0;
  printf("reloaded parameters bit-identical: %s\n", params_same ? "yes" : "NO");
  printf("reloaded predictions identical: %s\n", predictions_same ? "yes" : "NO");

  free(reloaded_predicted);
  free(predicted);
  mlp_release(&reloaded);
  mlp_release(&model);
  tsr_tensor_release(y_train_dev);
  tsr_tensor_release(X_train_dev);
  tsr_tensor_release(X_test_dev);
  tsr_tensor_release(y_test);
  tsr_tensor_release(y_train);
  tsr_tensor_release(X_test);
  tsr_tensor_release(X_train);
  tsr_tensor_release(flat);
  tsr_tensor_release(y);
  tsr_tensor_release(X);
  tsr_generator_release(gen);

  /* With every handle released, no tensor memory is in use any more (the
   * allocator keeps its segments cached; that is reserved, not allocated). */
  int64_t still_allocated = -1, still_on_device = 0;
  CHECK(tsr_memory_allocated(TSR_DEVICE_CPU, 0, &still_allocated));
  if (!digits_device_is_cpu(&dev)) CHECK(tsr_memory_allocated(dev.type, dev.index, &still_on_device));
  printf("after releasing every handle: %" PRId64 " bytes allocated on the CPU", still_allocated);
  if (!digits_device_is_cpu(&dev)) printf(", %" PRId64 " on %s", still_on_device, dev.name);
  printf("\n");
  still_allocated += still_on_device;

  if (acc < MIN_ACCURACY) {
    fprintf(stderr, "FAILED: accuracy %.4f below %.2f\n", acc, MIN_ACCURACY);
    return 1;
  }
  if (still_allocated != 0) {
    fprintf(stderr, "FAILED: tensor memory still allocated after every release\n");
    return 1;
  }
  if (!checkpointing_same) {
    fprintf(stderr, "FAILED: checkpoint regions changed the gradients\n");
    return 1;
  }
  if (!params_same || !predictions_same) {
    fprintf(stderr, "FAILED: the reloaded model differs from the trained one\n");
    return 1;
  }
  return 0;
}

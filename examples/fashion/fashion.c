/* fashion — a convolutional network trained on real photographs in
 * channels_last, through the public C API only.
 *
 *   fashion [--epochs N] [--train-limit N] [--memory-format channels_last|contiguous|both]
 *           [--timing-steps N] [--checkpoint] [--autocast bf16|f16] [--min-accuracy A]
 *           [--no-batchnorm] [--max-steps N] [--log-every N] [--ddp]
 *           [--device cpu|cuda] [--test-limit N] [--batch-size N] [DATA_DIR [CHECKPOINT]]
 *
 * Reads Fashion-MNIST (Zalando's 70,000 28x28 grey photos of clothes and
 * shoes in 10 classes, Debian package dataset-fashion-mnist, default
 * DATA_DIR /usr/share/datasets/fashion-mnist), trains the network of cnn.h
 * with AdamW and cross-entropy on minibatches reshuffled each epoch in
 * channels_last (--memory-format contiguous or both: in NCHW, or in both
 * from the same weights on the same batches), reports test accuracy
 * (`test accuracy:` is the first format's), times training steps in both
 * formats side by side (--timing-steps, 0 to skip) with the epoch time
 * they make, a profiler table of a few training steps, the allocator's
 * statistics, saves a zstd checkpoint of the state dict, reloads it and
 * checks the predictions are identical.
 * With --checkpoint each conv block runs in a checkpoint region: one step
 * with and without regions first (peak memory of each, gradients compared),
 * then training with regions.
 * With --autocast the forward passes (training and prediction) run in an
 * autocast region (torch.autocast("cpu", dtype=...)): convolutions and the
 * linear layer in bfloat16 or float16, the loss in float32; the side-by-side
 * timing then also compares float32 with autocast steps.
 * --no-batchnorm drops batch norm from the blocks; --max-steps ends
 * training after N optimizer steps; --log-every prints the loss of every
 * Nth step (`step N loss L`).
 * --device cuda trains and evaluates on CUDA device 0 (model.to("cuda"),
 * batches moved there, autocast("cuda") with --autocast, the profile
 * sorted by CUDA time, the CUDA allocator's statistics); exits 3 with the
 * reason when CUDA cannot be used. --test-limit evaluates on the first N
 * test images only; --batch-size sets the images per step (default 64).
 * With --ddp (run under `tessera-run --nproc-per-node W fashion --ddp ...`,
 * env:// rendezvous) each rank trains on its slice of every global batch
 * (the same batch of 64 in the same order as the single-process run) in a
 * DistributedDataParallel reducer over the parameters, with its local loss
 * weighted so the averaged gradient is the global batch's: rank 0 prints,
 * evaluates and saves the checkpoint; there is no timing, profile or
 * second format. With --no-batchnorm too its loss lines are the
 * single-process run's to 4 digits for the first tens of steps, then
 * drift apart as much as single-process runs on 1 and 2 threads do (the
 * order of float sums differs; training amplifies it). Batch norm's
 * statistics would be per rank, as in torch's DDP without SyncBatchNorm:
 * close, not the same.
 * Exits 1 if a call fails, accuracy is below the minimum (default 0.89),
 * the reloaded model differs, checkpointing changes a gradient or memory
 * stays allocated after every release; 2 for a bad command line. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <tessera/tessera.h>

#include "check.h"
#include "same_contents.h"
#include "cnn.h"
#include "idx.h"

enum { SEED = 20241126, PROFILED_STEPS = 10, COMPARE_BATCH = 256, TIMING_STEPS = 60 };
/* Images per training step (--batch-size). */
static int g_batch = 64;
static const double LEARNING_RATE = 1e-3, WEIGHT_DECAY = 1e-2;
/* Fashion-MNIST's training-set pixel mean and standard deviation (of
 * grey levels scaled to [0, 1]), the usual transforms.Normalize values. */
static const float PIXEL_MEAN = 0.2860f, PIXEL_STD = 0.3530f;
static const double PROGRESS_SECONDS = 5.0;

typedef struct options {
  int epochs;
  int timing_steps;
  int64_t train_limit;
  int n_formats;
  tsr_memory_format formats[2];
  bool checkpoint;
  tsr_dtype autocast; /* TSR_FLOAT32: no autocast */
  double min_accuracy;
  bool batch_norm;
  int64_t max_steps; /* 0: no limit */
  int64_t log_every; /* 0: no step lines */
  bool ddp;
  tsr_device_type device;
  int64_t test_limit; /* 0: the whole test set */
  const char* data_dir;
  const char* checkpoint_path;
} options;

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static const char* format_name(tsr_memory_format f) {
  return f == TSR_CHANNELS_LAST ? "channels_last" : "contiguous";
}

static double mib(int64_t bytes) { return (double)bytes / (1024.0 * 1024.0); }

/* The lower precision of --autocast (TSR_FLOAT32: none). */
static tsr_dtype g_autocast = TSR_FLOAT32;
/* Where the model and the data live (--device). */
static tsr_device_type g_device = TSR_DEVICE_CPU;

static const char* device_name(tsr_device_type d) { return d == TSR_DEVICE_CUDA ? "cuda" : "cpu"; }

/* t moved to g_device (a new reference; t is released). */
static tsr_tensor* to_device(tsr_tensor* t) {
  tsr_tensor* there = NULL;
  CHECK(tsr_to_device(t, g_device, 0, false, &there));
  tsr_tensor_release(t);
  return there;
}

static void autocast_begin(void) {
  if (g_autocast != TSR_FLOAT32) CHECK(tsr_autocast_begin(g_device, g_autocast, true));
}

static void autocast_end(void) {
  if (g_autocast != TSR_FLOAT32) CHECK(tsr_autocast_end());
}

/* The data-parallel group under --ddp (NULL: one process), this
 * process's rank and the number of ranks. */
static tsr_process_group* g_pg = NULL;
static int g_rank = 0, g_world = 1;

/* ---- data ------------------------------------------------------------------ */

/* X [N, 1, 28, 28] float32 normalised, y [N] int64. */
static void split_tensors(const fashion_split* s, tsr_tensor** X, tsr_tensor** y) {
  size_t n_pixels = (size_t)s->n * FASHION_PIXELS;
  float* pixels = malloc(n_pixels * sizeof *pixels);
  if (!pixels) {
    fprintf(stderr, "out of memory\n");
    exit(EXIT_FAILURE);
  }
  for (size_t i = 0; i < n_pixels; ++i)
    pixels[i] = ((float)s->pixels[i] / 255.0f - PIXEL_MEAN) / PIXEL_STD;
  const int64_t sizes[] = {s->n, 1, FASHION_SIDE, FASHION_SIDE};
  CHECK(tsr_from_data(pixels, n_pixels * sizeof *pixels, 4, sizes, TSR_FLOAT32, X));
  CHECK(tsr_from_data(s->labels, (size_t)s->n * sizeof *s->labels, 1, &s->n, TSR_INT64, y));
  free(pixels);
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

/* ---- training ---------------------------------------------------------------- */

static tsr_optimizer* adamw(cnn* m) {
  tsr_adam_options o;
  tsr_adam_options_init(&o);
  o.lr = LEARNING_RATE;
  o.weight_decay = WEIGHT_DECAY;
  tsr_optimizer* opt = NULL;
  CHECK(tsr_optimizer_adamw(m->params, CNN_NPARAMS, &o, &opt));
  return opt;
}

/* One optimizer step on xb/yb; returns the loss (the mean over xb). */
static double train_step(cnn* m, tsr_optimizer* opt, const tsr_tensor* xb, const tsr_tensor* yb) {
  tsr_tensor* loss = NULL;
  autocast_begin();
  tsr_tensor* logits = cnn_forward(m, xb, true);
  CHECK(tsr_cross_entropy(logits, yb, &loss));
  autocast_end();
  CHECK(tsr_optimizer_zero_grad(opt, true));
  CHECK(tsr_backward(loss, NULL, false));
  CHECK(tsr_optimizer_step(opt));
  double value = 0;
  CHECK(tsr_item_double(loss, &value));
  tsr_tensor_release(loss);
  tsr_tensor_release(logits);
  return value;
}

/* The sum over ranks of value (value itself in one process). */
static double sum_over_ranks(double value) {
  if (!g_pg) return value;
  tsr_tensor* t = NULL;
  const int64_t one = 1;
  CHECK(tsr_from_data(&value, sizeof value, 1, &one, TSR_FLOAT64, &t));
  CHECK(tsr_all_reduce(g_pg, t, TSR_REDUCE_SUM, NULL));
  CHECK(tsr_item_double(t, &value));
  tsr_tensor_release(t);
  return value;
}

/* One optimizer step on the global batch [first, first + len) of Xs/ys:
 * this rank's slice [first + len·r/W, first + len·(r+1)/W). The reducer
 * averages the ranks' gradients, so each rank's mean loss is weighted by
 * W·(its share of the batch): the average is the gradient of the global
 * batch's mean loss whatever the split (weight 1 for equal slices). A
 * rank whose slice is empty steps on one sample weighted 0. Returns the
 * global batch's mean loss. */
static double train_global_batch(cnn* m, tsr_optimizer* opt, const tsr_tensor* Xs, const tsr_tensor* ys,
                                 int64_t first, int64_t len) {
  int64_t lo = first + len * g_rank / g_world, hi = first + len * (g_rank + 1) / g_world;
  int64_t local = hi - lo;
  tsr_tensor *xb = NULL, *yb = NULL;
  CHECK(tsr_narrow(Xs, 0, local ? lo : first, local ? local : 1, &xb));
  CHECK(tsr_narrow(ys, 0, local ? lo : first, local ? local : 1, &yb));
  double loss;
  if (g_world == 1) {
    loss = train_step(m, opt, xb, yb);
  } else {
    const double weight = (double)g_world * (double)local / (double)len;
    tsr_tensor *mean = NULL, *weighted = NULL;
    autocast_begin();
    tsr_tensor* logits = cnn_forward(m, xb, true);
    CHECK(tsr_cross_entropy(logits, yb, &mean));
    autocast_end();
    CHECK(tsr_mul_scalar(mean, weight, &weighted));
    CHECK(tsr_optimizer_zero_grad(opt, true));
    CHECK(tsr_backward(weighted, NULL, false)); /* the reducer averages the gradients */
    CHECK(tsr_optimizer_step(opt));
    double value = 0;
    CHECK(tsr_item_double(mean, &value));
    loss = sum_over_ranks(value * (double)local) / (double)len;
    tsr_tensor_release(weighted);
    tsr_tensor_release(mean);
    tsr_tensor_release(logits);
  }
  tsr_tensor_release(yb);
  tsr_tensor_release(xb);
  return loss;
}

/* One pass over X/y in a fresh random order (DataLoader(shuffle=True)):
 * the epoch's permutation gathers a shuffled copy, whose minibatches are
 * views, up to --max-steps steps in all (*steps counts them). Prints a
 * progress line every few seconds; returns the mean loss and the number
 * of images trained on in *images. */
static double train_epoch(cnn* m, tsr_optimizer* opt, const options* opts, const tsr_tensor* X,
                          const tsr_tensor* y, tsr_generator* g, int epoch, int64_t* steps,
                          int64_t* images) {
  int64_t n = tsr_tensor_numel(y);
  tsr_tensor *perm = NULL, *Xs = NULL, *ys = NULL;
  CHECK(tsr_randperm(n, g, &perm));
  perm = to_device(perm); /* drawn on the CPU generator, as DataLoader's sampler */
  CHECK(tsr_index_select(X, 0, perm, &Xs));
  CHECK(tsr_index_select(y, 0, perm, &ys));
  tsr_tensor_release(perm);
  const bool tty = isatty(STDOUT_FILENO);
  double start = now_seconds(), last_report = start, loss_sum = 0;
  int64_t batches = 0;
  for (int64_t first = 0; first < n && !(opts->max_steps && *steps >= opts->max_steps); first += g_batch) {
    int64_t len = n - first < g_batch ? n - first : g_batch;
    double loss = train_global_batch(m, opt, Xs, ys, first, len);
    loss_sum += loss;
    ++batches;
    ++*steps;
    if (opts->log_every && *steps % opts->log_every == 0) {
      printf("%s  step %5" PRId64 "  loss %.6f\n", tty ? "\r" : "", *steps, loss);
      fflush(stdout);
    }
    double t = now_seconds();
    if (t - last_report >= PROGRESS_SECONDS) {
      last_report = t;
      printf("%s    epoch %d [%6" PRId64 "/%" PRId64 "] loss %.4f  %.0f images/s%s",
             tty ? "\r" : "", epoch, first + len, n, loss_sum / (double)batches,
             (double)(first + len) / (t - start), tty ? "" : "\n");
      fflush(stdout);
    }
  }
  if (tty) printf("\r%70s\r", "");
  *images = batches * g_batch < n ? batches * g_batch : n;
  tsr_tensor_release(ys);
  tsr_tensor_release(Xs);
  return batches ? loss_sum / (double)batches : NAN;
}

typedef struct run_result {
  double seconds_per_epoch[64];
  double accuracy;
} run_result;

/* Trains m for opts->epochs with a generator seeded as every other
 * format's run, so each format sees the same batches in the same order. */
static void train(cnn* m, const options* opts, const tsr_tensor* X, const tsr_tensor* y,
                  run_result* r) {
  tsr_generator* g = NULL;
  CHECK(tsr_generator_create(SEED + 1, &g));
  tsr_optimizer* opt = adamw(m);
  /* Under --ddp the reducer over the parameters the forward uses (the
   * optimizer skips the unused bn ones: no gradient); creating it gives
   * every rank rank 0's values. */
  tsr_ddp* ddp = NULL;
  if (g_pg) {
    int used[CNN_NPARAMS];
    tsr_tensor* params[CNN_NPARAMS];
    int n_used = cnn_used_params(m, used);
    for (int i = 0; i < n_used; ++i) params[i] = m->params[used[i]];
    tsr_ddp_options o = TSR_DDP_OPTIONS_INIT;
    CHECK(tsr_ddp_create(g_pg, n_used, params, &o, &ddp));
  }
  printf("\ntraining in %s%s: AdamW lr %g weight_decay %g, batch %d, %d epochs\n",
         format_name(m->memory_format), m->checkpoint_blocks ? " with a checkpoint region per block" : "",
         LEARNING_RATE, WEIGHT_DECAY, g_batch, opts->epochs);
  if (g_pg)
    printf("data parallel: %d ranks, %d images of each batch of %d per rank\n", g_world,
           g_batch / g_world, g_batch);
  int64_t steps = 0;
  for (int epoch = 1; epoch <= opts->epochs; ++epoch) {
    if (opts->max_steps && steps >= opts->max_steps) { /* --max-steps reached */
      r->seconds_per_epoch[epoch - 1] = 0;
      continue;
    }
    double t0 = now_seconds();
    int64_t images = 0;
    double loss = train_epoch(m, opt, opts, X, y, g, epoch, &steps, &images);
    double dt = now_seconds() - t0;
    r->seconds_per_epoch[epoch - 1] = dt;
    printf("  epoch %2d  loss %.4f  %.1f s  (%.0f images/s)\n", epoch, loss, dt,
           (double)images / dt);
  }
  tsr_ddp_release(ddp);
  tsr_optimizer_release(opt);
  tsr_generator_release(g);
}

/* steps training steps of a scratch copy of m in memory format fmt, after
 * one untimed warm-up step, on the same batches whatever the run: wall
 * milliseconds per step. */
static double ms_per_step(const cnn* m, tsr_memory_format fmt, const tsr_tensor* X, const tsr_tensor* y,
                          int steps) {
  const int64_t n = tsr_tensor_numel(y);
  cnn scratch;
  cnn_copy(&scratch, m, fmt);
  scratch.checkpoint_blocks = m->checkpoint_blocks;
  tsr_optimizer* opt = adamw(&scratch);
  double t0 = 0;
  for (int i = 0; i <= steps; ++i) {
    if (i == 1) t0 = now_seconds();
    tsr_tensor *xb = NULL, *yb = NULL;
    int64_t first = ((int64_t)i * g_batch) % (n - g_batch + 1);
    CHECK(tsr_narrow(X, 0, first, g_batch, &xb));
    CHECK(tsr_narrow(y, 0, first, g_batch, &yb));
    train_step(&scratch, opt, xb, yb);
    tsr_tensor_release(yb);
    tsr_tensor_release(xb);
  }
  const double ms = (now_seconds() - t0) * 1e3 / steps;
  tsr_optimizer_release(opt);
  cnn_release(&scratch);
  return ms;
}

/* ---- memory formats, side by side ------------------------------------------------- */

/* steps training steps of a scratch copy of m in each memory format, from
 * the same weights on the same batches, after one untimed warm-up step:
 * milliseconds per step, and what that makes an epoch of n images. */
static void compare_formats(const cnn* m, const tsr_tensor* X, const tsr_tensor* y, int steps) {
  static const tsr_memory_format formats[2] = {TSR_CHANNELS_LAST, TSR_CONTIGUOUS_FORMAT};
  const int64_t n = tsr_tensor_numel(y), batches = (n + g_batch - 1) / g_batch;
  double ms[2];
  for (int k = 0; k < 2; ++k) ms[k] = ms_per_step(m, formats[k], X, y, steps);
  printf("\nmemory formats, %d training steps of batch %d each (%" PRId64 " threads):\n", steps,
         g_batch, tsr_get_num_threads());
  for (int k = 0; k < 2; ++k)
    printf("  %-14s %8.2f ms/step   %7.1f s per epoch of %" PRId64 " images\n",
           format_name(formats[k]), ms[k], ms[k] * (double)batches / 1e3, n);
  printf("  channels_last / contiguous time: %.2f\n", ms[0] / ms[1]);
}

/* ---- autocast, side by side ------------------------------------------------------- */

/* steps training steps of a scratch copy of m in format fmt in float32 and
 * under --autocast, from the same weights on the same batches after one
 * untimed warm-up step each: milliseconds per step and their ratio. */
static void compare_autocast(const cnn* m, tsr_memory_format fmt, const tsr_tensor* X, const tsr_tensor* y,
                             int steps) {
  const tsr_dtype chosen = g_autocast;
  const tsr_dtype modes[2] = {TSR_FLOAT32, chosen};
  double ms[2];
  for (int k = 0; k < 2; ++k) {
    g_autocast = modes[k];
    ms[k] = ms_per_step(m, fmt, X, y, steps);
  }
  g_autocast = chosen;
  printf("\nautocast, %d training steps of batch %d each in %s (%" PRId64 " threads):\n", steps, g_batch,
         format_name(fmt), tsr_get_num_threads());
  printf("  float32            %8.2f ms/step\n", ms[0]);
  printf("  %-8s autocast  %8.2f ms/step\n", tsr_dtype_name(chosen), ms[1]);
  printf("  float32 / autocast time: %.2f\n", ms[0] / ms[1]);
}

/* ---- profiler ---------------------------------------------------------------- */

/* A few training steps of a scratch copy of m under the profiler, and its
 * table of the ops that took the most time (torch.profiler's
 * key_averages().table(sort_by="self_cpu_time_total")). */
static void profile_steps(const cnn* m, const tsr_tensor* X, const tsr_tensor* y) {
  cnn scratch;
  cnn_copy(&scratch, m, m->memory_format);
  tsr_optimizer* opt = adamw(&scratch);
  tsr_profiler_options po;
  tsr_profiler_options_init(&po);
  po.record_shapes = false;
  po.profile_memory = true;
  if (g_device == TSR_DEVICE_CUDA) po.activities = TSR_PROFILER_ACTIVITY_CPU | TSR_PROFILER_ACTIVITY_CUDA;
  CHECK(tsr_profiler_start(&po));
  for (int i = 0; i < PROFILED_STEPS; ++i) {
    tsr_tensor *xb = NULL, *yb = NULL;
    CHECK(tsr_narrow(X, 0, (int64_t)i * g_batch, g_batch, &xb));
    CHECK(tsr_narrow(y, 0, (int64_t)i * g_batch, g_batch, &yb));
    train_step(&scratch, opt, xb, yb);
    tsr_tensor_release(yb);
    tsr_tensor_release(xb);
  }
  tsr_profiler_result* result = NULL;
  CHECK(tsr_profiler_stop(&result));
  char* table = NULL;
  const bool cuda = g_device == TSR_DEVICE_CUDA;
  CHECK(tsr_profiler_table(result, cuda ? "cuda_time_total" : "self_cpu_time_total", 12, &table));
  printf("\nprofile of %d training steps in %s (batch %d), top ops by %s:\n%s", PROFILED_STEPS,
         format_name(m->memory_format), g_batch, cuda ? "CUDA time" : "self time", table);
  tsr_free_string(table);
  tsr_profiler_result_release(result);
  tsr_optimizer_release(opt);
  cnn_release(&scratch);
}

/* ---- checkpointing ------------------------------------------------------------- */


/* One forward+backward on the first COMPARE_BATCH images, by scratch
 * copies of m with and without a region per block: prints the peak
 * memory above the step's start for each and returns whether every
 * gradient is bit-identical. */
static bool compare_checkpointing(const cnn* m, const tsr_tensor* X, const tsr_tensor* y) {
  tsr_tensor *xb = NULL, *yb = NULL;
  CHECK(tsr_narrow(X, 0, 0, COMPARE_BATCH, &xb));
  CHECK(tsr_narrow(y, 0, 0, COMPARE_BATCH, &yb));
  tsr_tensor* grads[2][CNN_NPARAMS];
  int64_t peaks[2];
  for (int regions = 0; regions < 2; ++regions) {
    cnn scratch;
    cnn_copy(&scratch, m, m->memory_format);
    scratch.checkpoint_blocks = regions == 1;
    int64_t base = 0, peak = 0;
    CHECK(tsr_memory_allocated(g_device, 0, &base));
    CHECK(tsr_reset_peak_memory_stats(g_device, 0));
    tsr_tensor *loss = NULL, *logits = cnn_forward(&scratch, xb, true);
    CHECK(tsr_cross_entropy(logits, yb, &loss));
    tsr_tensor_release(logits);
    CHECK(tsr_backward(loss, NULL, false));
    tsr_tensor_release(loss);
    CHECK(tsr_max_memory_allocated(g_device, 0, &peak));
    peaks[regions] = peak - base;
    for (int i = 0; i < CNN_NPARAMS; ++i) CHECK(tsr_grad(scratch.params[i], &grads[regions][i]));
    cnn_release(&scratch);
  }
  bool same = true;
  for (int i = 0; i < CNN_NPARAMS; ++i) {
    same = same && same_contents(grads[0][i], grads[1][i]);
    tsr_tensor_release(grads[0][i]);
    tsr_tensor_release(grads[1][i]);
  }
  tsr_tensor_release(yb);
  tsr_tensor_release(xb);
  printf("\ncheckpointing, one step on %d images in %s:\n", COMPARE_BATCH,
         format_name(m->memory_format));
  printf("  peak allocated during the step: %.1f MiB without regions, %.1f MiB with a region\n"
         "  per conv block (%.2fx)\n",
         mib(peaks[0]), mib(peaks[1]), (double)peaks[0] / (double)(peaks[1] ? peaks[1] : 1));
  printf("  gradients identical: %s\n", same ? "yes" : "NO");
  return same;
}

/* ---- checkpoint file --------------------------------------------------------------- */

static void save_state(const cnn* m, const char* path) {
  const char* names[CNN_NPARAMS + CNN_NBUFFERS];
  tsr_tensor* tensors[CNN_NPARAMS + CNN_NBUFFERS];
  int64_t raw = 0;
  for (int i = 0; i < CNN_NPARAMS; ++i) {
    names[i] = cnn_param_names[i];
    tensors[i] = m->params[i];
  }
  for (int i = 0; i < CNN_NBUFFERS; ++i) {
    names[CNN_NPARAMS + i] = cnn_buffer_names[i];
    tensors[CNN_NPARAMS + i] = m->buffers[i];
  }
  for (int i = 0; i < CNN_NPARAMS + CNN_NBUFFERS; ++i) raw += tsr_tensor_nbytes(tensors[i]);
  tsr_save_options opts = TSR_SAVE_OPTIONS_INIT;
  opts.compression = TSR_COMPRESSION_ZSTD;
  const char* keys[] = {"model"};
  const char* values[] = {"fashion-cnn-32-64"};
  opts.n_metadata = 1;
  opts.metadata_keys = keys;
  opts.metadata_values = values;
  CHECK(tsr_save(path, CNN_NPARAMS + CNN_NBUFFERS, names, tensors, &opts));
  struct stat st;
  if (stat(path, &st) != 0) {
    perror(path);
    exit(EXIT_FAILURE);
  }
  printf("\ncheckpoint %s: %lld bytes on disk (zstd) for %" PRId64 " bytes of float32 state\n",
         path, (long long)st.st_size, raw);
}

/* Loads path into out (contiguous tensors, as saved), then lays the 4-D
 * weights out in memory_format (model.load_state_dict then .to(...)); the
 * model normalises or not as batch_norm says (the state has both). */
static void load_state(const char* path, tsr_memory_format memory_format, bool batch_norm, cnn* out) {
  tsr_tensor_map* map = NULL;
  CHECK(tsr_load(path, NULL, &map));
  cnn loaded;
  memset(&loaded, 0, sizeof loaded);
  for (int i = 0; i < CNN_NPARAMS; ++i)
    CHECK(tsr_tensor_map_get_by_name(map, cnn_param_names[i], &loaded.params[i]));
  for (int i = 0; i < CNN_NBUFFERS; ++i)
    CHECK(tsr_tensor_map_get_by_name(map, cnn_buffer_names[i], &loaded.buffers[i]));
  tsr_tensor_map_release(map);
  loaded.memory_format = TSR_CONTIGUOUS_FORMAT;
  loaded.batch_norm = batch_norm;
  cnn_to_device(&loaded, g_device);
  cnn_copy(out, &loaded, memory_format);
  cnn_release(&loaded);
}

/* ---- main ------------------------------------------------------------------------------ */

static int usage(const char* argv0) {
  fprintf(stderr,
          "usage: %s [--epochs N] [--train-limit N] "
          "[--memory-format channels_last|contiguous|both]\n"
          "          [--timing-steps N] [--checkpoint] [--autocast bf16|f16] [--min-accuracy A]\n"
          "          [--no-batchnorm] [--max-steps N] [--log-every N] [--ddp]\n"
          "          [--device cpu|cuda] [--test-limit N] [--batch-size N] [DATA_DIR [CHECKPOINT]]\n"
          "  --ddp runs under tessera-run (env://), e.g. tessera-run --nproc-per-node 2 %s --ddp\n"
          "  (one memory format, no --checkpoint)\n",
          argv0, argv0);
  return 2;
}

static bool parse_args(int argc, char** argv, options* o) {
  *o = (options){2, TIMING_STEPS, 0, 1, {TSR_CHANNELS_LAST, TSR_CONTIGUOUS_FORMAT}, false, TSR_FLOAT32, 0.89,
                 true, 0, 0, false, TSR_DEVICE_CPU, 0, "/usr/share/datasets/fashion-mnist",
                 "fashion-checkpoint.tsr"};
  int n_positional = 0;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : NULL;
    char* end = NULL;
    if (strcmp(a, "--checkpoint") == 0) {
      o->checkpoint = true;
    } else if (strcmp(a, "--no-batchnorm") == 0) {
      o->batch_norm = false;
    } else if (strcmp(a, "--ddp") == 0) {
      o->ddp = true;
    } else if ((strcmp(a, "--max-steps") == 0 || strcmp(a, "--log-every") == 0 ||
                strcmp(a, "--test-limit") == 0) && v) {
      long long n = strtoll(v, &end, 10);
      if (*end || n < 1) return false;
      *(a[2] == 'm' ? &o->max_steps : a[2] == 'l' ? &o->log_every : &o->test_limit) = n;
      ++i;
    } else if (strcmp(a, "--batch-size") == 0 && v) {
      long n = strtol(v, &end, 10);
      if (*end || n < 1 || n > 4096) return false;
      g_batch = (int)n;
      ++i;
    } else if (strcmp(a, "--device") == 0 && v) {
      if (strcmp(v, "cpu") == 0) o->device = TSR_DEVICE_CPU;
      else if (strcmp(v, "cuda") == 0) o->device = TSR_DEVICE_CUDA;
      else return false;
      ++i;
    } else if (strcmp(a, "--autocast") == 0 && v) {
      if (strcmp(v, "bf16") == 0) o->autocast = TSR_BFLOAT16;
      else if (strcmp(v, "f16") == 0) o->autocast = TSR_FLOAT16;
      else return false;
      ++i;
    } else if (strcmp(a, "--epochs") == 0 && v) {
      long e = strtol(v, &end, 10);
      if (*end || e < 1 || e > 64) return false;
      o->epochs = (int)e;
      ++i;
    } else if (strcmp(a, "--timing-steps") == 0 && v) {
      long n = strtol(v, &end, 10);
      if (*end || n < 0 || n > 100000) return false;
      o->timing_steps = (int)n;
      ++i;
    } else if (strcmp(a, "--train-limit") == 0 && v) {
      long long n = strtoll(v, &end, 10);
      if (*end || n < COMPARE_BATCH) return false;
      o->train_limit = n;
      ++i;
    } else if (strcmp(a, "--min-accuracy") == 0 && v) {
      o->min_accuracy = strtod(v, &end);
      if (*end || !(o->min_accuracy >= 0 && o->min_accuracy <= 1)) return false;
      ++i;
    } else if (strcmp(a, "--memory-format") == 0 && v) {
      if (strcmp(v, "channels_last") == 0) {
        o->n_formats = 1;
      } else if (strcmp(v, "contiguous") == 0) {
        o->n_formats = 1;
        o->formats[0] = TSR_CONTIGUOUS_FORMAT;
      } else if (strcmp(v, "both") == 0) {
        o->n_formats = 2;
      } else {
        return false;
      }
      ++i;
    } else if (a[0] != '-' && n_positional < 2) {
      if (n_positional++ == 0)
        o->data_dir = a;
      else
        o->checkpoint_path = a;
    } else {
      return false;
    }
  }
  /* A data-parallel run trains one model: no second format, and no
   * checkpoint-region comparison (a step outside the reducer). */
  return !(o->ddp && (o->n_formats != 1 || o->checkpoint));
}

/* Joins the job of tessera-run (env://: RANK, WORLD_SIZE, MASTER_ADDR,
 * MASTER_PORT); ranks other than 0 print nothing on stdout. */
static void join_process_group(void) {
  tsr_process_group_options o = TSR_PROCESS_GROUP_OPTIONS_INIT;
  o.timeout_ms = 120000;
  CHECK(tsr_process_group_init(&o, &g_pg));
  g_rank = tsr_process_group_rank(g_pg);
  g_world = tsr_process_group_size(g_pg);
  if (g_rank != 0 && !freopen("/dev/null", "w", stdout)) {
    perror("/dev/null");
    exit(EXIT_FAILURE);
  }
}

int main(int argc, char** argv) {
  options opts;
  if (!parse_args(argc, argv, &opts)) return usage(argv[0]);
  g_autocast = opts.autocast;
  g_device = opts.device;
  if (g_device == TSR_DEVICE_CUDA && tsr_cuda_init() != TSR_OK) {
    fprintf(stderr, "fashion: CUDA is not available: %s\n", tsr_last_error_message());
    return 3;
  }
  if (opts.ddp) join_process_group();
  printf("tessera %s, %" PRId64 " threads, device %s\n", tsr_version_string(), tsr_get_num_threads(),
         device_name(g_device));

  fashion_split train_split, test_split;
  if (fashion_split_load(opts.data_dir, "train", opts.train_limit, &train_split) != 0 ||
      fashion_split_load(opts.data_dir, "t10k", opts.test_limit, &test_split) != 0)
    return 1;
  printf("read %" PRId64 " training and %" PRId64 " test images of %dx%d pixels from %s\n",
         train_split.n, test_split.n, FASHION_SIDE, FASHION_SIDE, opts.data_dir);
  tsr_tensor *X_train = NULL, *y_train = NULL, *X_test = NULL, *y_test = NULL;
  split_tensors(&train_split, &X_train, &y_train);
  split_tensors(&test_split, &X_test, &y_test);
  fashion_split_free(&train_split);
  fashion_split_free(&test_split);
  /* The images on the device; the test labels stay on the host, where
   * accuracy() reads them. */
  X_train = to_device(X_train);
  y_train = to_device(y_train);
  X_test = to_device(X_test);

  tsr_generator* init_gen = NULL;
  CHECK(tsr_generator_create(SEED, &init_gen));
  cnn initial;
  cnn_init(&initial, init_gen);
  tsr_generator_release(init_gen);
  cnn_to_device(&initial, g_device);
  initial.batch_norm = opts.batch_norm;
  if (opts.batch_norm)
    printf("network: conv 32 -> bn -> relu -> pool -> conv 64 -> bn -> relu -> pool -> linear 10,"
           " %" PRId64 " parameters\n", cnn_num_parameters(&initial));
  else
    printf("network: conv 32 -> relu -> pool -> conv 64 -> relu -> pool -> linear 10 (no batch norm)\n");

  int64_t n_test = tsr_tensor_numel(y_test);
  int64_t* predicted = malloc((size_t)n_test * sizeof *predicted);
  int64_t* reloaded_predicted = malloc((size_t)n_test * sizeof *reloaded_predicted);
  if (!predicted || !reloaded_predicted) return 1;

  bool checkpointing_same = true;
  cnn trained; /* the first format's model: profiled, saved, reloaded */
  run_result results[2];
  for (int k = 0; k < opts.n_formats; ++k) {
    cnn model;
    cnn_copy(&model, &initial, opts.formats[k]);
    if (opts.checkpoint) {
      checkpointing_same = compare_checkpointing(&model, X_train, y_train) && checkpointing_same;
      model.checkpoint_blocks = true;
    }
    train(&model, &opts, X_train, y_train, &results[k]);
    if (g_pg) {
      /* Training's collectives are done: the group goes, and rank 0 alone
       * evaluates and saves (every rank holds the same parameters). */
      tsr_process_group_release(g_pg);
      g_pg = NULL;
      if (g_rank != 0) {
        cnn_release(&model);
        cnn_release(&initial);
        free(reloaded_predicted);
        free(predicted);
        tsr_tensor_release(y_test);
        tsr_tensor_release(X_test);
        tsr_tensor_release(y_train);
        tsr_tensor_release(X_train);
        return 0;
      }
    }
    autocast_begin();
    cnn_predict(&model, X_test, k == 0 ? predicted : reloaded_predicted);
    autocast_end();
    results[k].accuracy = accuracy(k == 0 ? predicted : reloaded_predicted, y_test);
    if (k == 0) {
      printf("test accuracy: %.4f\n", results[k].accuracy);
      trained = model;
    } else {
      printf("%s model test accuracy %.4f\n", format_name(opts.formats[k]), results[k].accuracy);
      cnn_release(&model);
    }
  }

  printf("\nseconds per epoch of training (%d images, %" PRId64 " threads):\n",
         (int)tsr_tensor_numel(y_train), tsr_get_num_threads());
  for (int k = 0; k < opts.n_formats; ++k) {
    printf("  %-14s", format_name(opts.formats[k]));
    for (int e = 0; e < opts.epochs; ++e) printf(" %6.1f", results[k].seconds_per_epoch[e]);
    printf("\n");
  }
  if (opts.n_formats == 2) {
    double sum[2] = {0, 0};
    for (int k = 0; k < 2; ++k)
      for (int e = 0; e < opts.epochs; ++e) sum[k] += results[k].seconds_per_epoch[e];
    printf("  channels_last / contiguous time: %.2f\n", sum[0] / sum[1]);
  }

  if (opts.ddp) opts.timing_steps = 0; /* one rank's timing of one process: not the job's */
  if (opts.timing_steps > 0) compare_formats(&initial, X_train, y_train, opts.timing_steps);
  if (opts.timing_steps > 0 && g_autocast != TSR_FLOAT32)
    compare_autocast(&initial, opts.formats[0], X_train, y_train, opts.timing_steps);
  if (!opts.ddp) profile_steps(&trained, X_train, y_train);

  tsr_memory_stats_t s;
  memset(&s, 0, sizeof s);
  s.struct_size = sizeof s;
  CHECK(tsr_memory_stats(g_device, 0, &s));
  printf("\nallocator (%s caching allocator):\n", g_device == TSR_DEVICE_CUDA ? "CUDA" : "CPU");
  printf("  allocated  %8.1f MiB now, %8.1f MiB peak  (%" PRId64 " blocks live)\n",
         mib(s.allocated_bytes.current), mib(s.allocated_bytes.peak), s.allocation.current);
  printf("  reserved   %8.1f MiB now, %8.1f MiB peak  (segments held: %" PRId64 ")\n",
         mib(s.reserved_bytes.current), mib(s.reserved_bytes.peak), s.segment.current);
  printf("  %" PRId64 " allocations served, %" PRId64 " of them needed a new segment\n",
         s.allocation.allocated, s.num_device_alloc);

  save_state(&trained, opts.checkpoint_path);
  cnn reloaded;
  load_state(opts.checkpoint_path, trained.memory_format, trained.batch_norm, &reloaded);
  bool state_same = true;
  for (int i = 0; i < CNN_NPARAMS; ++i)
    state_same = state_same && same_contents(trained.params[i], reloaded.params[i]);
  for (int i = 0; i < CNN_NBUFFERS; ++i)
    state_same = state_same && same_contents(trained.buffers[i], reloaded.buffers[i]);
  autocast_begin();
  cnn_predict(&reloaded, X_test, reloaded_predicted);
  autocast_end();
  bool predictions_same =
      memcmp(predicted, reloaded_predicted, (size_t)n_test * sizeof *predicted) == 0;
  printf("reloaded state bit-identical: %s\n", state_same ? "yes" : "NO");
  printf("reloaded predictions identical: %s\n", predictions_same ? "yes" : "NO");

  free(reloaded_predicted);
  free(predicted);
  cnn_release(&reloaded);
  cnn_release(&trained);
  cnn_release(&initial);
  tsr_tensor_release(y_test);
  tsr_tensor_release(X_test);
  tsr_tensor_release(y_train);
  tsr_tensor_release(X_train);

  int64_t still_allocated = -1, still_on_device = 0;
  CHECK(tsr_memory_allocated(TSR_DEVICE_CPU, 0, &still_allocated));
  if (g_device != TSR_DEVICE_CPU) CHECK(tsr_memory_allocated(g_device, 0, &still_on_device));
  still_allocated += still_on_device;
  printf("after releasing every handle: %" PRId64 " bytes allocated\n", still_allocated);

  int rc = 0;
  for (int k = 0; k < opts.n_formats; ++k) {
    if (results[k].accuracy < opts.min_accuracy) {
      fprintf(stderr, "FAILED: %s accuracy %.4f below %.2f\n", format_name(opts.formats[k]),
              results[k].accuracy, opts.min_accuracy);
      rc = 1;
    }
  }
  if (still_allocated != 0) {
    fprintf(stderr, "FAILED: tensor memory still allocated after every release\n");
    rc = 1;
  }
  if (!checkpointing_same) {
    fprintf(stderr, "FAILED: checkpoint regions changed the gradients\n");
    rc = 1;
  }
  if (!state_same || !predictions_same) {
    fprintf(stderr, "FAILED: the reloaded model differs from the trained one\n");
    rc = 1;
  }
  return rc;
}

/**
 * @file tessera/tessera.h
 * @brief The whole public C API of tessera.
 *
 * tessera: tensors with PyTorch's semantics (storage, views, strides,
 * memory formats, autograd, caching allocator, safe save/load) behind a stable
 * C ABI. See README.md for a tour; each sibling header documents its area.
 * (dlpack.h is not included here: include it on its own.)
 */
#ifndef TESSERA_TESSERA_H
#define TESSERA_TESSERA_H

#include "types.h"
#include "version.h"
#include "error.h"
#include "tensor.h"
#include "views.h"
#include "layout.h"
#include "random.h"
#include "ops.h"
#include "pointwise.h"
#include "linalg.h"
#include "reductions.h"
#include "sorting.h"
#include "shape_ops.h"
#include "indexing.h"
#include "loss.h"
#include "cnn.h"
#include "attention.h"
#include "autograd.h"
#include "autograd_graph.h"
#include "checkpoint.h"
#include "autocast.h"
#include "function.h"
#include "optim.h"
#include "clip_grad.h"
#include "lr_scheduler.h"
#include "grad_scaler.h"
#include "profiler.h"
#include "parallel.h"
#include "distributed.h"
#include "io.h"
#include "file.h"
#include "saver.h"
#include "allocator.h"
#include "stream.h"
#include "cuda.h"
#include "device.h"
#include "print.h"

#endif

#include "mpi_types.h"

#include <array>

#include "core/dtype_info.h"
#include "core/error.h"

namespace tsr::distributed::mpi {
namespace {

constexpr int kOps = 5;      // tsr_reduce_op values
constexpr int kDtypes = 32;  // above every tsr_dtype value

// The reduce functions the user-defined ops call, per op and dtype; set
// (always to the same function) before each operation that uses them.
std::array<std::array<MpiReduceFn, kDtypes>, kOps> g_functions{};
std::array<MPI_Op, kOps> g_user_ops{};
// float16 and bfloat16: distinct 2-byte types, so a user op can tell them apart.
MPI_Datatype g_float16 = MPI_DATATYPE_NULL, g_bfloat16 = MPI_DATATYPE_NULL;

tsr_dtype dtype_of(MPI_Datatype t) {
  if (t == g_float16) return TSR_FLOAT16;
  if (t == g_bfloat16) return TSR_BFLOAT16;
  if (t == MPI_FLOAT) return TSR_FLOAT32;
  if (t == MPI_DOUBLE) return TSR_FLOAT64;
  if (t == MPI_C_BOOL) return TSR_BOOL;
  if (t == MPI_UINT8_T) return TSR_UINT8;
  if (t == MPI_INT8_T) return TSR_INT8;
  if (t == MPI_INT16_T) return TSR_INT16;
  if (t == MPI_INT32_T) return TSR_INT32;
  return TSR_INT64;
}

// MPI's user function: inout[i] = in[i] op inout[i], with *len elements.
template <int Op>
void user_function(void* in, void* inout, int* len, MPI_Datatype* type) {
  g_functions[Op][dtype_of(*type)](inout, inout, in, size_t(*len));
}

MPI_Op user_op(tsr_reduce_op op) {
  MPI_Op& slot = g_user_ops[op];
  if (slot != MPI_Op{}) return slot;
  MPI_User_function* f = nullptr;
  switch (op) {
    case TSR_REDUCE_SUM: f = user_function<TSR_REDUCE_SUM>; break;
    case TSR_REDUCE_PRODUCT: f = user_function<TSR_REDUCE_PRODUCT>; break;
    case TSR_REDUCE_MIN: f = user_function<TSR_REDUCE_MIN>; break;
    default: f = user_function<TSR_REDUCE_MAX>; break;
  }
  TSR_CHECK(MPI_Op_create(f, /*commute=*/1, &slot) == MPI_SUCCESS, TSR_ERR_DISTRIBUTED,
            "MPI_Op_create failed for the ", int(op), " reduction");
  return slot;
}

MPI_Datatype two_bytes(MPI_Datatype& slot) {
  if (slot != MPI_DATATYPE_NULL) return slot;
  MPI_Datatype t;
  TSR_CHECK(MPI_Type_contiguous(1, MPI_UINT16_T, &t) == MPI_SUCCESS && MPI_Type_commit(&t) == MPI_SUCCESS,
            TSR_ERR_DISTRIBUTED, "MPI_Type_contiguous failed for a 16-bit float type");
  return slot = t;
}

}  // namespace

MPI_Datatype datatype_of(tsr_dtype dtype) {
  switch (dtype) {
    case TSR_UINT8: return MPI_UINT8_T;
    case TSR_INT8: return MPI_INT8_T;
    case TSR_INT16: return MPI_INT16_T;
    case TSR_INT32: return MPI_INT32_T;
    case TSR_INT64: return MPI_INT64_T;
    case TSR_FLOAT32: return MPI_FLOAT;
    case TSR_FLOAT64: return MPI_DOUBLE;
    case TSR_BOOL: return MPI_C_BOOL;
    case TSR_FLOAT16: return two_bytes(g_float16);
    case TSR_BFLOAT16: return two_bytes(g_bfloat16);
    default: break;
  }
  fail(TSR_ERR_UNSUPPORTED, "the MPI backend does not carry ", dtype_name(dtype) ? dtype_name(dtype) : "unknown",
       " tensors (a storage-only dtype)");
}

MPI_Op op_for(tsr_dtype dtype, tsr_reduce_op op, MpiReduceFn fn) {
  if (dtype == TSR_BOOL) return (op == TSR_REDUCE_PRODUCT || op == TSR_REDUCE_MIN) ? MPI_LAND : MPI_LOR;
  const bool floating = dtype == TSR_FLOAT16 || dtype == TSR_BFLOAT16 || dtype == TSR_FLOAT32 ||
                        dtype == TSR_FLOAT64;
  const bool native = !floating || ((dtype == TSR_FLOAT32 || dtype == TSR_FLOAT64) &&
                                    (op == TSR_REDUCE_SUM || op == TSR_REDUCE_PRODUCT));
  if (native) {
    switch (op) {
      case TSR_REDUCE_SUM: return MPI_SUM;
      case TSR_REDUCE_PRODUCT: return MPI_PROD;
      case TSR_REDUCE_MIN: return MPI_MIN;
      case TSR_REDUCE_MAX: return MPI_MAX;
      default: break;
    }
  }
  TSR_CHECK(op >= TSR_REDUCE_SUM && op <= TSR_REDUCE_MAX && op != TSR_REDUCE_AVG, TSR_ERR_INVALID_ARGUMENT,
            "the MPI backend reduces with SUM, PRODUCT, MIN or MAX (AVG is SUM, then a division), not op ", int(op));
  TSR_CHECK(fn != nullptr, TSR_ERR_INTERNAL, "no reduce function for a user-defined MPI op");
  g_functions[op][dtype] = fn;
  return user_op(op);
}

}  // namespace tsr::distributed::mpi

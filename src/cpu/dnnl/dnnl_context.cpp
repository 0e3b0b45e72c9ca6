#include "cpu/dnnl/dnnl_context.h"

#include "core/error.h"
#include "cpu/kernels/threads.h"

// The two OpenMP entry points used, declared here rather than through
// omp.h: the compiler building tessera need not ship GCC's omp.h (clang,
// for the fuzz build), and these are libgomp's (linked by name in CMake).
extern "C" int omp_get_max_threads(void);
extern "C" void omp_set_num_threads(int);

namespace tsr::kernels::onednn {

dnnl::engine& engine() {
  static dnnl::engine e(dnnl::engine::kind::cpu, 0);  // thread-safe static init
  return e;
}

dnnl::stream& stream() {
  thread_local dnnl::stream s(engine());
  return s;
}

dnnl::memory::data_type data_type_of(tsr_dtype d) {
  TSR_CHECK(d == TSR_FLOAT32 || d == TSR_BFLOAT16, TSR_ERR_INTERNAL, "oneDNN path called for ", dtype_name(d));
  return d == TSR_BFLOAT16 ? dnnl::memory::data_type::bf16 : dnnl::memory::data_type::f32;
}

dnnl::memory::desc desc_of(const Tensor& t) {
  return desc_of(t, dnnl::memory::dims(t.sizes().begin(), t.sizes().end()),
                 dnnl::memory::dims(t.strides().begin(), t.strides().end()));
}

dnnl::memory::desc desc_of(const Tensor& t, const dnnl::memory::dims& dims, const dnnl::memory::dims& strides) {
  return dnnl::memory::desc(dims, data_type_of(t.dtype()), strides);
}

dnnl::memory mem(const dnnl::memory::desc& d, const Tensor& t) { return dnnl::memory(d, engine(), t.data_ptr()); }

const dnnl::primitive_attr& attr() {
  static const dnnl::primitive_attr a = [] {
    dnnl::primitive_attr r;
    r.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    return r;
  }();
  return a;
}

void execute(const dnnl::primitive& p, const dnnl::primitive_desc_base& pd,
             std::unordered_map<int, dnnl::memory> args) {
  const dnnl::memory::desc sd = pd.scratchpad_desc();
  if (sd.get_size() > 0) args.emplace(DNNL_ARG_SCRATCHPAD, dnnl::memory(sd, engine()));
  p.execute(stream(), args);
}

namespace {
// The scope of the calling thread's OpenMP thread count.
class OmpThreads {
 public:
  explicit OmpThreads(int n) : prev_(omp_get_max_threads()) { omp_set_num_threads(n); }
  ~OmpThreads() { omp_set_num_threads(prev_); }
  OmpThreads(const OmpThreads&) = delete;
  OmpThreads& operator=(const OmpThreads&) = delete;

 private:
  int prev_;
};
}  // namespace

void run_impl(const char* what, void (*fn)(void*), void* ctx) {
  OmpThreads threads{int(num_threads())};
  try {
    fn(ctx);
  } catch (const dnnl::error& e) {
    fail(e.status == dnnl_out_of_memory ? TSR_ERR_OUT_OF_MEMORY : TSR_ERR_INTERNAL, what, ": oneDNN failed: ",
         e.what(), " (status ", int(e.status), ")");
  }
}

}  // namespace tsr::kernels::onednn

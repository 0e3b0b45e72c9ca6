// C API: streaming saves (saver.h).
#include <memory>

#include <tessera/saver.h>

#include "capi/barrier.h"
#include "capi/handles.h"
#include "capi/save_settings.h"
#include "io/saver.h"

struct tsr_saver {
  std::unique_ptr<tsr::io::Saver> saver;
};

using namespace tsr;
using namespace tsr::capi;

TSR_EXTERN tsr_status tsr_saver_open(const char* path, const tsr_save_options* opts,
                                     tsr_saver** out) {
  return guarded([&] {
    require(path, "path");
    require(out, "out");
    auto s = std::make_unique<tsr_saver>();
    s->saver = std::make_unique<io::Saver>(path, save_settings(opts));
    *out = s.release();
  });
}

TSR_EXTERN tsr_status tsr_saver_add(tsr_saver* s, const char* name, tsr_tensor* tensor) {
  return guarded([&] {
    require(s, "saver");
    require(name, "name");
    s->saver->add(name, tensor_of(tensor));
  });
}

TSR_EXTERN tsr_status tsr_saver_commit(tsr_saver* s) {
  return guarded([&] { require(s, "saver")->saver->commit(); });
}

TSR_EXTERN void tsr_saver_release(tsr_saver* s) { delete s; }

#include "io/progress.h"

#include <tessera/error.h>

#include "core/error.h"

namespace tsr::io {

void Progress::report(uint64_t done, uint64_t total, const std::string& what) const {
  if (!fn) return;
  if (whole != 0) {
    done += offset;
    total = whole;
  }
  tsr_status s = fn(done, total, user_data);
  if (s == TSR_OK) return;
  // An int that is no status (C callers return anything) reads as cancelled.
  if (int(s) < 0 || int(s) > int(TSR_ERR_CANCELLED)) s = TSR_ERR_CANCELLED;
  // Whatever the callback returned is the caller's status; TSR_OK alone goes on.
  throw Error(s, str(what, " cancelled by the progress callback at ", done, " of ", total,
                     " bytes (it returned ", tsr_status_name(s), ")"));
}

}  // namespace tsr::io

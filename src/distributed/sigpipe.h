#pragma once

namespace tsr::distributed {

// Makes a write to a connection whose peer died return EPIPE instead of
// killing this process: sets SIGPIPE to SIG_IGN when its disposition is
// still the default (SIG_DFL), and leaves a handler or an ignore the
// application installed alone. Gloo's TCP transport writes with writev(2),
// which raises SIGPIPE (no MSG_NOSIGNAL), so without this a rank died with
// its peer instead of returning TSR_ERR_DISTRIBUTED. Python ignores SIGPIPE
// at start-up, which is why torch's ranks never meet it; gRPC ignores it at
// its initialisation the same way.
void ignore_sigpipe_unless_handled();

}  // namespace tsr::distributed

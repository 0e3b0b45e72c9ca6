package tessera

import "tessera.dev/tessera/internal/capi"

// Version is the loaded library's version, e.g. "0.1.0".
func Version() string { return capi.Version_string() }

// VersionNumber is the loaded library's major*10000 + minor*100 + patch.
func VersionNumber() int { return capi.Version_number() }

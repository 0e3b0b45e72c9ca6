/* bindings/reductions.i — Scans and statistics: cumsum, cumprod, prod, var/std/var_mean, logsumexp, norm, any/all, min/argmin, minimum/maximum.
 * Over include/tessera/reductions.h. Included at the end of tessera.i, so
 * tessera.i's conventions hold (error bracket, TSR_RETURN_TENSOR, array
 * typemaps). */

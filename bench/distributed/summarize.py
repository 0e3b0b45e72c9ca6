"""bench/distributed: the table of the all_reduce benchmark from the lines
its contenders printed ("round R impl NAME world N bytes B iters I
median_us X"), per world size and message size: the median over rounds of
each contender's median latency, the bus bandwidth from it (nccl-tests'
busbw = algbw * 2(n-1)/n, algbw = bytes / time, in GB/s = 1e9 B/s), and the
ratios tessera / gloo and tessera / torch of the latencies, each the median
over rounds of the ratio within one round (> 1: tessera is slower), plus
tessera's extra latency over raw Gloo in microseconds.

Usage: summarize.py < lines
"""
import collections
import statistics
import sys

IMPLS = ("tessera", "gloo", "torch")


def size_name(nbytes):
    for unit, scale in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if nbytes >= scale and nbytes % scale == 0:
            return f"{nbytes // scale} {unit}"
    return f"{nbytes} B"


def main():
    # times[(world, bytes)][impl][round] = median latency in us
    times = collections.defaultdict(lambda: collections.defaultdict(dict))
    for line in sys.stdin:
        f = line.split()
        if len(f) < 12 or f[0] != "round":
            continue
        kv = dict(zip(f[0::2], f[1::2]))
        times[(int(kv["world"]), int(kv["bytes"]))][kv["impl"]][int(kv["round"])] = float(kv["median_us"])

    def ratio(per_impl, a, b, op):
        rounds = sorted(set(per_impl[a]) & set(per_impl[b]))
        return statistics.median(op(per_impl[a][r], per_impl[b][r]) for r in rounds) if rounds else None

    def fmt(x, spec):
        return "-" if x is None else format(x, spec)

    last_world = None
    for world, nbytes in sorted(times):
        if world != last_world:
            last_world = world
            print(f"\nall_reduce, float32 SUM, {world} ranks over 127.0.0.1: median latency (us), "
                  f"busbw (GB/s), latency ratios (> 1: tessera slower)")
            print(f"{'size':>8} | {'tessera':>9} {'gloo':>9} {'torch':>9} | {'tessera':>7} {'gloo':>7} {'torch':>7} |"
                  f" {'tsr/gloo':>8} {'tsr/torch':>9} {'tsr-gloo us':>11} | rounds")
        per_impl = times[(world, nbytes)]
        med = {i: statistics.median(per_impl[i].values()) if per_impl[i] else None for i in IMPLS}
        bus = {i: None if med[i] is None else nbytes / (med[i] * 1e-6) * 2 * (world - 1) / world / 1e9 for i in IMPLS}
        print(f"{size_name(nbytes):>8} | " + " ".join(fmt(med[i], "9.1f") for i in IMPLS) + " | " +
              " ".join(fmt(bus[i], "7.3f") for i in IMPLS) + " | " +
              f"{fmt(ratio(per_impl, 'tessera', 'gloo', lambda a, b: a / b), '8.3f')} "
              f"{fmt(ratio(per_impl, 'tessera', 'torch', lambda a, b: a / b), '9.3f')} "
              f"{fmt(ratio(per_impl, 'tessera', 'gloo', lambda a, b: a - b), '11.1f')} | "
              f"{min(len(per_impl[i]) for i in IMPLS)}")


if __name__ == "__main__":
    main()

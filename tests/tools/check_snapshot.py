#!/usr/bin/python3
"""Checks a tessera memory snapshot (tsr_memory_snapshot's JSON) for
consistency; run by the memory_snapshot ctest on the file
examples/memory_snapshot writes.

    check_snapshot.py SNAPSHOT.json [SUMMARY.txt]

- the block sizes of all segments sum to stats reserved_bytes.all.current,
  those of active_allocated blocks to allocated_bytes.all.current;
- each segment's blocks tile it: the first starts at the segment's address,
  each next one where the previous ends, and the sizes sum to total_size;
  the segment's allocated/active/requested sizes agree with its blocks;
- replaying the trace (device_traces): every alloc lands on an address not
  in use, every free_requested/free_completed follows an alloc of that
  address and size; every alloc is either freed later or is an
  active_allocated block now; segment_alloc/segment_free pair up, and the
  segments still allocated at the end are the snapshot's (when the trace
  ring dropped nothing, these hold exactly);
- the labels the example sets appear in the trace;
- SUMMARY.txt, if given, shows the current allocated bytes.
Exit status 0 when all hold; 1 with the failures listed.
"""
import json
import sys

failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
    return cond


def format_size(sz, pref):
    """torch.cuda.memory_summary's _format_size."""
    prefixes = ["B  ", "KiB", "MiB", "GiB", "TiB", "PiB"]
    prefix = prefixes[0]
    for new_prefix in prefixes[1:]:
        if pref < 768 * 1024:
            break
        prefix = new_prefix
        sz //= 1024
        pref /= 1024
    return f"{sz:6d} {prefix}"


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    with open(sys.argv[1], encoding="utf-8") as f:
        snap = json.load(f)
    stats = snap["stats"]
    segments = snap["segments"]

    # ---- totals
    reserved = sum(b["size"] for s in segments for b in s["blocks"])
    allocated = sum(b["size"] for s in segments for b in s["blocks"]
                    if b["state"] == "active_allocated")
    check(reserved == stats["reserved_bytes.all.current"],
          f"block sizes sum to {reserved}, reserved_bytes.all.current is "
          f"{stats['reserved_bytes.all.current']}")
    check(allocated == stats["allocated_bytes.all.current"],
          f"active_allocated blocks sum to {allocated}, allocated_bytes.all.current is "
          f"{stats['allocated_bytes.all.current']}")
    check(len(segments) > 0, "no segments")
    check(stats["segment.all.current"] ==
          sum(1 for s in segments if not s["is_expandable"]),
          "segment.all.current does not count the segments")

    # ---- tiling
    for s in segments:
        where = f"segment at {s['address']:#x}"
        blocks = s["blocks"]
        if not check(blocks, f"{where} has no blocks"):
            continue
        check(blocks[0]["address"] == s["address"], f"{where}: first block elsewhere")
        for prev, cur in zip(blocks, blocks[1:]):
            check(prev["address"] + prev["size"] == cur["address"],
                  f"{where}: block at {cur['address']:#x} does not follow "
                  f"{prev['address']:#x}+{prev['size']}")
        check(sum(b["size"] for b in blocks) == s["total_size"],
              f"{where}: block sizes do not sum to total_size {s['total_size']}")
        check(s["allocated_size"] == sum(b["size"] for b in blocks
                                         if b["state"] == "active_allocated"),
              f"{where}: allocated_size")
        check(s["active_size"] == sum(b["size"] for b in blocks if b["state"] != "inactive"),
              f"{where}: active_size")
        check(s["requested_size"] == sum(b["requested_size"] for b in blocks
                                         if b["state"] != "inactive"),
              f"{where}: requested_size")
        for b in blocks:
            check(b["state"] in ("active_allocated", "active_pending_free", "inactive"),
                  f"{where}: state {b['state']}")
            check(b["requested_size"] <= b["size"], f"{where}: requested above size")
            check(b["address"] % 64 == 0, f"{where}: block at {b['address']:#x} unaligned")
        check(s["segment_type"] in ("small", "large"), f"{where}: segment_type")

    # ---- trace replay
    traces = snap["device_traces"]
    check(len(traces) == 1, "device_traces is not one list")
    trace = traces[0] if traces else []
    complete = len(trace) < snap["trace_max_entries"]
    active_blocks = {(b["address"], b["size"]) for s in segments for b in s["blocks"]
                     if b["state"] == "active_allocated"}
    live = {}        # addr -> size: allocated, not yet free_requested
    pending = {}     # addr -> size: free_requested, not yet completed
    live_segments = {}
    freed_later = set()
    for i, e in enumerate(trace):
        a, addr, size = e["action"], e["addr"], e["size"]
        if a == "alloc":
            check(addr not in live and addr not in pending,
                  f"entry {i}: alloc at {addr:#x}, already in use")
            live[addr] = (size, i)
        elif a == "free_requested":
            if addr in live:
                check(live[addr][0] == size, f"entry {i}: free of {size} != alloc size")
                freed_later.add(live[addr][1])
                pending[addr] = live.pop(addr)[0]
            else:
                check(not complete, f"entry {i}: free_requested of {addr:#x} never allocated")
        elif a == "free_completed":
            if addr in pending:
                check(pending.pop(addr) == size, f"entry {i}: free_completed size")
            else:
                check(not complete, f"entry {i}: free_completed of {addr:#x} not requested")
        elif a == "segment_alloc":
            check(addr not in live_segments, f"entry {i}: segment_alloc at a live segment")
            live_segments[addr] = size
        elif a == "segment_free":
            if addr in live_segments:
                check(live_segments.pop(addr) == size, f"entry {i}: segment_free size")
            else:
                check(not complete, f"entry {i}: segment_free of {addr:#x} never allocated")
        check(isinstance(e["user_metadata"], str), f"entry {i}: user_metadata")
    for addr, (size, i) in live.items():
        check((addr, size) in active_blocks,
              f"alloc entry {i} at {addr:#x} ({size}) neither freed nor active_allocated")
    check(not pending, f"free_requested without free_completed: {sorted(pending)}")
    if complete:
        check({(a, s) for a, (s, _) in live.items()} == active_blocks,
              "the replayed allocations are not the active_allocated blocks")
        plain = {(s["address"], s["total_size"]) for s in segments if not s["is_expandable"]}
        check(set(live_segments.items()) == plain,
              "the replayed segments are not the snapshot's")
    check(trace and trace[-1]["action"] == "snapshot", "the last entry is not the snapshot")
    actions = {e["action"] for e in trace}
    for want in ("alloc", "free_requested", "free_completed", "segment_alloc", "segment_free"):
        check(want in actions, f"no {want} entry in the trace")
    labels = {e["user_metadata"] for e in trace}
    for want in ("parameters", "forward", "scratch", "mul"):
        check(want in labels, f"no entry labelled {want!r} (labels: {sorted(labels)})")

    # ---- summary
    if len(sys.argv) == 3:
        with open(sys.argv[2], encoding="utf-8") as f:
            summary = f.read()
        cur = stats["allocated_bytes.all.current"]
        row = f"| {'Allocated memory':<24} | {format_size(cur, cur)} |"
        check(row in summary, f"summary lacks {row!r}:\n{summary}")

    for msg in failures:
        print("check_snapshot:", msg, file=sys.stderr)
    if not failures:
        print(f"check_snapshot: {len(segments)} segments, {len(trace)} trace entries: ok")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

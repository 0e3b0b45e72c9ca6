// The data of the active memory timeline, after PyTorch's MemoryViz.js
// (process_alloc_data): every allocation is a band as tall as its size;
// bands are stacked in the order they were made, and when one is freed the
// bands above it drop by its size.
//
// x counts trace entries: the state after k entries spans [k, k+1), so entry
// i (0-based) takes effect at x = i + 1 and [0, 1) is memory before the first
// entry. The UI numbers entries from 1, so "event k" is x = k.
//
// An allocation runs from its "alloc" to its "free_completed" (matched by
// address): until then its memory cannot be reused. Allocations alive before
// the trace began have no alloc entry; they come from a free_completed with no
// alloc before it, or from a block still active in the segments that no alloc
// accounts for (PyTorch's "initially allocated"), and sit at the bottom.

// Above this many allocations only the largest are drawn one by one and the
// rest are folded into one band on top, as PyTorch does: thousands of SVG
// polygons more would make the page slow without showing more.
const TIMELINE_DRAW_LIMIT = 2000;

const ACTIVE_STATES = new Set(['active_allocated', 'active_pending_free']);

// The trace of the snapshot's device: device_traces holds one per device.
function deviceTrace(snap) {
  const traces = Array.isArray(snap.device_traces) ? snap.device_traces : [];
  if (traces.length <= 1) return traces[0] || [];
  const index = snap.device && Number.isInteger(snap.device.index) ? snap.device.index : 0;
  return traces[index] || [];
}

function newAllocation(entry, addr, pre, x) {
  return {
    addr,
    size: entry.size || 0,
    stream: entry.stream ?? 0,
    label: entry.user_metadata || '',
    pre,                 // alive before the trace began
    start: pre ? 0 : x,  // x of its alloc
    end: null,           // x of its free_completed; null: alive at the snapshot
    freeRequested: null, // x of its free_requested, if any
    state: null,         // its block's state at the snapshot, if alive then
  };
}

function buildTimeline(snap) {
  const events = deviceTrace(snap);
  const n = events.length;
  const allocs = [];
  const live = new Map();           // address -> allocation, as of the trace so far
  const orphanRequests = new Map(); // address -> x of a free_requested with no alloc
  const reservedDelta = new Float64Array(n + 1);
  const ooms = [];

  events.forEach((e, i) => {
    const x = i + 1;
    switch (e.action) {
      case 'alloc': {
        const a = newAllocation(e, addrKey(e.addr), false, x);
        const prev = live.get(a.addr);
        if (prev) prev.end = x; // its free fell out of the trace: end it here
        live.set(a.addr, a);
        allocs.push(a);
        break;
      }
      case 'free_requested': {
        const k = addrKey(e.addr);
        const a = live.get(k);
        if (a) {
          if (a.freeRequested === null) a.freeRequested = x;
        } else {
          orphanRequests.set(k, x);
        }
        break;
      }
      case 'free_completed': {
        const k = addrKey(e.addr);
        const a = live.get(k);
        if (a) {
          a.end = x;
          live.delete(k);
        } else {
          const p = newAllocation(e, k, true, x);
          p.end = x;
          p.freeRequested = orphanRequests.get(k) ?? null;
          orphanRequests.delete(k);
          allocs.push(p);
        }
        break;
      }
      case 'segment_alloc':
      case 'segment_map':
        reservedDelta[x] += e.size || 0;
        break;
      case 'segment_free':
      case 'segment_unmap':
        reservedDelta[x] -= e.size || 0;
        break;
      case 'oom':
        ooms.push({x, entry: e});
        break;
      default:
        break;
    }
  });

  // Blocks active at the snapshot. Pending-free blocks count as allocated
  // (their memory is held until free_completed, where bands end); PyTorch's
  // viewer skips those without an alloc entry, which would hide held memory.
  const blockOwner = new Map(); // block address -> its allocation
  let reservedEnd = 0;
  for (const seg of snap.segments) {
    reservedEnd += seg.total_size || 0;
    for (const b of seg.blocks || []) {
      if (!ACTIVE_STATES.has(b.state)) continue;
      const k = addrKey(b.address);
      let a = live.get(k);
      if (!a) {
        a = newAllocation({size: b.requested_size || b.size, stream: seg.stream}, k, true, 0);
        a.freeRequested = orphanRequests.get(k) ?? null;
        allocs.push(a);
      }
      a.state = b.state;
      blockOwner.set(k, a);
    }
  }

  // Stacking order. Before-the-trace allocations at the bottom, those that
  // live longest lowest, so the base moves as little as possible; then the
  // others in the order they were made, each on top when it appears.
  const endX = a => (a.end === null ? n + 1 : a.end);
  const pre = allocs.filter(a => a.pre).sort((a, b) => endX(b) - endX(a));
  const during = allocs.filter(a => !a.pre);
  pre.forEach((a, i) => { a.colour = i; });
  during.forEach((a, i) => { a.colour = i; });

  let drawnCount = allocs.length;
  if (allocs.length > TIMELINE_DRAW_LIMIT) {
    const bySize = [...allocs].sort((a, b) => b.size - a.size);
    bySize.forEach((a, i) => { a.drawn = i < TIMELINE_DRAW_LIMIT; });
    drawnCount = TIMELINE_DRAW_LIMIT;
  } else {
    allocs.forEach(a => { a.drawn = true; });
  }

  const startsAt = new Map();
  const endsAt = new Map();
  const push = (m, x, a) => { if (m.has(x)) m.get(x).push(a); else m.set(x, [a]); };
  for (const a of during) push(startsAt, a.start, a);
  for (const a of allocs) if (a.end !== null) push(endsAt, a.end, a);

  // Sweep the trace. Each drawn band records its bottom as steps: offsets[j]
  // holds from xs[j] on.
  const drawnAt = new Float64Array(n + 1);   // bytes of drawn bands in state k
  const foldedAt = new Float64Array(n + 1);  // bytes of folded ones
  const reservedAt = new Float64Array(n + 1);
  const stack = [];
  let drawn = 0;
  let folded = 0;
  const place = (a, x) => {
    if (!a.drawn) {
      folded += a.size;
      return;
    }
    a.xs = [x];
    a.offsets = [drawn];
    stack.push(a);
    drawn += a.size;
  };
  for (const a of pre) place(a, 0);
  // Reserved before the first entry: the segments at the snapshot less what
  // the trace says was obtained since (a trace that lost entries can make
  // this negative: clamp).
  let reserved = Math.max(0, reservedEnd - reservedDelta.reduce((s, d) => s + d, 0));
  drawnAt[0] = drawn;
  foldedAt[0] = folded;
  reservedAt[0] = reserved;
  for (let x = 1; x <= n; x++) {
    for (const a of endsAt.get(x) || []) {
      if (!a.drawn) {
        folded -= a.size;
        continue;
      }
      const i = stack.indexOf(a);
      stack.splice(i, 1);
      for (let j = i; j < stack.length; j++) {
        const s = stack[j];
        s.xs.push(x);
        s.offsets.push(s.offsets[s.offsets.length - 1] - a.size);
      }
      drawn -= a.size;
    }
    for (const a of startsAt.get(x) || []) place(a, x);
    reserved += reservedDelta[x];
    drawnAt[x] = drawn;
    foldedAt[x] = folded;
    reservedAt[x] = Math.max(0, reserved);
  }

  let maxBytes = 0;
  let peakX = 0;
  for (let x = 0; x <= n; x++) {
    const total = drawnAt[x] + foldedAt[x];
    if (total > maxBytes) {
      maxBytes = total;
      peakX = x;
    }
  }
  const hasReserved = reservedEnd > 0 || reservedDelta.some(d => d !== 0);

  return {
    events,
    n,
    allocs,
    bands: allocs.filter(a => a.drawn),
    drawnCount,
    foldedCount: allocs.length - drawnCount,
    drawnAt,
    foldedAt,
    reservedAt,
    hasReserved,
    ooms,
    maxBytes,
    peakX,
    blockOwner,
    endX,
    firstTime: (events.find(e => typeof e.time_us === 'number') || {}).time_us,
  };
}

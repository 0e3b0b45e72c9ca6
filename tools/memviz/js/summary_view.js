// The numbers: headline cards, the statistics (torch.cuda.memory_stats's
// flat keys "<quantity>.<pool>.<current|peak|allocated|freed>" and plain
// event counters) as tables, and the allocator's settings.

const STAT_KINDS = ['current', 'peak', 'allocated', 'freed'];
const STAT_POOLS = {all: 'all', small_pool: 'small pool', large_pool: 'large pool'};
const STAT_NAMES = {
  allocated_bytes: 'Allocated memory',
  active_bytes: 'Active memory',
  requested_bytes: 'Requested memory',
  reserved_bytes: 'Reserved memory',
  inactive_split_bytes: 'Non-releasable memory',
  allocation: 'Allocations',
  active: 'Active allocations',
  segment: 'Segments',
  inactive_split: 'Non-releasable blocks',
  oversize_allocations: 'Oversize allocations',
  oversize_segments: 'Oversize segments',
  num_alloc_retries: 'Allocation retries (cache freed, then retried)',
  num_ooms: 'Out-of-memory errors',
  num_device_alloc: 'Segments obtained from the device',
  num_device_free: 'Segments returned to the device',
  num_sync_all_streams: 'Waits for all streams',
};

// {quantity: {pool: {kind: value}}} and {counter: value} from the flat keys.
function parseStats(stats) {
  const quantities = new Map();
  const counters = new Map();
  for (const [key, value] of Object.entries(stats || {})) {
    const parts = key.split('.');
    const kind = parts[parts.length - 1];
    if (parts.length < 2 || !STAT_KINDS.includes(kind)) {
      counters.set(key, value);
      continue;
    }
    const pool = parts.length >= 3 ? parts[parts.length - 2] : 'all';
    const name = parts.slice(0, parts.length >= 3 ? -2 : -1).join('.');
    if (!quantities.has(name)) quantities.set(name, {});
    const q = quantities.get(name);
    (q[pool] = q[pool] || {})[kind] = value;
  }
  return {quantities, counters};
}

function statTable(title, rows, format, rawKey) {
  const kinds = STAT_KINDS.filter(k => rows.some(([, pools]) =>
    Object.values(pools).some(v => v[k] !== undefined)));
  const body = [];
  for (const [name, pools] of rows) {
    const order = Object.keys(pools).sort((a, b) =>
      (a in STAT_POOLS ? Object.keys(STAT_POOLS).indexOf(a) : 9) -
      (b in STAT_POOLS ? Object.keys(STAT_POOLS).indexOf(b) : 9));
    order.forEach((pool, i) => {
      const label = i === 0 && pool === 'all' ? STAT_NAMES[name] || name : `${STAT_POOLS[pool] || pool}`;
      body.push(el('tr', {class: i === 0 && pool === 'all' ? 'stat-main' : 'stat-pool', title: rawKey(name, pool)},
        el('th', {text: i === 0 && pool !== 'all' ? `${STAT_NAMES[name] || name}, ${label}` : label}),
        kinds.map(k => el('td', {class: 'num', text: pools[pool][k] === undefined ? '' : format(pools[pool][k])}))));
    });
  }
  return el('table', {class: 'stats'},
    el('caption', {text: title}),
    el('thead', null, el('tr', null, el('th', {text: ''}), kinds.map(k => el("th", {class: "num", text: k === "current" || k === "peak" ? k : `total ${k}`})))),
    el('tbody', null, body));
}

function renderStats(root, snap) {
  if (!snap.stats || Object.keys(snap.stats).length === 0) {
    root.append(el('p', {class: 'empty', text: 'The snapshot has no statistics.'}));
    return;
  }
  const {quantities, counters} = parseStats(snap.stats);
  const known = Object.keys(STAT_NAMES);
  const byOrder = (a, b) => (known.indexOf(a[0]) + 1 || 99) - (known.indexOf(b[0]) + 1 || 99);
  const rows = [...quantities.entries()].sort(byOrder);
  const isBytes = ([name]) => name.endsWith('_bytes');
  const rawKey = (name, pool) => `${name}.${pool}.*`;
  if (rows.some(isBytes)) root.append(statTable('Memory', rows.filter(isBytes), formatBytes, rawKey));
  if (rows.some(r => !isBytes(r))) {
    root.append(statTable('Counts', rows.filter(r => !isBytes(r)), formatCount, rawKey));
  }
  if (counters.size > 0) {
    root.append(el('table', {class: 'stats'},
      el('caption', {text: 'Events'}),
      el('tbody', null, [...counters.entries()].sort(byOrder).map(([k, v]) =>
        el('tr', {title: k, class: (k === 'num_ooms' || k === 'num_alloc_retries') && v > 0 ? 'alert' : null},
          el('th', {text: STAT_NAMES[k] || k}), el('td', {class: 'num', text: formatCount(v)}))))));
  }
}

// roundup_power2_divisions: interval i holds sizes in [2^(20+i), 2^(21+i)),
// the first also everything smaller, the last everything larger. Runs of
// equal values are merged so the 16 numbers read as a few ranges.
function describeDivisions(divs) {
  if (!Array.isArray(divs) || divs.length === 0) return '–';
  if (divs.every(d => d <= 1)) return 'off (no power-of-two rounding)';
  const runs = [];
  for (let i = 0; i < divs.length;) {
    let j = i;
    while (j + 1 < divs.length && divs[j + 1] === divs[i]) j++;
    const lo = i === 0 ? 0 : 2 ** (20 + i);
    const hi = j === divs.length - 1 ? Infinity : 2 ** (21 + j);
    const range = lo === 0 && hi === Infinity ? 'all sizes'
      : lo === 0 ? `< ${formatBytes(hi)}` : hi === Infinity ? `≥ ${formatBytes(lo)}`
        : `${formatBytes(lo)} – ${formatBytes(hi)}`;
    runs.push(`${range}: ${divs[i] <= 1 ? 'none' : divs[i]}`);
    i = j + 1;
  }
  return runs.join(' · ');
}

function renderSettings(root, snap) {
  const s = snap.allocator_settings || {};
  const rows = [];
  const row = (name, value, mono) => rows.push(
    el('tr', null, el('th', {text: name}), el('td', {class: mono ? 'mono' : null, text: value})));
  const dev = snap.device || {};
  if (dev.type !== undefined || dev.name !== undefined) {
    row('device', `${dev.type ?? '?'}:${dev.index ?? 0}${dev.name && dev.name !== dev.type ? ` (${dev.name})` : ''}`);
  }
  if ('text' in s) row('configuration', s.text === '' ? '(defaults)' : s.text, s.text !== '');
  if ('max_split_size' in s) {
    const m = s.max_split_size;
    row('max_split_size', m < 0 || m >= 2 ** 63 ? 'unlimited' : formatExactBytes(m));
  }
  if ('roundup_power2_divisions' in s) row('roundup_power2_divisions', describeDivisions(s.roundup_power2_divisions));
  if ('garbage_collection_threshold' in s) {
    const g = s.garbage_collection_threshold;
    row('garbage_collection_threshold', g > 0 ? String(g) : 'off');
  }
  if ('expandable_segments' in s) row('expandable_segments', s.expandable_segments ? 'on' : 'off');
  for (const [k, v] of Object.entries(s)) {
    if (!['text', 'max_split_size', 'roundup_power2_divisions', 'garbage_collection_threshold',
      'expandable_segments'].includes(k)) row(k, JSON.stringify(v), true);
  }
  if ('memory_limit' in snap) row('memory limit', snap.memory_limit > 0 ? formatExactBytes(snap.memory_limit) : 'none');
  if ('trace_max_entries' in snap) {
    row('memory history', snap.trace_max_entries > 0
      ? `recording, up to ${formatCount(snap.trace_max_entries)} entries` : 'not recording');
  }
  if (rows.length === 0) {
    root.append(el('p', {class: 'empty', text: 'The snapshot has no allocator settings.'}));
    return;
  }
  root.append(el('table', {class: 'settings'}, el('tbody', null, rows)));
}

// Headline numbers. From the statistics when present, else from the segments.
function renderCards(root, snap, model) {
  const st = snap.stats || {};
  const segs = snap.segments;
  const blocks = segs.flatMap(s => s.blocks || []);
  const sum = pred => blocks.filter(pred).reduce((t, b) => t + b.size, 0);
  const pick = (key, fallback) => (typeof st[key] === 'number' ? st[key] : fallback);
  const card = (title, value, sub, cls) => el('div', {class: `card ${cls || ''}`},
    el('div', {class: 'card-title', text: title}),
    el('div', {class: 'card-value', text: value}),
    el('div', {class: 'card-sub', text: sub || ''}));
  const peak = key => (typeof st[key] === 'number' ? `peak ${formatBytes(st[key])}` : '');
  const ooms = pick('num_ooms', model ? model.ooms.length : 0);
  const retries = pick('num_alloc_retries', undefined);
  const traced = model && model.n > 0;
  const cards = [
    card('Allocated', formatBytes(pick('allocated_bytes.all.current', sum(b => b.state === 'active_allocated'))),
      peak('allocated_bytes.all.peak')),
    card('Reserved', formatBytes(pick('reserved_bytes.all.current', segs.reduce((t, s) => t + s.total_size, 0))),
      peak('reserved_bytes.all.peak')),
    card('Active', formatBytes(pick('active_bytes.all.current', sum(b => b.state !== 'inactive'))),
      peak('active_bytes.all.peak')),
  ];
  if ('requested_bytes.all.current' in st) {
    cards.push(card('Requested', formatBytes(st['requested_bytes.all.current']), peak('requested_bytes.all.peak')));
  }
  cards.push(
    card('Segments', formatCount(segs.length), `${formatCount(blocks.length)} block${blocks.length === 1 ? '' : 's'}`),
    card('Trace', traced ? formatCount(model.n) : snap.trace_max_entries === 0 ? 'off' : '0',
      traced ? `entries, ${formatCount(model.allocs.length)} allocations` : 'no entries recorded'),
    card('Out of memory', formatCount(ooms),
      retries !== undefined ? `${formatCount(retries)} ${retries === 1 ? 'retry' : 'retries'}` : '',
      ooms > 0 ? 'alert' : ''));
  root.append(...cards);
}

function renderSubtitle(node, snap) {
  const dev = snap.device || {};
  const parts = [];
  if (dev.type !== undefined) parts.push(`device ${dev.type}:${dev.index ?? 0}`);
  if (typeof snap.memory_limit === 'number') {
    parts.push(snap.memory_limit > 0 ? `memory limit ${formatBytes(snap.memory_limit)}` : 'no memory limit');
  }
  const times = deviceTrace(snap).map(e => e.time_us).filter(t => typeof t === 'number');
  if (times.length > 0) {
    // time_us counts microseconds since the epoch (the system clock).
    const end = new Date(times.reduce((a, b) => Math.max(a, b)) / 1000);
    if (Number.isFinite(end.getTime())) {
      parts.push(`trace ending ${end.toISOString().replace('T', ' ').slice(0, 19)} UTC`);
    }
  }
  node.textContent = parts.join(' · ');
}

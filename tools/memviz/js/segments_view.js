// The segments the allocator holds, one bar each, its blocks in address order
// coloured by state. Bars span the width by default, so the blocks of a small
// segment stay visible next to a large one; "to scale" makes widths
// proportional to segment sizes instead.

const BLOCK_STATES = {
  active_allocated: {colour: '#4e79a7', tail: '#a9c0da', name: 'allocated'},
  active_pending_free: {colour: '#f28e2b', tail: '#f9c99a', name: 'freed, pending (stream uses outstanding)'},
  inactive: {colour: '#e6e9ed', tail: '#e6e9ed', name: 'free (cached)'},
};

// Beyond this many segments the rest wait behind a button: tens of thousands
// of block elements slow the page down for little gain.
const SEGMENTS_SHOWN = 300;

function renderSegments(root, snap, model) {
  const segments = snap.segments;
  if (segments.length === 0) {
    root.append(el('p', {class: 'empty', text: 'No segments: the allocator holds no memory.'}));
    return;
  }

  const totals = {};
  for (const s of Object.keys(BLOCK_STATES)) totals[s] = {bytes: 0, count: 0};
  for (const seg of segments) {
    for (const b of seg.blocks || []) {
      totals[b.state].bytes += b.size;
      totals[b.state].count += 1;
    }
  }
  const legend = el('div', {class: 'legend'}, Object.entries(BLOCK_STATES).map(([state, s]) => {
    const swatch = el('span', {class: 'swatch'});
    swatch.style.background = s.colour;
    const t = totals[state];
    return el('span', {class: 'legend-item'}, swatch,
      `${s.name}: ${formatBytes(t.bytes)} in ${formatCount(t.count)} block${t.count === 1 ? '' : 's'}`);
  }));

  let toScale = false;
  const scale = el('select', {'aria-label': 'bar widths'},
    el('option', {value: 'fit', text: 'each bar spans the width'}),
    el('option', {value: 'scale', text: 'bars to scale'}));
  const controls = el('div', {class: 'controls'}, el('label', null, 'Widths: ', scale));
  const list = el('div', {class: 'segment-list'});
  root.append(controls, legend, list);

  const largest = segments.reduce((m, s) => Math.max(m, s.total_size), 1);
  let shown = Math.min(segments.length, SEGMENTS_SHOWN);

  function blockTooltip(event, seg, b) {
    const owner = model && model.blockOwner.get(addrKey(b.address));
    const requested = b.requested_size;
    Tooltip.show(event, `${formatBytes(b.size)} block, ${BLOCK_STATES[b.state].name}`, [
      ['address', b.address],
      ['offset', `+${formatBytes(addrOffset(b.address, seg.address))} in segment ${seg.address}`],
      ['size', formatExactBytes(b.size)],
      b.state !== 'inactive' && typeof requested === 'number' ? ['requested', formatExactBytes(requested)] : null,
      b.state !== 'inactive' && typeof requested === 'number' && requested < b.size
        ? ['rounding', formatExactBytes(b.size - requested)] : null,
      ['stream', seg.stream ?? '—'],
      owner && owner.label ? ['label', owner.label] : null,
      owner ? ['allocated', owner.pre ? 'before the trace began' : `at trace event ${formatCount(owner.start)}`] : null,
    ]);
  }

  function segmentRow(seg) {
    const blocks = seg.blocks || [];
    const size = seg.total_size;
    const used = blocks.filter(b => b.state !== 'inactive').reduce((s, b) => s + b.size, 0);
    const tags = [seg.segment_type || null, seg.stream !== undefined ? `stream ${seg.stream}` : null]
      .filter(t => t);
    const info = el('div', {class: 'segment-info'},
      el('div', {class: 'segment-title'},
        el('span', {class: 'segment-size', text: formatBytes(size)}),
        el('span', {class: 'mono', text: seg.address}),
        seg.is_expandable ? el('span', {class: 'badge', text: 'expandable'}) : null),
      el('div', {class: 'segment-sub',
        text: `${tags.join(' · ')}${tags.length ? ' · ' : ''}${formatBytes(used)} in use, ` +
              `${formatCount(blocks.length)} block${blocks.length === 1 ? '' : 's'}`}));
    const bar = el('div', {class: 'segment-bar'});
    bar.style.width = toScale ? `${Math.max(0.5, (100 * size) / largest)}%` : '100%';
    const barPx = (bar.style.width === '100%' ? 1 : size / largest) * Math.max(300, list.clientWidth - 330);
    for (const b of blocks) {
      const off = size > 0 ? addrOffset(b.address, seg.address) / size : 0;
      const frac = size > 0 ? b.size / size : 0;
      const s = BLOCK_STATES[b.state];
      const node = el('div', {class: `block ${b.state}`});
      node.style.left = `${100 * off}%`;
      node.style.width = `${100 * frac}%`;
      const req = b.requested_size;
      if (b.state !== 'inactive' && typeof req === 'number' && req > 0 && req < b.size) {
        const p = (100 * req) / b.size;
        node.style.background = `linear-gradient(to right, ${s.colour} ${p}%, ${s.tail} ${p}%)`;
      } else {
        node.style.background = s.colour;
      }
      if (frac * barPx >= 56) node.textContent = formatBytes(b.size);
      node.addEventListener('mouseenter', e => blockTooltip(e, seg, b));
      node.addEventListener('mousemove', e => Tooltip.move(e));
      node.addEventListener('mouseleave', () => Tooltip.hide());
      bar.append(node);
    }
    return el('div', {class: 'segment-row'}, info, el('div', {class: 'segment-track'}, bar));
  }

  function draw() {
    list.replaceChildren(...segments.slice(0, shown).map(segmentRow));
    if (shown < segments.length) {
      list.append(el('button', {type: 'button', class: 'more',
        text: `Show all ${formatCount(segments.length)} segments`,
        onclick: () => { shown = segments.length; draw(); }}));
    }
  }
  scale.addEventListener('change', () => {
    toScale = scale.value === 'scale';
    draw();
  });
  draw();
}

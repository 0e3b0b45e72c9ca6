// Draws the timeline model (timeline_model.js) as an SVG stacked area chart:
// a y axis in binary units, the reserved memory as a dashed line, OOMs as red
// rules. Hovering a band shows the allocation; the readout under the chart
// describes the trace entry under the pointer. Drag across the chart to zoom
// into a range of events, double-click (or "Reset zoom") to see them all.

const TL = {height: 400, left: 78, right: 24, top: 18, bottom: 46};

function describeEntry(e) {
  const where = e.addr !== undefined ? ` at ${e.addr}` : '';
  const stream = e.stream !== undefined ? `, stream ${e.stream}` : '';
  const label = e.user_metadata ? ` (${e.user_metadata})` : '';
  switch (e.action) {
    case 'oom':
      return `out of memory: ${formatBytes(e.size)} requested, ${formatBytes(e.addr)} free on the device${stream}${label}`;
    case 'snapshot':
      return 'snapshot taken';
    default:
      return `${e.action} ${formatBytes(e.size)}${where}${stream}${label}`;
  }
}

// Colour modes: one colour per allocation (neighbours differ), or one per
// stream or label, to see who holds the memory.
function colourer(model, mode) {
  const keys = new Map();
  const keyOf = a => (mode === 'stream' ? `stream ${a.stream}` : a.label || '(no label)');
  if (mode !== 'allocation') {
    for (const a of model.allocs) {
      const k = keyOf(a);
      if (!keys.has(k)) keys.set(k, keys.size);
    }
  }
  return {
    keys,
    fill(a) {
      if (mode === 'allocation') {
        return a.pre ? PRE_TRACE_COLOURS[a.colour % 2] : PALETTE[a.colour % PALETTE.length];
      }
      const k = keyOf(a);
      return k === '(no label)' ? PRE_TRACE_COLOURS[0] : PALETTE[keys.get(k) % PALETTE.length];
    },
  };
}

function renderTimeline(root, snap, model) {
  if (model.n === 0) {
    let why;
    if (snap.trace_max_entries === 0) {
      why = 'No trace: memory history was not being recorded when this snapshot was taken ' +
        '(trace_max_entries is 0). Turn recording on (tsr_record_memory_history) to see ' +
        'allocations over time.';
    } else if (!Array.isArray(snap.device_traces)) {
      why = 'No trace: the snapshot has no device_traces.';
    } else {
      why = 'The trace is empty: nothing was allocated or freed while memory history was recorded.';
    }
    root.append(el('p', {class: 'empty', text: why}));
    return;
  }

  let mode = 'allocation';
  const select = el('select', {'aria-label': 'colour by'},
    el('option', {value: 'allocation', text: 'allocation'}),
    el('option', {value: 'stream', text: 'stream'}),
    el('option', {value: 'label', text: 'label'}));
  // The reserved line shares the y axis. When segments dwarf the allocations
  // it would squeeze them into a sliver, so it starts hidden then.
  let reservedMax = 0;
  for (let k = 0; k <= model.n; k++) reservedMax = Math.max(reservedMax, model.reservedAt[k]);
  let showReserved = model.hasReserved && reservedMax <= 4 * model.maxBytes;
  const reservedBox = el('input', {type: 'checkbox'});
  reservedBox.checked = showReserved;
  const reset = el('button', {type: 'button', text: 'Reset zoom', hidden: ''});
  const controls = el('div', {class: 'controls'},
    el('label', null, 'Colour by ', select),
    model.hasReserved ? el('label', null, reservedBox, ' reserved memory') : null, reset,
    el('span', {class: 'hint', text: 'Drag across the chart to zoom; double-click to see all.'}));
  const chart = el('div', {class: 'chart'});
  const legend = el('div', {class: 'legend'});
  const readout = el('div', {class: 'readout'});
  root.append(controls, chart, legend, readout);

  const width = Math.max(640, chart.clientWidth || 1200);
  const pw = width - TL.left - TL.right;
  const ph = TL.height - TL.top - TL.bottom;
  const plot = svgEl('svg', {width, height: TL.height, class: 'timeline-svg'});
  chart.append(plot);
  const defs = svgEl('defs', null, plot);
  svgEl('rect', {x: TL.left, y: TL.top, width: pw, height: ph},
    svgEl('clipPath', {id: 'tl-clip'}, defs));
  const hatch = svgEl('pattern', {id: 'tl-folded', width: 6, height: 6,
    patternUnits: 'userSpaceOnUse', patternTransform: 'rotate(45)'}, defs);
  svgEl('rect', {width: 6, height: 6, fill: '#e8eaee'}, hatch);
  svgEl('line', {x1: 0, y1: 0, x2: 0, y2: 6, stroke: '#9aa1ab', 'stroke-width': 2}, hatch);

  const gGrid = svgEl('g', {class: 'grid'}, plot);
  const gBands = svgEl('g', {'clip-path': 'url(#tl-clip)'}, plot);
  const gLines = svgEl('g', {'clip-path': 'url(#tl-clip)', class: 'lines'}, plot);
  const gAxes = svgEl('g', {class: 'axes'}, plot);
  const highlight = svgEl('polygon', {class: 'highlight', 'clip-path': 'url(#tl-clip)', visibility: 'hidden'}, plot);
  const cursor = svgEl('line', {class: 'cursor', y1: TL.top, y2: TL.top + ph, visibility: 'hidden'}, plot);
  const brush = svgEl('rect', {class: 'brush', y: TL.top, height: ph, visibility: 'hidden'}, plot);

  const full = {x0: 0, x1: model.n + 1};
  let view = {...full};
  let sx = null;
  let sy = null;

  const timeOf = x => {
    const e = model.events[x - 1];
    return e && typeof e.time_us === 'number' && model.firstTime !== undefined
      ? ` (+${formatDuration(e.time_us - model.firstTime)})` : '';
  };

  function yMaxIn(x0, x1) {
    let m = 0;
    const lo = Math.max(0, Math.floor(x0));
    const hi = Math.min(model.n, Math.ceil(x1));
    for (let k = lo; k <= hi; k++) {
      m = Math.max(m, model.drawnAt[k] + model.foldedAt[k]);
      if (showReserved) m = Math.max(m, model.reservedAt[k]);
    }
    return m;
  }

  // A step function through (x, v) pairs sampled at every state, as polygon
  // points: only where the value changes.
  function stepPoints(values) {
    const pts = [];
    let prev = null;
    for (let k = 0; k <= model.n; k++) {
      const v = values(k);
      if (v !== prev) {
        if (prev !== null) pts.push([k, prev]);
        pts.push([k, v]);
        prev = v;
      }
    }
    pts.push([model.n + 1, prev]);
    return pts;
  }
  const fmt = pts => pts.map(([x, y]) => `${sx(x).toFixed(1)},${sy(y).toFixed(1)}`).join(' ');

  function bandPoints(a) {
    const end = model.endX(a);
    const bottom = [];
    for (let j = 0; j < a.xs.length; j++) {
      const to = j + 1 < a.xs.length ? a.xs[j + 1] : end;
      bottom.push([a.xs[j], a.offsets[j]], [to, a.offsets[j]]);
    }
    const top = bottom.map(([x, y]) => [x, y + a.size]).reverse();
    return fmt(bottom.concat(top));
  }

  function drawAxes(ticks) {
    gGrid.replaceChildren();
    gAxes.replaceChildren();
    for (const t of ticks) {
      const y = sy(t);
      svgEl('line', {x1: TL.left, x2: TL.left + pw, y1: y, y2: y}, gGrid);
      svgEl('text', {x: TL.left - 8, y: y + 4, 'text-anchor': 'end'}, gAxes).textContent =
        t === 0 ? '0' : formatBytes(t);
    }
    const span = view.x1 - view.x0;
    const step = niceStep(span, Math.max(2, Math.floor(pw / 90)), true);
    for (let x = Math.ceil(view.x0 / step) * step; x <= view.x1; x += step) {
      const px = sx(x);
      svgEl('line', {x1: px, x2: px, y1: TL.top + ph, y2: TL.top + ph + 5}, gAxes);
      svgEl('text', {x: px, y: TL.top + ph + 19, 'text-anchor': 'middle'}, gAxes).textContent =
        formatCount(x);
    }
    svgEl('line', {class: 'axis', x1: TL.left, x2: TL.left + pw, y1: TL.top + ph, y2: TL.top + ph}, gAxes);
    svgEl('line', {class: 'axis', x1: TL.left, x2: TL.left, y1: TL.top, y2: TL.top + ph}, gAxes);
    svgEl('text', {class: 'axis-title', x: TL.left + pw / 2, y: TL.height - 6, 'text-anchor': 'middle'},
      gAxes).textContent = `trace event (${formatCount(model.n)} in all)`;
    svgEl('text', {class: 'axis-title', 'text-anchor': 'middle',
      transform: `translate(16, ${TL.top + ph / 2}) rotate(-90)`}, gAxes).textContent = 'allocated memory';
  }

  function draw() {
    highlight.setAttribute('visibility', 'hidden');
    const ticks = byteTicks(yMaxIn(view.x0, view.x1));
    const yMax = ticks[ticks.length - 1];
    sx = x => TL.left + ((x - view.x0) / (view.x1 - view.x0)) * pw;
    sy = b => TL.top + ph - (b / yMax) * ph;
    drawAxes(ticks);

    const colours = colourer(model, mode);
    gBands.replaceChildren();
    // Band outlines separate neighbours; when events are packed tighter than
    // a few pixels they would paint over the colours instead.
    gBands.classList.toggle('dense', pw / (view.x1 - view.x0) < 4);
    for (const a of model.bands) {
      if (a.size === 0 || a.xs[0] > view.x1 || model.endX(a) < view.x0) continue;
      const p = svgEl('polygon', {points: bandPoints(a), fill: colours.fill(a), class: 'band'}, gBands);
      p.__allocation = a;
    }
    if (model.foldedCount > 0) {
      const bottom = stepPoints(k => model.drawnAt[k]);
      const top = stepPoints(k => model.drawnAt[k] + model.foldedAt[k]).reverse();
      const p = svgEl('polygon', {points: fmt(bottom.concat(top)), fill: 'url(#tl-folded)', class: 'band'}, gBands);
      p.__folded = true;
    }

    gLines.replaceChildren();
    if (showReserved) {
      svgEl('polyline', {class: 'reserved', points: fmt(stepPoints(k => model.reservedAt[k]))}, gLines);
    }
    for (const {x, entry} of model.ooms) {
      const g = svgEl('g', {class: 'oom'}, gLines);
      svgEl('line', {x1: sx(x), x2: sx(x), y1: TL.top, y2: TL.top + ph}, g);
      svgEl('line', {class: 'hit', x1: sx(x), x2: sx(x), y1: TL.top, y2: TL.top + ph}, g); // easier to hover
      svgEl('text', {x: sx(x) + 4, y: TL.top + 12}, g).textContent = 'OOM';
      g.__oom = {x, entry};
    }
    reset.hidden = view.x0 === full.x0 && view.x1 === full.x1;
    drawLegend(colours);
  }

  function legendItem(swatchClass, style, text) {
    const swatch = el('span', {class: `swatch ${swatchClass}`});
    if (style) swatch.style.background = style;
    return el('span', {class: 'legend-item'}, swatch, text);
  }

  function drawLegend(colours) {
    const items = [];
    if (mode === 'allocation') {
      items.push(legendItem('multi', null, 'allocation made during the trace (one colour each)'));
      if (model.allocs.some(a => a.pre)) {
        items.push(legendItem('', PRE_TRACE_COLOURS[0], 'allocated before the trace began'));
      }
    } else {
      for (const [k, i] of colours.keys) {
        items.push(legendItem('', k === '(no label)' ? PRE_TRACE_COLOURS[0] : PALETTE[i % PALETTE.length], k));
      }
    }
    if (model.foldedCount > 0) {
      items.push(legendItem('folded', null,
        `${formatCount(model.foldedCount)} smaller allocations, folded (the ${formatCount(TIMELINE_DRAW_LIMIT)} largest are drawn)`));
    }
    if (showReserved) items.push(legendItem('line-reserved', null, 'reserved (segments)'));
    if (model.ooms.length > 0) items.push(legendItem('line-oom', null, 'out of memory'));
    legend.replaceChildren(...items);
  }

  function defaultReadout() {
    const last = model.events[model.n - 1];
    const span = model.firstTime !== undefined && last && typeof last.time_us === 'number'
      ? ` over ${formatDuration(last.time_us - model.firstTime)}` : '';
    readout.textContent = `${formatCount(model.n)} trace entries${span} · ` +
      `${formatCount(model.allocs.length)} allocations · peak ${formatBytes(model.maxBytes)} ` +
      `${model.peakX === 0 ? 'before the trace' : `at event ${formatCount(model.peakX)}`} · ` +
      'hover a band for details';
  }

  function dataX(event) {
    const r = plot.getBoundingClientRect();
    const px = event.clientX - r.left;
    return {px, x: view.x0 + ((px - TL.left) / pw) * (view.x1 - view.x0),
      inside: px >= TL.left && px <= TL.left + pw};
  }

  function showReadout(x) {
    const k = Math.max(0, Math.min(model.n, Math.floor(x)));
    const what = k === 0 ? 'before the first trace entry'
      : `event ${formatCount(k)}${timeOf(k)}: ${describeEntry(model.events[k - 1])}`;
    const reserved = model.hasReserved ? ` · reserved ${formatBytes(model.reservedAt[k])}` : '';
    readout.textContent = `${what} · allocated ${formatBytes(model.drawnAt[k] + model.foldedAt[k])}${reserved}`;
  }

  function bandTooltip(event, a) {
    const when = x => `event ${formatCount(x)}${timeOf(x)}`;
    let freed;
    if (a.end !== null) freed = when(a.end);
    else if (a.state === 'active_pending_free' || a.freeRequested !== null) freed = 'not yet: free requested, pending';
    else freed = 'no: still allocated at the snapshot';
    const life = a.end !== null && !a.pre && model.events[a.start - 1] && model.events[a.end - 1] &&
      typeof model.events[a.start - 1].time_us === 'number'
      ? formatDuration(model.events[a.end - 1].time_us - model.events[a.start - 1].time_us) : null;
    Tooltip.show(event, `${formatBytes(a.size)} allocation`, [
      ['size', formatExactBytes(a.size)],
      ['address', a.addr],
      ['stream', a.stream],
      ['label', a.label || '—'],
      ['allocated', a.pre ? 'before the trace began' : when(a.start)],
      a.freeRequested !== null ? ['free requested', when(a.freeRequested)] : null,
      ['freed', freed],
      life !== null ? ['lifetime', life] : null,
    ]);
  }

  plot.addEventListener('mouseover', event => {
    const t = event.target;
    if (t.__allocation) {
      // An outline on top: the band's own stroke would hide under later bands.
      highlight.setAttribute('points', t.getAttribute('points'));
      highlight.setAttribute('visibility', 'visible');
      bandTooltip(event, t.__allocation);
    } else if (t.__folded) {
      Tooltip.show(event, `${formatCount(model.foldedCount)} smaller allocations`, [
        ['why', `only the ${formatCount(TIMELINE_DRAW_LIMIT)} largest are drawn one by one`],
      ]);
    } else if (t.parentNode && t.parentNode.__oom) {
      const {x, entry} = t.parentNode.__oom;
      Tooltip.show(event, 'Out of memory', [
        ['event', `${formatCount(x)}${timeOf(x)}`],
        ['requested', formatExactBytes(entry.size)],
        ['device free', formatExactBytes(entry.addr)],
        ['stream', entry.stream ?? '—'],
        ['label', entry.user_metadata || '—'],
      ]);
    }
  });
  plot.addEventListener('mouseout', () => {
    highlight.setAttribute('visibility', 'hidden');
    Tooltip.hide();
  });

  let dragFrom = null;
  plot.addEventListener('mousedown', event => {
    const d = dataX(event);
    if (event.button !== 0 || !d.inside) return;
    dragFrom = d;
    event.preventDefault();
  });
  plot.addEventListener('mousemove', event => {
    Tooltip.move(event);
    const d = dataX(event);
    if (d.inside) {
      cursor.setAttribute('x1', d.px);
      cursor.setAttribute('x2', d.px);
      cursor.setAttribute('visibility', 'visible');
      showReadout(d.x);
    } else {
      cursor.setAttribute('visibility', 'hidden');
    }
    if (dragFrom) {
      const px = Math.max(TL.left, Math.min(TL.left + pw, d.px));
      brush.setAttribute('x', Math.min(px, dragFrom.px));
      brush.setAttribute('width', Math.abs(px - dragFrom.px));
      brush.setAttribute('visibility', 'visible');
    }
  });
  plot.addEventListener('mouseleave', () => {
    cursor.setAttribute('visibility', 'hidden');
    defaultReadout();
  });
  window.addEventListener('mouseup', event => {
    if (!dragFrom) return;
    const d = dataX(event);
    const from = dragFrom;
    dragFrom = null;
    brush.setAttribute('visibility', 'hidden');
    if (Math.abs(d.px - from.px) < 5) return; // a click, not a drag
    const x0 = Math.max(full.x0, Math.min(from.x, d.x));
    const x1 = Math.min(full.x1, Math.max(from.x, d.x));
    view = {x0: Math.floor(x0), x1: Math.max(Math.ceil(x1), Math.floor(x0) + 2)};
    draw();
  });
  plot.addEventListener('dblclick', () => {
    view = {...full};
    draw();
  });
  reset.addEventListener('click', () => {
    view = {...full};
    draw();
  });
  reservedBox.addEventListener('change', () => {
    showReserved = reservedBox.checked;
    draw();
  });
  select.addEventListener('change', () => {
    mode = select.value;
    draw();
  });

  draw();
  defaultReadout();
}

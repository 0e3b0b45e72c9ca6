// Formatting and DOM helpers shared by the views. Sizes are shown in binary
// units (KiB, MiB, GiB): the allocator's sizes and roundings are powers of two.

const BYTE_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];

function formatBytes(n) {
  if (typeof n !== 'number' || !Number.isFinite(n)) return '–';
  let v = Math.abs(n);
  let u = 0;
  while (v >= 1024 && u < BYTE_UNITS.length - 1) {
    v /= 1024;
    u++;
  }
  const digits = u === 0 || v >= 100 ? 0 : v >= 10 ? 1 : 2;
  return `${n < 0 ? '-' : ''}${Number(v.toFixed(digits))} ${BYTE_UNITS[u]}`;
}

function formatCount(n) {
  return typeof n === 'number' && Number.isFinite(n) ? n.toLocaleString('en-US') : '–';
}

function formatExactBytes(n) {
  return typeof n === 'number' ? `${formatBytes(n)} (${formatCount(n)} bytes)` : '–';
}

function formatDuration(us) {
  if (typeof us !== 'number' || !Number.isFinite(us)) return '–';
  const a = Math.abs(us);
  if (a < 1000) return `${us} µs`;
  if (a < 1e6) return `${Number((us / 1e3).toPrecision(4))} ms`;
  return `${Number((us / 1e6).toPrecision(4))} s`;
}

// Addresses arrive as "0x..." strings (tessera-memviz rewrites them: a
// JavaScript number is exact only up to 2^53). The key is canonical hex, so
// equal addresses compare equal whatever their spelling.
function addrKey(a) {
  try {
    return '0x' + BigInt(a).toString(16);
  } catch (e) {
    return String(a);
  }
}

// Bytes from `base` to `a`, both addresses.
function addrOffset(a, base) {
  return Number(BigInt(a) - BigInt(base));
}

// el('div', {class: 'x', text: 'hi', onclick: f}, child, ...): an element.
// Text always goes in as text, never as HTML: labels come from user data.
function el(tag, props, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(props || {})) {
    if (v === null || v === undefined) continue;
    if (k === 'class') node.className = v;
    else if (k === 'text') node.textContent = v;
    else if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const c of children.flat()) {
    if (c !== null && c !== undefined) node.append(c);
  }
  return node;
}

const SVG_NS = 'http://www.w3.org/2000/svg';

// An SVG element with attributes, appended to `parent` when given.
function svgEl(tag, attrs, parent) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v !== null && v !== undefined) node.setAttribute(k, v);
  }
  if (parent) parent.appendChild(node);
  return node;
}

// A step of 1, 2, 2.5 or 5 times a power of ten giving about `count` steps;
// with `integer`, a whole number of at least 1 (for counts: event numbers).
function niceStep(range, count, integer) {
  const raw = range / Math.max(1, count);
  if (!(raw > 0)) return 1;
  if (integer && raw <= 1) return 1;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const norm = raw / mag;
  const quarter = !(integer && mag < 10); // 2.5 is no whole number below 10
  const f = norm <= 1 ? 1 : norm <= 2 ? 2 : norm <= 2.5 && quarter ? 2.5 : norm <= 5 ? 5 : 10;
  return f * mag;
}

// Axis ticks for bytes: round numbers of one binary unit ("256 MiB", not
// "268 MB"), from 0 to the first tick at or above max.
function byteTicks(max) {
  max = Math.max(max, 1);
  let unit = 1;
  while (max / unit >= 1024 && unit < 1024 ** 5) unit *= 1024;
  const step = Math.max(niceStep(max / unit, 5) * unit, 1);
  const ticks = [0];
  while (ticks[ticks.length - 1] < max) ticks.push(ticks.length * step);
  return ticks;
}

// Twelve colours that read apart on white (Tableau's, without the grey and
// red kept for "before the trace" and OOM).
const PALETTE = [
  '#4e79a7', '#f28e2b', '#59a14f', '#b07aa1', '#76b7b2', '#edc948',
  '#ff9da7', '#9c755f', '#a0cbe8', '#8cd17d', '#ffbe7d', '#d4a6c8',
];
const PRE_TRACE_COLOURS = ['#b9bfc7', '#a5acb6'];
const OOM_COLOUR = '#d62728';

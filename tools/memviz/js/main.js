// Reads the snapshot embedded in the page and draws each section. A section
// that fails shows its error in place and marks the status "not ok"; the
// others still draw.

function drawSection(name, id, draw) {
  const root = document.getElementById(id);
  try {
    return draw(root);
  } catch (e) {
    Status.fail(name, e);
    if (root) root.append(el('p', {class: 'error', text: `Could not draw the ${name}: ${e.message}`}));
    return undefined;
  }
}

function main() {
  let snap;
  try {
    snap = JSON.parse(document.getElementById('memviz-data').textContent);
  } catch (e) {
    Status.fail('snapshot', e);
    Status.publish();
    return;
  }
  if (!Array.isArray(snap.segments)) snap.segments = [];

  let model = null;
  try {
    model = buildTimeline(snap);
  } catch (e) {
    Status.fail('timeline data', e);
  }
  drawSection('header', 'subtitle', node => renderSubtitle(node, snap));
  drawSection('summary cards', 'cards', node => renderCards(node, snap, model));
  if (model) drawSection('timeline', 'timeline', node => renderTimeline(node, snap, model));
  drawSection('segments', 'segments', node => renderSegments(node, snap, model));
  drawSection('statistics', 'stats', node => renderStats(node, snap));
  drawSection('settings', 'settings', node => renderSettings(node, snap));

  const blocks = snap.segments.reduce((t, s) => t + (s.blocks || []).length, 0);
  const traced = model && model.n > 0;
  Status.set({
    // Allocations in the timeline: alloc entries plus those alive before the
    // trace began; `drawn` of them have a band of their own (see
    // TIMELINE_DRAW_LIMIT), the rest share the folded band.
    allocations: traced ? model.allocs.length : 0,
    drawn: traced ? model.drawnCount : 0,
    trace_entries: model ? model.n : 0,
    segments: snap.segments.length,
    blocks,
  });
  Status.publish();
}

main();

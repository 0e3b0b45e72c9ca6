// The machine-readable outcome, in <pre id="memviz-status">, for tests (and
// anyone scripting the page): {"ok": true, "allocations": N, ...} once every
// section is drawn, or {"ok": false, "errors": [...]} naming what failed.
// An error thrown later (in a hover handler, say) also turns it "not ok".
const Status = (() => {
  const result = {ok: true, errors: []};
  function publish() {
    const node = document.getElementById('memviz-status');
    if (!node) return;
    const out = {...result};
    if (out.errors.length === 0) delete out.errors;
    node.textContent = JSON.stringify(out);
  }
  window.addEventListener('error', e => {
    result.ok = false;
    result.errors.push(String(e.message));
    publish();
  });
  return {
    set(fields) { Object.assign(result, fields); },
    fail(where, error) {
      result.ok = false;
      result.errors.push(`${where}: ${error && error.message ? error.message : error}`);
    },
    publish,
  };
})();

// One floating tooltip for the page: a title and rows of (name, value),
// placed beside the pointer and kept inside the window.
const Tooltip = (() => {
  let node = null;
  function ensure() {
    if (!node) {
      node = el('div', {class: 'tooltip', role: 'tooltip'});
      document.body.append(node);
    }
    return node;
  }
  return {
    show(event, title, rows) {
      const t = ensure();
      t.replaceChildren(
        el('div', {class: 'tooltip-title', text: title}),
        el('table', null, rows.filter(r => r).map(([k, v]) =>
          el('tr', null, el('th', {text: k}), el('td', {text: String(v)})))));
      t.style.display = 'block';
      this.move(event);
    },
    move(event) {
      if (!node || node.style.display !== 'block') return;
      const pad = 14;
      const w = node.offsetWidth;
      const h = node.offsetHeight;
      let x = event.clientX + pad;
      let y = event.clientY + pad;
      if (x + w > window.innerWidth - 4) x = Math.max(4, event.clientX - pad - w);
      if (y + h > window.innerHeight - 4) y = Math.max(4, event.clientY - pad - h);
      node.style.left = `${x}px`;
      node.style.top = `${y}px`;
    },
    hide() {
      if (node) node.style.display = 'none';
    },
  };
})();

// Loaded first in a copy of an HTML report by report_browser_test.sh: counts
// script errors and console errors, and on load measures the first screen,
// then writes one attribute the test reads from the dumped DOM:
//   data-layout="sw=W iw=W cw=W bars=Y findings=Y interactive=Y errors=N sort=S"
// sw: document.scrollingElement.scrollWidth; iw: innerWidth; cw: the
// root's clientWidth; bars, findings, interactive: the page y of the bottom
// of the per-rank bars and of the first findings, the top of the
// interactive timeline (-1: absent); sort: the ranks table sorted by its
// span column on a click ("ok", "bad", "skip": fewer than two rows).
(function () {
  var errors = [];
  window.addEventListener('error', function (e) { errors.push(String(e.message)); });
  var consoleError = console.error;
  console.error = function () {
    errors.push(Array.prototype.join.call(arguments, ' '));
    consoleError.apply(console, arguments);
  };
  function pageY(selector, edge) {
    var element = document.querySelector(selector);
    if (!element) return -1;
    var box = element.getBoundingClientRect();
    return Math.round(box[edge] + window.scrollY);
  }
  function sortCheck() {
    var table = document.querySelector('#ranks table');
    if (!table || table.rows.length < 3) return 'skip';
    var spanHeader = table.rows[0].cells[3];
    if (!spanHeader || spanHeader.getAttribute('aria-sort') !== null) return 'bad';
    spanHeader.click();
    var values = [];
    for (var i = 1; i < table.rows.length; i++) {
      var raw = table.rows[i].cells[3].getAttribute('data-v');
      if (raw !== null && raw !== '') values.push(parseFloat(raw));
    }
    for (var j = 1; j < values.length; j++) if (values[j] > values[j - 1]) return 'bad';
    spanHeader.click();  // ascending now
    var first = table.rows[1].cells[3].getAttribute('data-v');
    var last = table.rows[table.rows.length - 1].cells[3].getAttribute('data-v');
    if (first !== '' && last !== '' && parseFloat(first) > parseFloat(last)) return 'bad';
    return spanHeader.getAttribute('aria-sort') === 'ascending' ? 'ok' : 'bad';
  }
  window.addEventListener('load', function () {
    var root = document.documentElement;
    var result = [
      'sw=' + document.scrollingElement.scrollWidth,
      'iw=' + window.innerWidth,
      'cw=' + root.clientWidth,
      'bars=' + pageY('#rank-bars', 'bottom'),
      'findings=' + pageY('#top-findings ol.findings', 'bottom'),
      'interactive=' + pageY('#interactive', 'top'),
    ];
    // Measured before the sort check, which changes nothing of the width.
    var sort = sortCheck();
    result.push('errors=' + errors.length, 'sort=' + sort);
    root.setAttribute('data-layout', result.join(' '));
    if (errors.length) root.setAttribute('data-layout-errors', errors.slice(0, 5).join(' | '));
  });
})();

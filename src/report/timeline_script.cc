// The interactive timeline's script (timeline_html.h). Plain ES5-level
// JavaScript, hand-written: decode the payload into typed arrays once, then
// draw only what the window shows, one rectangle per pixel column and lane
// where kernels are narrower than a pixel, so 10^5 kernels redraw in a few
// milliseconds. Profile strings reach the page only through textContent and
// canvas text, never as markup.
#include "report/timeline_html.h"

namespace trainscope::report {

const HtmlLiteral kTimelineScript = R"js(
(function () {
  var host = document.getElementById('ts-tl');
  if (!host) return;
  var D = JSON.parse(host.getAttribute('data-timeline'));
  var S = D.strings, R = D.ranks, F = D.findings;
  var color = {};
  D.family_colors.forEach(function (p) { color[p[0]] = p[1]; });
  var LANES = ['Compute', 'Comm', 'Other', 'Host launch'];
  var maxLate = 1, total = 0, NL = 3;
  R.forEach(function (r) { decode(r); total += r.n; if (r.late > maxLate) maxLate = r.late; if (r.nl > 0) NL = 4; });

  function decode(r) {
    var s = atob(r.kernels), u = new Uint8Array(s.length), p = 0, n = r.n, i, t = 0;
    for (i = 0; i < s.length; i++) u[i] = s.charCodeAt(i);
    function v() { var x = 0, m = 1, c; do { c = u[p++]; x += (c & 127) * m; m *= 128; } while (c & 128); return x; }
    r.st = new Float64Array(n); r.du = new Float64Array(n); r.ln = new Uint8Array(n);
    r.op = new Uint32Array(n); r.nm = new Uint32Array(n); r.fa = new Uint32Array(n); r.ins = new Int32Array(n);
    var counts = [0, 0, 0];
    for (i = 0; i < n; i++) {
      t += v(); r.st[i] = t + r.offset; r.du[i] = v(); r.ln[i] = Math.min(v(), 2);
      r.op[i] = v(); r.nm[i] = v(); r.fa[i] = v(); r.ins[i] = v() - 1; counts[r.ln[i]]++;
    }
    r.li = []; r.md = [0, 0, 0];
    for (var l = 0; l < 3; l++) r.li.push(new Uint32Array(counts[l]));
    var fill = [0, 0, 0];
    for (i = 0; i < n; i++) {
      var ln = r.ln[i]; r.li[ln][fill[ln]++] = i; if (r.du[i] > r.md[ln]) r.md[ln] = r.du[i];
    }
    // Host launches, by start: the first start zigzag, then deltas.
    s = atob(r.launches); u = new Uint8Array(s.length); p = 0;
    for (i = 0; i < s.length; i++) u[i] = s.charCodeAt(i);
    r.lst = new Float64Array(r.nl); r.lk = new Uint32Array(r.nl); r.ldu = new Float64Array(r.nl); r.lmd = 0;
    for (i = 0; i < r.nl; i++) {
      var z = v();
      t = i === 0 ? (z % 2 ? -(z + 1) / 2 : z / 2) : t + z;
      r.lst[i] = t + r.offset; r.lk[i] = Math.min(v(), n - 1); r.ldu[i] = v();
      if (r.ldu[i] > r.lmd) r.lmd = r.ldu[i];
    }
  }
  function lowerBoundOf(st, t) {
    var lo = 0, hi = st.length;
    while (lo < hi) { var mid = (lo + hi) >> 1; if (st[mid] < t) lo = mid + 1; else hi = mid; }
    return lo;
  }

  var LW = 92, AX = 18, LH = R.length <= 8 ? 14 : R.length <= 24 ? 7 : 4, GAP = R.length <= 24 ? 4 : 2;
  var ROW = NL * LH + GAP, MH = 48;
  var canvas = document.createElement('canvas'), mini = document.createElement('canvas');
  var tip = document.createElement('div');
  canvas.className = 'tl-main'; mini.className = 'tl-mini'; tip.className = 'tl-tip';
  host.appendChild(canvas); host.appendChild(mini); document.body.appendChild(tip);
  var dpr = window.devicePixelRatio || 1, W = 0, H = AX + R.length * ROW + 2;
  var ctx = canvas.getContext('2d'), mctx = mini.getContext('2d');
  var span = Math.max(D.span, 1), v0 = 0, v1 = span, sel = null, drawnRects = 0, miniImage = null;
  var boxMotifs = document.getElementById('tl-motifs'), boxFindings = document.getElementById('tl-findings');
  var rangeLabel = document.getElementById('tl-range');
  if (!D.shared_axis) {
    var note = document.createElement('p'); note.className = 'muted';
    note.textContent = 'The ranks\' step starts lie too far apart for one clock: each rank is drawn from its own step start.';
    host.appendChild(note);
  }

  function size() {
    W = Math.max(400, host.clientWidth || 1000);
    canvas.width = W * dpr; canvas.height = H * dpr; canvas.style.height = H + 'px';
    mini.width = W * dpr; mini.height = MH * dpr; mini.style.height = MH + 'px';
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0); mctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    miniImage = null;
  }
  function X(t) { return LW + (t - v0) / (v1 - v0) * (W - LW); }
  function T(x) { return v0 + (x - LW) / (W - LW) * (v1 - v0); }
  function fmt(ns) {
    var a = Math.abs(ns);
    if (a < 1e3) return ns.toFixed(0) + ' ns';
    if (a < 1e6) return (ns / 1e3).toFixed(a < 1e4 ? 2 : 1) + ' \u00b5s';
    if (a < 1e9) return (ns / 1e6).toFixed(a < 1e7 ? 3 : 2) + ' ms';
    return (ns / 1e9).toFixed(3) + ' s';
  }
  function lowerBound(idx, st, t) {
    var lo = 0, hi = idx.length;
    while (lo < hi) { var mid = (lo + hi) >> 1; if (st[idx[mid]] < t) lo = mid + 1; else hi = mid; }
    return lo;
  }
  function lateColor(late) {
    var f = Math.min(1, Math.max(0, late / maxLate)), g = Math.round(90 * (1 - f));
    return 'rgb(' + Math.round(60 + 180 * f) + ',' + g + ',' + g + ')';
  }
  var hatch = null;
  function hatchPattern() {
    if (hatch) return hatch;
    var c = document.createElement('canvas'); c.width = 6; c.height = 6;
    var g = c.getContext('2d'); g.fillStyle = '#eee'; g.fillRect(0, 0, 6, 6);
    g.strokeStyle = '#999'; g.beginPath(); g.moveTo(0, 6); g.lineTo(6, 0); g.stroke();
    hatch = ctx.createPattern(c, 'repeat'); return hatch;
  }
  function motifColor(m) { return ['#0072B2', '#E69F00', '#009E73', '#CC79A7', '#56B4E9', '#D55E00'][m % 6]; }

  function drawAxis() {
    ctx.fillStyle = '#fff'; ctx.fillRect(0, 0, W, AX);
    var w = v1 - v0, step = Math.pow(10, Math.floor(Math.log10(w / 6)));
    if (w / step > 12) step *= 5; else if (w / step > 6) step *= 2;
    ctx.fillStyle = '#555'; ctx.font = '10px sans-serif'; ctx.textAlign = 'center';
    for (var t = Math.ceil(v0 / step) * step; t <= v1; t += step) {
      var x = X(t); ctx.fillRect(x, AX - 4, 1, 4); ctx.fillText(fmt(t), x, AX - 6);
    }
  }
  function drawRank(r, ri) {
    var y0 = AX + ri * ROW, l, x0, x1, px, last, fill = null;
    if (ri % 2) { ctx.fillStyle = '#f3f5f8'; ctx.fillRect(0, y0 - GAP / 2, W, ROW); }  // rows apart
    ctx.fillStyle = lateColor(r.late); ctx.font = (LH >= 7 ? 11 : 9) + 'px sans-serif'; ctx.textAlign = 'right';
    ctx.fillText('rank ' + r.rank + (r.straggler ? ' \u25b2' : ''), LW - 6, y0 + Math.min(ROW - GAP, 11));
    if (r.wait > 0) {
      x0 = Math.max(LW, X(r.offset)); x1 = Math.min(W, X(r.offset + r.wait));
      if (x1 > x0) { ctx.fillStyle = hatchPattern(); ctx.fillRect(x0, y0, x1 - x0, LH - 1); }
    }
    for (l = 0; l < 3; l++) {
      var idx = r.li[l], y = y0 + l * LH, k = lowerBound(idx, r.st, v0 - r.md[l]);
      last = -1;
      for (; k < idx.length; k++) {
        var i = idx[k], s = r.st[i];
        if (s > v1) break;
        x0 = X(s); x1 = X(s + r.du[i]);
        if (x1 < LW) continue;
        x0 = Math.max(x0, LW); px = Math.floor(x0);
        if (x1 - x0 < 1) { if (px <= last) continue; last = px; x1 = x0 + 1; }
        var c = color[r.fa[i]] || '#999';
        if (c !== fill) { ctx.fillStyle = c; fill = c; }
        ctx.fillRect(x0, y, x1 - x0, LH - 1); drawnRects++;
        if (x1 - x0 > 60 && LH >= 12) {
          ctx.save(); ctx.beginPath(); ctx.rect(x0, y, x1 - x0, LH); ctx.clip();
          ctx.fillStyle = '#000'; ctx.textAlign = 'left'; ctx.font = '10px sans-serif';
          ctx.fillText(S[r.op[i]], x0 + 2, y + LH - 4); ctx.restore(); fill = null;
        }
      }
    }
    if (NL > 3 && r.nl > 0) {  // the host-launch lane
      var yl = y0 + 3 * LH;
      last = -1; ctx.fillStyle = '#777';
      for (k = lowerBoundOf(r.lst, v0 - r.lmd); k < r.nl && r.lst[k] <= v1; k++) {
        x0 = X(r.lst[k]); x1 = X(r.lst[k] + r.ldu[k]);
        if (x1 < LW) continue;
        x0 = Math.max(x0, LW); px = Math.floor(x0);
        if (x1 - x0 < 1) { if (px <= last) continue; last = px; x1 = x0 + 1; }
        ctx.fillRect(x0, yl, x1 - x0, LH - 1); drawnRects++;
      }
    }
    var showMotifs = boxMotifs && boxMotifs.checked, showFindings = !boxFindings || boxFindings.checked;
    if (!showMotifs && !showFindings) return;
    last = -1;
    for (var j = 0; j + 2 < r.instances.length; j += 3) {
      var m = r.instances[j], a = r.instances[j + 1] + r.offset, b = r.instances[j + 2] + r.offset;
      if (m < 0 || b < v0 || a > v1) continue;
      x0 = Math.max(LW, X(a)); x1 = Math.max(x0 + 1, X(b));
      if (x1 - x0 < 2) { px = Math.floor(x0); if (px <= last) continue; last = px; }
      if (showMotifs) { ctx.fillStyle = motifColor(m); ctx.globalAlpha = 0.35; ctx.fillRect(x0, y0, x1 - x0, 2); ctx.globalAlpha = 1; }
      if (showFindings && r.motifs[m] && r.motifs[m].finding >= 0) {
        // A finding's instance: a red line under the compute lane, outlined when wide enough.
        ctx.fillStyle = '#d00'; ctx.fillRect(x0, y0 + LH - 1, x1 - x0, LH >= 7 ? 2 : 1);
        if (x1 - x0 >= 8) { ctx.strokeStyle = '#d00'; ctx.lineWidth = 1; ctx.strokeRect(x0 + 0.5, y0 + 0.5, x1 - x0 - 1, LH - 2); }
      }
    }
  }
  function draw() {
    drawnRects = 0;
    ctx.clearRect(0, 0, W, H);
    for (var ri = 0; ri < R.length; ri++) drawRank(R[ri], ri);
    drawAxis();
    if (sel) {
      var r = R[sel.r], x0 = Math.max(LW, X(r.st[sel.i])), x1 = Math.max(x0 + 2, X(r.st[sel.i] + r.du[sel.i]));
      ctx.strokeStyle = '#000'; ctx.lineWidth = 2;
      ctx.strokeRect(x0 - 1, AX + sel.r * ROW + r.ln[sel.i] * LH - 1, x1 - x0 + 2, LH + 1);
    }
    drawMini();
    if (rangeLabel) rangeLabel.textContent = 'window ' + fmt(v0) + ' \u2013 ' + fmt(v1) + ' (' + fmt(v1 - v0) + ')';
  }
  function drawMini() {
    if (!miniImage) {
      // The whole step once: each rank a band, the compute lane's busy pixels dark.
      mctx.clearRect(0, 0, W, MH); mctx.fillStyle = '#f4f4f4'; mctx.fillRect(LW, 0, W - LW, MH);
      var band = MH / R.length;
      R.forEach(function (r, ri) {
        var last = -1;
        for (var i = 0; i < r.n; i++) {
          var px = Math.floor(LW + r.st[i] / span * (W - LW)), w = Math.max(1, r.du[i] / span * (W - LW));
          if (px + w <= last) continue; last = px + w;
          mctx.fillStyle = color[r.fa[i]] || '#999'; mctx.fillRect(px, ri * band, w, Math.max(1, band));
        }
      });
      miniImage = mctx.getImageData(0, 0, mini.width, mini.height);
    } else {
      mctx.putImageData(miniImage, 0, 0);
    }
    var a = LW + v0 / span * (W - LW), b = LW + v1 / span * (W - LW);
    mctx.strokeStyle = '#000'; mctx.lineWidth = 1.5; mctx.strokeRect(a, 1, Math.max(2, b - a), MH - 2);
    mctx.fillStyle = '#555'; mctx.font = '10px sans-serif'; mctx.textAlign = 'right';
    mctx.fillText('whole step', LW - 6, 14);
  }
  function hit(x, y) {
    var ri = Math.floor((y - AX) / ROW);
    if (ri < 0 || ri >= R.length || x < LW) return null;
    var l = Math.floor((y - AX - ri * ROW) / LH);
    if (l < 0 || l >= NL) return null;
    var r = R[ri], t = T(x), tol = 2 * (v1 - v0) / (W - LW), best = -1, bestD = 1e300, e, d, s, k;
    if (l === 3) {
      for (k = lowerBoundOf(r.lst, t - r.lmd - tol); k < r.nl && r.lst[k] <= t + tol; k++) {
        s = r.lst[k]; e = s + r.ldu[k]; d = t < s ? s - t : t > e ? t - e : 0;
        if (d <= tol && d < bestD) { best = k; bestD = d; }
      }
      return best < 0 ? null : { r: ri, i: r.lk[best], launch: best };
    }
    var idx = r.li[l];
    for (k = lowerBound(idx, r.st, t - r.md[l] - tol); k < idx.length; k++) {
      var i = idx[k];
      s = r.st[i];
      if (s > t + tol) break;
      e = s + r.du[i]; d = t < s ? s - t : t > e ? t - e : 0;
      if (d <= tol && (d < bestD || (d === bestD && r.du[i] < r.du[best]))) { best = i; bestD = d; }
    }
    return best < 0 ? null : { r: ri, i: best };
  }
  function describe(h) {
    var r = R[h.r], i = h.i, lines = [S[r.nm[i]]];
    if (h.launch !== undefined) {
      var ls = r.lst[h.launch];
      lines.unshift('host launch (' + fmt(r.ldu[h.launch]) + ') of the kernel below; the kernel starts ' +
                    fmt(r.st[i] - ls) + ' after the launch starts');
    }
    lines.push('rank ' + r.rank + ', ' + LANES[r.ln[i]] + ' lane, family ' + S[r.fa[i]]);
    lines.push('duration ' + fmt(r.du[i]) + ', starts +' + fmt(r.st[i] - r.offset) + ' into the rank\'s step');
    var ins = r.ins[i];
    if (ins >= 0 && 3 * ins < r.instances.length) {
      var m = r.instances[3 * ins], mo = r.motifs[m];
      if (mo) {
        lines.push('motif: ' + S[mo.label]);
        if (mo.finding >= 0 && F[mo.finding]) lines.push('finding: ' + F[mo.finding].id + ' \u2013 ' + F[mo.finding].title);
      }
    }
    return lines.join('\n');
  }
  function rankLine(ri) {
    var r = R[ri], s = 'rank ' + r.rank + (r.straggler ? ' (straggler)' : '') + ': step starts +' + fmt(r.late) + ' after the earliest rank';
    if (r.wait > 0) s += '; compute idle ' + fmt(r.wait) + ' at step start' + (r.wait_for >= 0 ? ' while ' + S[r.wait_for] + ' runs' : '');
    if (r.dropped > 0) s += '; ' + r.dropped + ' shortest kernels not in the page';
    return s;
  }
  function showTip(text, ev) {
    tip.textContent = text; tip.style.display = text ? 'block' : 'none';
    tip.style.left = Math.min(ev.clientX + 14, window.innerWidth - 420) + 'px'; tip.style.top = (ev.clientY + 14) + 'px';
  }
  function setView(a, b) {
    var w = Math.min(Math.max(b - a, 50), span * 1.2);
    var c = (a + b) / 2; a = c - w / 2; b = c + w / 2;
    if (a < -span * 0.1) { b += -span * 0.1 - a; a = -span * 0.1; }
    if (b > span * 1.1) { a -= b - span * 1.1; b = span * 1.1; }
    v0 = a; v1 = b;
  }
  var pending = false;
  function redraw() { if (!pending) { pending = true; requestAnimationFrame(function () { pending = false; draw(); }); } }
  function pos(ev) { var b = canvas.getBoundingClientRect(); return [ev.clientX - b.left, ev.clientY - b.top]; }
  canvas.addEventListener('wheel', function (ev) {
    ev.preventDefault();
    var p = pos(ev), t = T(Math.max(LW, p[0])), f = Math.exp(ev.deltaY * 0.002);
    setView(t - (t - v0) * f, t + (v1 - t) * f); redraw();
  }, { passive: false });
  var drag = null;
  canvas.addEventListener('mousedown', function (ev) { var p = pos(ev); drag = { x: p[0], a: v0, b: v1, moved: false }; });
  window.addEventListener('mouseup', function (ev) {
    if (drag && !drag.moved) { var p = pos(ev); sel = hit(p[0], p[1]); redraw(); }
    drag = null;
  });
  canvas.addEventListener('mousemove', function (ev) {
    var p = pos(ev);
    if (drag) {
      var dx = p[0] - drag.x;
      if (Math.abs(dx) > 3) drag.moved = true;
      if (drag.moved) { var dt = dx / (W - LW) * (drag.b - drag.a); setView(drag.a - dt, drag.b - dt); redraw(); }
      showTip('', ev); return;
    }
    if (p[0] < LW) { var ri = Math.floor((p[1] - AX) / ROW); showTip(ri >= 0 && ri < R.length ? rankLine(ri) : '', ev); return; }
    var h = hit(p[0], p[1]); showTip(h ? describe(h) : '', ev);
  });
  canvas.addEventListener('mouseleave', function (ev) { showTip('', ev); });
  function miniMove(ev) {
    var b = mini.getBoundingClientRect(), t = (ev.clientX - b.left - LW) / (W - LW) * span, w = v1 - v0;
    setView(t - w / 2, t + w / 2); redraw();
  }
  var miniDrag = false;
  mini.addEventListener('mousedown', function (ev) { miniDrag = true; miniMove(ev); });
  mini.addEventListener('mousemove', function (ev) { if (miniDrag) miniMove(ev); });
  window.addEventListener('mouseup', function () { miniDrag = false; });
  [boxMotifs, boxFindings].forEach(function (b) { if (b) b.addEventListener('change', redraw); });
  var reset = document.getElementById('tl-reset');
  if (reset) reset.addEventListener('click', function () { v0 = 0; v1 = span; redraw(); });
  window.addEventListener('resize', function () { size(); redraw(); });

  size(); draw();
  host.setAttribute('data-timeline-first-paint-ms', performance.now().toFixed(1));
  host.setAttribute('data-timeline-kernels', String(total));

  window.trainscopeTimeline = {
    zoom: function (a, b) { setView(a, b); draw(); return [v0, v1]; },
    range: function () { return [v0, v1]; },
    drawn: function () { return drawnRects; },
    selectAt: function (x, y) { sel = hit(x, y); draw(); return sel !== null; },
    selected: function () { return sel ? S[R[sel.r].nm[sel.i]] : null; },
    // The canvas point at the middle of kernel |i| of rank row |ri| in the window.
    kernelCenter: function (ri, i) {
      var r = R[ri]; return [(Math.max(LW, X(r.st[i])) + Math.min(W, X(r.st[i] + r.du[i]))) / 2, AX + ri * ROW + r.ln[i] * LH + LH / 2];
    },
    describe: function () { return sel ? describe(sel) : ''; }
  };
  if (location.hash === '#selftest') {
    var api = window.trainscopeTimeline, out = [], whole = api.range().slice(), drawnWhole = api.drawn();
    // The longest kernel of the last rank that no other kernel of its lane
    // overlaps at its middle: zoom to its middle half, then click its middle.
    var ri = R.length - 1, r = R[ri], order = [], best = 0, i, tries;
    for (i = 0; i < r.n; i++) order.push(i);
    order.sort(function (a, b) { return r.du[b] - r.du[a]; });
    for (tries = 0; tries < Math.min(order.length, 200); tries++) {
      var cand = order[tries], mid = r.st[cand] + r.du[cand] / 2, alone = true;
      for (i = 0; i < r.n && alone; i++) {
        if (i !== cand && r.ln[i] === r.ln[cand] && r.st[i] <= mid && r.st[i] + r.du[i] >= mid) alone = false;
      }
      if (alone) { best = cand; break; }
    }
    var got = api.zoom(r.st[best] + r.du[best] / 4, r.st[best] + r.du[best] * 3 / 4);
    var zoomed = got[0] > whole[0] && got[1] < whole[1];
    var c = api.kernelCenter(ri, best), picked = api.selectAt(c[0], c[1]);
    var right = picked && api.selected() === S[r.nm[best]];
    // A host launch of the same rank, when the trace links them: hover text names it.
    var launchOk = true;
    if (r.nl > 0) {
      var lb = 0;
      for (i = 1; i < r.nl; i++) if (r.ldu[i] > r.ldu[lb]) lb = i;
      api.zoom(r.lst[lb] + r.ldu[lb] / 4, r.lst[lb] + r.ldu[lb] * 3 / 4);
      var lx = (Math.max(LW, X(r.lst[lb])) + Math.min(W, X(r.lst[lb] + r.ldu[lb]))) / 2;
      launchOk = api.selectAt(lx, AX + ri * ROW + 3 * LH + LH / 2) && api.describe().indexOf('host launch') === 0;
      out.push('launch=' + (launchOk ? 'ok' : 'FAIL'));
      api.zoom(got[0], got[1]); api.selectAt(c[0], c[1]);
    }
    out.unshift(zoomed && right && launchOk ? 'ok' : 'FAIL');
    out.push('zoom=' + Math.round(whole[0]) + '..' + Math.round(whole[1]) + '->' + Math.round(got[0]) + '..' + Math.round(got[1]));
    out.push('drawn=' + drawnWhole + '->' + api.drawn());
    out.push('selected=' + (api.selected() || 'none'));
    // The cost of one redraw of the whole step (what a wheel step costs at most).
    var t0 = performance.now();
    for (var rep = 0; rep < 5; rep++) api.zoom(0, span);
    out.push('redraw_ms=' + ((performance.now() - t0) / 5).toFixed(1));
    api.zoom(got[0], got[1]);
    host.setAttribute('data-timeline-selftest', out.join(' '));
  }
})();
)js";

}  // namespace trainscope::report

// trainscope's interactive timeline (src/report/timeline_html.h, docs/timelines.md).
// Embedded into the HTML report at build time (src/report/CMakeLists.txt);
// checked by `node --check` (ctest timeline_js_syntax). Plain ES5-level
// JavaScript: decode the payload into typed arrays once, then draw only what
// the window shows, one rectangle per pixel column and lane where kernels
// are narrower than a pixel. Profile strings reach the page only through
// textContent and canvas text, never as markup.
(function () {
  var host = document.getElementById('ts-tl');
  if (!host) return;
  var data = JSON.parse(host.getAttribute('data-timeline'));
  var strings = data.strings, findings = data.findings;
  var color = {};
  data.family_colors.forEach(function (p) { color[p[0]] = p[1]; });
  var LANE_NAMES = ['Compute', 'Comm', 'Other', 'Host launch'], LANE_LETTERS = ['C', 'M', 'O', 'H'];
  // Every step the page carries, ascending; each decoded when first shown.
  var steps = [{ step: data.step, span: data.span, shared_axis: data.shared_axis, ranks: data.ranks, critical_path: data.critical_path }].concat(data.other_steps || []);
  steps.sort(function (a, b) { return a.step - b.step; });
  var shownIndex = 0, stepIndex = 0;
  steps.forEach(function (st, i) { if (st.step === data.step) shownIndex = i; });
  var ranks = [], maxLateness = 1, total = 0, laneCount = 3, current = null;
  function useStep(i) {
    current = steps[i]; stepIndex = i; ranks = current.ranks; maxLateness = 1; total = 0; laneCount = 3;
    ranks.forEach(function (r) { if (!r.start) decode(r); total += r.n; if (r.late > maxLateness) maxLateness = r.late; if (r.nl > 0) laneCount = 4; });
  }
  useStep(shownIndex);
  var shownTotal = total;

  function decode(r) {
    var s = atob(r.kernels), u = new Uint8Array(s.length), p = 0, n = r.n, i, t = 0;
    for (i = 0; i < s.length; i++) u[i] = s.charCodeAt(i);
    function readVarint() { var x = 0, m = 1, c; do { c = u[p++]; x += (c & 127) * m; m *= 128; } while (c & 128); return x; }
    r.start = new Float64Array(n); r.duration = new Float64Array(n); r.lane = new Uint8Array(n);
    r.opType = new Uint32Array(n); r.name = new Uint32Array(n); r.family = new Uint32Array(n); r.instanceOf = new Int32Array(n);
    var counts = [0, 0, 0];
    for (i = 0; i < n; i++) {
      t += readVarint(); r.start[i] = t + r.offset; r.duration[i] = readVarint(); r.lane[i] = Math.min(readVarint(), 2);
      r.opType[i] = readVarint(); r.name[i] = readVarint(); r.family[i] = readVarint(); r.instanceOf[i] = readVarint() - 1; counts[r.lane[i]]++;
    }
    r.laneKernels = []; r.laneMaxDuration = [0, 0, 0];
    for (var l = 0; l < 3; l++) r.laneKernels.push(new Uint32Array(counts[l]));
    var fill = [0, 0, 0];
    for (i = 0; i < n; i++) {
      var ln = r.lane[i]; r.laneKernels[ln][fill[ln]++] = i; if (r.duration[i] > r.laneMaxDuration[ln]) r.laneMaxDuration[ln] = r.duration[i];
    }
    // Host launches, by start: the first start zigzag, then deltas.
    s = atob(r.launches); u = new Uint8Array(s.length); p = 0;
    for (i = 0; i < s.length; i++) u[i] = s.charCodeAt(i);
    r.launchStart = new Float64Array(r.nl); r.launchKernel = new Uint32Array(r.nl); r.launchDuration = new Float64Array(r.nl); r.launchMaxDuration = 0;
    for (i = 0; i < r.nl; i++) {
      var z = readVarint();
      t = i === 0 ? (z % 2 ? -(z + 1) / 2 : z / 2) : t + z;
      r.launchStart[i] = t + r.offset; r.launchKernel[i] = Math.min(readVarint(), n - 1); r.launchDuration[i] = readVarint();
      if (r.launchDuration[i] > r.launchMaxDuration) r.launchMaxDuration = r.launchDuration[i];
    }
  }
  function lowerBoundOfSorted(st, t) {
    var lo = 0, hi = st.length;
    while (lo < hi) { var mid = (lo + hi) >> 1; if (st[mid] < t) lo = mid + 1; else hi = mid; }
    return lo;
  }

  var labelWidth = 132, axisHeight = 18, laneHeight, rowGap, rowHeight, miniHeight = 48, height;
  function layout() {
    laneHeight = ranks.length <= 8 ? 14 : ranks.length <= 24 ? 7 : 4; rowGap = ranks.length <= 24 ? 4 : 2;
    rowHeight = laneCount * laneHeight + rowGap; height = axisHeight + ranks.length * rowHeight + 2;
  }
  layout();
  var canvas = document.createElement('canvas'), miniCanvas = document.createElement('canvas');
  var tooltip = document.createElement('div');
  canvas.className = 'tl-main'; miniCanvas.className = 'tl-mini'; tooltip.className = 'tl-tip';
  host.appendChild(canvas); host.appendChild(miniCanvas); document.body.appendChild(tooltip);
  var pixelRatio = window.devicePixelRatio || 1, width = 0;
  var ctx = canvas.getContext('2d'), miniCtx = miniCanvas.getContext('2d');
  var span = Math.max(current.span, 1), viewStart = 0, viewEnd = span, selection = null, drawnRects = 0, miniImage = null;
  var boxMotifs = document.getElementById('tl-motifs'), boxFindings = document.getElementById('tl-findings');
  var boxPath = document.getElementById('tl-path');
  var rangeLabel = document.getElementById('tl-range'), stepBox = document.getElementById('tl-step');
  var searchBox = document.getElementById('tl-search'), countLabel = document.getElementById('tl-count');
  var legend = document.getElementById('tl-legend');
  var clockNote = document.createElement('p'); clockNote.className = 'muted';
  clockNote.textContent = 'The ranks\' step starts lie too far apart for one clock: each rank is drawn from its own step start.';
  host.appendChild(clockNote);
  function showClockNote() { clockNote.style.display = current.shared_axis ? 'none' : 'block'; }
  showClockNote();

  function size() {
    width = Math.max(400, host.clientWidth || 1000);
    canvas.width = width * pixelRatio; canvas.height = height * pixelRatio; canvas.style.height = height + 'px';
    miniCanvas.width = width * pixelRatio; miniCanvas.height = miniHeight * pixelRatio; miniCanvas.style.height = miniHeight + 'px';
    ctx.setTransform(pixelRatio, 0, 0, pixelRatio, 0, 0); miniCtx.setTransform(pixelRatio, 0, 0, pixelRatio, 0, 0);
    miniImage = null;
  }
  function xAt(t) { return labelWidth + (t - viewStart) / (viewEnd - viewStart) * (width - labelWidth); }
  function timeAt(x) { return viewStart + (x - labelWidth) / (width - labelWidth) * (viewEnd - viewStart); }
  function formatTime(ns) {
    var a = Math.abs(ns);
    if (a < 1e3) return ns.toFixed(0) + ' ns';
    if (a < 1e6) return (ns / 1e3).toFixed(a < 1e4 ? 2 : 1) + ' \u00b5s';
    if (a < 1e9) return (ns / 1e6).toFixed(a < 1e7 ? 3 : 2) + ' ms';
    return (ns / 1e9).toFixed(3) + ' s';
  }
  // Round ticks over [lo, hi] ns: multiples of the smallest 1-2-5 step that
  // gives at most |most| of them, labelled in one unit (that of the largest
  // value shown) with the decimals the step needs (src/report/svg.h, TimeAxisTicks).
  function ticks(lo, hi, most) {
    var out = { values: [], labels: [] }, range = hi - lo, step = 0, k;
    if (!(range > 0)) { out.values.push(lo); } else {
      var magnitude = Math.pow(10, Math.floor(Math.log10(range / most)) - 1);
      for (var rung = 0; ; rung++) {
        step = magnitude * [1, 2, 5][rung % 3]; if (rung % 3 === 2) magnitude *= 10;
        var first = Math.ceil(lo / step - 1e-9), last = Math.floor(hi / step + 1e-9);
        if (last - first + 1 <= most) { for (k = first; k <= last; k++) out.values.push(k * step); break; }
      }
    }
    var largest = Math.max(Math.abs(out.values[0]), Math.abs(out.values[out.values.length - 1]));
    var unit = largest >= 1e9 ? ['s', 1e9] : largest >= 1e6 ? ['ms', 1e6] : largest >= 1e3 || largest === 0 ? ['\u00b5s', 1e3] : ['ns', 1];
    var inUnit = step / unit[1], decimals = inUnit > 0 ? Math.max(0, Math.ceil(-Math.log10(inUnit) - 1e-9)) : 0;
    out.values.forEach(function (v) {
      var shown = v / unit[1]; if (Math.abs(shown) < inUnit * 1e-6) shown = 0;
      out.labels.push(shown.toFixed(decimals) + ' ' + unit[0]);
    });
    return out;
  }
  function lowerBoundByStart(idx, st, t) {
    var lo = 0, hi = idx.length;
    while (lo < hi) { var mid = (lo + hi) >> 1; if (st[idx[mid]] < t) lo = mid + 1; else hi = mid; }
    return lo;
  }
  function lateColor(late) {
    var f = Math.min(1, Math.max(0, late / maxLateness)), g = Math.round(90 * (1 - f));
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

  // Search: kernels whose name or op type holds the text (any case), on
  // every rank of the step. query '' = no search.
  var query = '', stringMatches = null, matchCount = 0, matchRanks = 0;
  function matches(r, i) { return stringMatches[r.name[i]] || stringMatches[r.opType[i]]; }
  function runSearch() {
    query = searchBox ? searchBox.value.trim().toLowerCase() : '';
    stringMatches = null; matchCount = 0; matchRanks = 0;
    if (query) {
      stringMatches = new Uint8Array(strings.length);
      for (var s = 0; s < strings.length; s++) stringMatches[s] = strings[s].toLowerCase().indexOf(query) >= 0 ? 1 : 0;
      ranks.forEach(function (r) {
        var n = 0;
        for (var i = 0; i < r.n; i++) if (matches(r, i)) n++;
        matchCount += n; if (n > 0) matchRanks++;
      });
    }
    if (countLabel) {
      countLabel.textContent = query ? matchCount + ' kernel' + (matchCount === 1 ? '' : 's') + ' on ' + matchRanks + ' of ' + ranks.length +
                                       ' rank' + (ranks.length === 1 ? '' : 's') + ' match' + (matchCount ? ' (Enter: next)' : '') : '';
    }
  }
  // The next matching kernel after the selection (or the window's start), over every rank; wraps.
  function nextMatch() {
    if (!stringMatches || matchCount === 0) return null;
    var after = selection ? ranks[selection.r].start[selection.i] : viewStart - 1, best = null, first = null;
    ranks.forEach(function (r, ri) {
      for (var i = 0; i < r.n; i++) {
        if (!matches(r, i)) continue;
        var s = r.start[i];
        if (!first || s < ranks[first.r].start[first.i]) first = { r: ri, i: i };
        if ((s > after || (s === after && selection && ri > selection.r)) && (!best || s < ranks[best.r].start[best.i])) best = { r: ri, i: i };
      }
    });
    return best || first;
  }

  function drawAxis() {
    ctx.fillStyle = '#fff'; ctx.fillRect(0, 0, width, axisHeight);
    var tk = ticks(viewStart, viewEnd, Math.max(2, Math.floor((width - labelWidth) / 90)));
    ctx.fillStyle = '#555'; ctx.font = '10px sans-serif'; ctx.textAlign = 'center';
    for (var k = 0; k < tk.values.length; k++) {
      var x = xAt(tk.values[k]); ctx.fillRect(x, axisHeight - 4, 1, 4);
      var half = ctx.measureText(tk.labels[k]).width / 2;
      ctx.fillText(tk.labels[k], Math.min(Math.max(x, labelWidth + half), width - half - 1), axisHeight - 6);
    }
    ctx.textAlign = 'right'; ctx.fillText(current.step >= 0 ? 'step ' + current.step : 'capture', labelWidth - 6, axisHeight - 6);
  }
  // The kernels of lane |l| of rank |r| in the window; |mode| 0: all in
  // their family's colour, 1: those the search misses, grey, 2: those it finds.
  function drawLane(r, l, y, mode) {
    var idx = r.laneKernels[l], k = lowerBoundByStart(idx, r.start, viewStart - r.laneMaxDuration[l]), last = -1, fill = null, x0, x1, px;
    for (; k < idx.length; k++) {
      var i = idx[k], s = r.start[i];
      if (s > viewEnd) break;
      if (mode && (matches(r, i) ? mode === 1 : mode === 2)) continue;
      x0 = xAt(s); x1 = xAt(s + r.duration[i]);
      if (x1 < labelWidth) continue;
      x0 = Math.max(x0, labelWidth); px = Math.floor(x0);
      if (x1 - x0 < 1) { if (px <= last) continue; last = px; x1 = x0 + 1; }
      var c = mode === 1 ? '#d8d8d8' : color[r.family[i]] || '#999';
      if (c !== fill) { ctx.fillStyle = c; fill = c; }
      ctx.fillRect(x0, y, x1 - x0, laneHeight - 1); drawnRects++;
      if (mode === 2) { ctx.fillStyle = '#000'; ctx.fillRect(x0, y, Math.max(x1 - x0, 2), 2); fill = null; }
      if (x1 - x0 > 60 && laneHeight >= 12) {
        ctx.save(); ctx.beginPath(); ctx.rect(x0, y, x1 - x0, laneHeight); ctx.clip();
        ctx.fillStyle = mode === 1 ? '#888' : '#000'; ctx.textAlign = 'left'; ctx.font = '10px sans-serif';
        ctx.fillText(strings[r.opType[i]], x0 + 2, y + laneHeight - 4); ctx.restore(); fill = null;
      }
    }
  }
  function drawRank(r, ri) {
    var y0 = axisHeight + ri * rowHeight, l, x0, x1, px, last, k;
    if (ri % 2) { ctx.fillStyle = '#f3f5f8'; ctx.fillRect(0, y0 - rowGap / 2, width, rowHeight); }  // rows apart
    // Labels: the rank at the left, each lane's name (or letter) at the right of the label column.
    ctx.fillStyle = lateColor(r.late); ctx.font = (laneHeight >= 7 ? 11 : 9) + 'px sans-serif'; ctx.textAlign = 'left';
    ctx.fillText('rank ' + r.rank + (r.straggler ? ' \u25b2' : ''), 4, y0 + Math.min(rowHeight - rowGap, 11));
    if (laneHeight >= 7) {
      ctx.fillStyle = '#666'; ctx.textAlign = 'right'; ctx.font = (laneHeight >= 12 ? 10 : 7) + 'px sans-serif';
      for (l = 0; l < laneCount; l++) {
        ctx.fillText(laneHeight >= 12 ? LANE_NAMES[l] : LANE_LETTERS[l], labelWidth - 4, y0 + l * laneHeight + laneHeight - (laneHeight >= 12 ? 3 : 1));
      }
    }
    if (r.wait > 0) {
      x0 = Math.max(labelWidth, xAt(r.offset)); x1 = Math.min(width, xAt(r.offset + r.wait));
      if (x1 > x0) { ctx.fillStyle = hatchPattern(); ctx.fillRect(x0, y0, x1 - x0, laneHeight - 1); }
    }
    for (l = 0; l < 3; l++) {
      if (stringMatches) { drawLane(r, l, y0 + l * laneHeight, 1); drawLane(r, l, y0 + l * laneHeight, 2); } else drawLane(r, l, y0 + l * laneHeight, 0);
    }
    if (laneCount > 3 && r.nl > 0) {  // the host-launch lane
      var yl = y0 + 3 * laneHeight;
      last = -1; ctx.fillStyle = '#777';
      for (k = lowerBoundOfSorted(r.launchStart, viewStart - r.launchMaxDuration); k < r.nl && r.launchStart[k] <= viewEnd; k++) {
        x0 = xAt(r.launchStart[k]); x1 = xAt(r.launchStart[k] + r.launchDuration[k]);
        if (x1 < labelWidth) continue;
        x0 = Math.max(x0, labelWidth); px = Math.floor(x0);
        if (x1 - x0 < 1) { if (px <= last) continue; last = px; x1 = x0 + 1; }
        ctx.fillRect(x0, yl, x1 - x0, laneHeight - 1); drawnRects++;
      }
    }
    var showMotifs = boxMotifs && boxMotifs.checked, showFindings = !boxFindings || boxFindings.checked;
    if (!showMotifs && !showFindings) return;
    last = -1;
    var runs = [];  // finding overlays in the window: [x0, x1, finding]
    for (var j = 0; j + 2 < r.instances.length; j += 3) {
      var m = r.instances[j], a = r.instances[j + 1] + r.offset, b = r.instances[j + 2] + r.offset;
      if (m < 0 || b < viewStart || a > viewEnd) continue;
      x0 = Math.max(labelWidth, xAt(a)); x1 = Math.max(x0 + 1, Math.min(width, xAt(b)));
      if (x1 - x0 < 2) { px = Math.floor(x0); if (px <= last) continue; last = px; }
      if (showMotifs) { ctx.fillStyle = motifColor(m); ctx.globalAlpha = 0.35; ctx.fillRect(x0, y0, x1 - x0, 2); ctx.globalAlpha = 1; }
      if (showFindings && r.motifs[m] && r.motifs[m].finding >= 0) {
        // A finding's instance: a red line under the compute lane, outlined when wide enough.
        ctx.fillStyle = '#d00'; ctx.fillRect(x0, y0 + laneHeight - 1, x1 - x0, laneHeight >= 7 ? 2 : 1);
        if (x1 - x0 >= 8) { ctx.strokeStyle = '#d00'; ctx.lineWidth = 1; ctx.strokeRect(x0 + 0.5, y0 + 0.5, x1 - x0 - 1, laneHeight - 2); }
        runs.push([x0, x1, r.motifs[m].finding]);
      }
    }
    // Each finding's overlays named: neighbouring instances of one finding
    // (under 4 px apart) form one run, labelled with the finding's id where it fits.
    if (!runs.length || laneHeight < 7) return;
    runs.sort(function (p, q) { return p[0] - q[0]; });
    var merged = [];
    runs.forEach(function (run) {
      var prev = merged[merged.length - 1];
      if (prev && prev[2] === run[2] && run[0] - prev[1] < 4) prev[1] = Math.max(prev[1], run[1]); else merged.push(run.slice());
    });
    ctx.font = (laneHeight >= 12 ? 10 : 8) + 'px sans-serif'; ctx.textAlign = 'left';
    merged.forEach(function (run) {
      var f = findings[run[2]], label = f ? f.id : '', w = ctx.measureText(label).width;
      if (!label || run[1] - run[0] < w + 6) return;
      ctx.fillStyle = 'rgba(255,255,255,0.85)'; ctx.fillRect(run[0] + 2, y0 + 1, w + 2, laneHeight - 3);
      ctx.fillStyle = '#b00'; ctx.fillText(label, run[0] + 3, y0 + laneHeight - (laneHeight >= 12 ? 4 : 2));
    });
  }
  // The cross-rank critical path (docs/clusters.md, section 3c) over the rows: an orange line along
  // each rank's stretch of it (dashed: a late start), joined where it passes from rank to rank.
  var pathDrawn = 0;
  function drawPath() {
    var path = current.critical_path, drawn = 0;
    if (!path || !path.length || (boxPath && !boxPath.checked)) return 0;
    ctx.save(); ctx.strokeStyle = 'rgba(230,110,0,0.95)'; ctx.lineWidth = laneHeight >= 7 ? 3 : 2;
    var previousY = null;
    path.forEach(function (seg) {
      var y = axisHeight + seg[0] * rowHeight + (rowHeight - rowGap) / 2;
      var x0 = Math.min(width, Math.max(labelWidth, xAt(seg[1]))), x1 = Math.min(width, Math.max(labelWidth, xAt(seg[2])));
      ctx.setLineDash(seg[3] === 2 ? [4, 3] : []);
      ctx.beginPath();
      if (previousY !== null && previousY !== y) { ctx.moveTo(x0, previousY); ctx.lineTo(x0, y); }
      ctx.moveTo(x0, y); ctx.lineTo(Math.max(x1, x0 + 1), y); ctx.stroke();
      previousY = y; drawn++;
    });
    ctx.restore();
    return drawn;
  }
  function draw() {
    drawnRects = 0;
    ctx.clearRect(0, 0, width, height);
    for (var ri = 0; ri < ranks.length; ri++) drawRank(ranks[ri], ri);
    pathDrawn = drawPath();
    drawAxis();
    if (selection) {
      var r = ranks[selection.r], x0 = Math.max(labelWidth, xAt(r.start[selection.i])), x1 = Math.max(x0 + 2, xAt(r.start[selection.i] + r.duration[selection.i]));
      ctx.strokeStyle = '#000'; ctx.lineWidth = 2;
      ctx.strokeRect(x0 - 1, axisHeight + selection.r * rowHeight + r.lane[selection.i] * laneHeight - 1, x1 - x0 + 2, laneHeight + 1);
    }
    drawMini();
    if (rangeLabel) rangeLabel.textContent = 'window ' + (viewStart === 0 ? '0' : formatTime(viewStart)) + ' \u2013 ' + formatTime(viewEnd) + ' (' + formatTime(viewEnd - viewStart) + ')';
  }
  function drawMini() {
    if (!miniImage) {
      // The whole step once: each rank a band, the compute lane's busy pixels dark.
      miniCtx.clearRect(0, 0, width, miniHeight); miniCtx.fillStyle = '#f4f4f4'; miniCtx.fillRect(labelWidth, 0, width - labelWidth, miniHeight);
      var band = miniHeight / ranks.length;
      ranks.forEach(function (r, ri) {
        var last = -1;
        for (var i = 0; i < r.n; i++) {
          var px = Math.floor(labelWidth + r.start[i] / span * (width - labelWidth)), w = Math.max(1, r.duration[i] / span * (width - labelWidth));
          if (px + w <= last) continue; last = px + w;
          miniCtx.fillStyle = color[r.family[i]] || '#999'; miniCtx.fillRect(px, ri * band, w, Math.max(1, band));
        }
      });
      miniImage = miniCtx.getImageData(0, 0, miniCanvas.width, miniCanvas.height);
    } else {
      miniCtx.putImageData(miniImage, 0, 0);
    }
    var a = labelWidth + viewStart / span * (width - labelWidth), b = labelWidth + viewEnd / span * (width - labelWidth);
    miniCtx.strokeStyle = '#000'; miniCtx.lineWidth = 1.5; miniCtx.strokeRect(a, 1, Math.max(2, b - a), miniHeight - 2);
    miniCtx.fillStyle = '#555'; miniCtx.font = '10px sans-serif'; miniCtx.textAlign = 'right';
    miniCtx.fillText('whole step', labelWidth - 6, 14);
  }
  function hitTest(x, y) {
    var ri = Math.floor((y - axisHeight) / rowHeight);
    if (ri < 0 || ri >= ranks.length || x < labelWidth) return null;
    var l = Math.floor((y - axisHeight - ri * rowHeight) / laneHeight);
    if (l < 0 || l >= laneCount) return null;
    var r = ranks[ri], t = timeAt(x), tol = 2 * (viewEnd - viewStart) / (width - labelWidth), best = -1, bestD = 1e300, e, d, s, k;
    if (l === 3) {
      for (k = lowerBoundOfSorted(r.launchStart, t - r.launchMaxDuration - tol); k < r.nl && r.launchStart[k] <= t + tol; k++) {
        s = r.launchStart[k]; e = s + r.launchDuration[k]; d = t < s ? s - t : t > e ? t - e : 0;
        if (d <= tol && d < bestD) { best = k; bestD = d; }
      }
      return best < 0 ? null : { r: ri, i: r.launchKernel[best], launch: best };
    }
    var idx = r.laneKernels[l];
    for (k = lowerBoundByStart(idx, r.start, t - r.laneMaxDuration[l] - tol); k < idx.length; k++) {
      var i = idx[k];
      s = r.start[i];
      if (s > t + tol) break;
      e = s + r.duration[i]; d = t < s ? s - t : t > e ? t - e : 0;
      if (d <= tol && (d < bestD || (d === bestD && r.duration[i] < r.duration[best]))) { best = i; bestD = d; }
    }
    return best < 0 ? null : { r: ri, i: best };
  }
  function describe(h) {
    var r = ranks[h.r], i = h.i, lines = [strings[r.name[i]]];
    if (h.launch !== undefined) {
      var ls = r.launchStart[h.launch];
      lines.unshift('host launch (' + formatTime(r.launchDuration[h.launch]) + ') of the kernel below; the kernel starts ' +
                    formatTime(r.start[i] - ls) + ' after the launch starts');
    }
    lines.push('rank ' + r.rank + ', ' + LANE_NAMES[r.lane[i]] + ' lane, family ' + strings[r.family[i]]);
    lines.push('duration ' + formatTime(r.duration[i]) + ', starts +' + formatTime(r.start[i] - r.offset) + ' into the rank\'s step');
    var ins = r.instanceOf[i];
    if (ins >= 0 && 3 * ins < r.instances.length) {
      var m = r.instances[3 * ins], mo = r.motifs[m];
      if (mo) {
        lines.push('motif: ' + strings[mo.label]);
        if (mo.finding >= 0 && findings[mo.finding]) lines.push('finding: ' + findings[mo.finding].id + ' \u2013 ' + findings[mo.finding].title);
      }
    }
    return lines.join('\n');
  }
  function rankLine(ri, y) {
    var r = ranks[ri], s = 'rank ' + r.rank + (r.straggler ? ' (straggler)' : '') + ': step starts +' + formatTime(r.late) + ' after the earliest rank';
    if (r.wait > 0) s += '; compute idle ' + formatTime(r.wait) + ' at step start' + (r.wait_for >= 0 ? ' while ' + strings[r.wait_for] + ' runs' : '');
    if (r.dropped > 0) s += '; ' + r.dropped + ' shortest kernels not in the page';
    var l = Math.floor((y - axisHeight - ri * rowHeight) / laneHeight);
    if (l >= 0 && l < laneCount) s += '\n' + LANE_NAMES[l] + ' lane';
    return s;
  }
  function showTip(text, ev) {
    tooltip.textContent = text; tooltip.style.display = text ? 'block' : 'none';
    tooltip.style.left = Math.min(ev.clientX + 14, window.innerWidth - 420) + 'px'; tooltip.style.top = (ev.clientY + 14) + 'px';
  }
  function setView(a, b) {
    var w = Math.min(Math.max(b - a, 50), span * 1.2);
    var c = (a + b) / 2; a = c - w / 2; b = c + w / 2;
    if (a < -span * 0.1) { b += -span * 0.1 - a; a = -span * 0.1; }
    if (b > span * 1.1) { a -= b - span * 1.1; b = span * 1.1; }
    viewStart = a; viewEnd = b;
  }
  var pending = false;
  function redraw() { if (!pending) { pending = true; requestAnimationFrame(function () { pending = false; draw(); }); } }
  function eventPoint(ev) { var b = canvas.getBoundingClientRect(); return [ev.clientX - b.left, ev.clientY - b.top]; }
  canvas.addEventListener('wheel', function (ev) {
    ev.preventDefault();
    var p = eventPoint(ev), t = timeAt(Math.max(labelWidth, p[0])), f = Math.exp(ev.deltaY * 0.002);
    setView(t - (t - viewStart) * f, t + (viewEnd - t) * f); redraw();
  }, { passive: false });
  var drag = null;
  canvas.addEventListener('mousedown', function (ev) {
    var p = eventPoint(ev); drag = { x: p[0], a: viewStart, b: viewEnd, moved: false };
    if (host.focus) host.focus({ preventScroll: true });  // the keys act on the focused timeline
  });
  window.addEventListener('mouseup', function (ev) {
    if (drag && !drag.moved) { var p = eventPoint(ev); selection = hitTest(p[0], p[1]); redraw(); }
    drag = null;
  });
  canvas.addEventListener('mousemove', function (ev) {
    var p = eventPoint(ev);
    if (drag) {
      var dx = p[0] - drag.x;
      if (Math.abs(dx) > 3) drag.moved = true;
      if (drag.moved) { var dt = dx / (width - labelWidth) * (drag.b - drag.a); setView(drag.a - dt, drag.b - dt); redraw(); }
      showTip('', ev); return;
    }
    if (p[0] < labelWidth) { var ri = Math.floor((p[1] - axisHeight) / rowHeight); showTip(ri >= 0 && ri < ranks.length ? rankLine(ri, p[1]) : '', ev); return; }
    var h = hitTest(p[0], p[1]); showTip(h ? describe(h) : '', ev);
  });
  canvas.addEventListener('mouseleave', function (ev) { showTip('', ev); });
  function miniMove(ev) {
    var b = miniCanvas.getBoundingClientRect(), t = (ev.clientX - b.left - labelWidth) / (width - labelWidth) * span, w = viewEnd - viewStart;
    setView(t - w / 2, t + w / 2); redraw();
  }
  var miniDrag = false;
  miniCanvas.addEventListener('mousedown', function (ev) { miniDrag = true; miniMove(ev); });
  miniCanvas.addEventListener('mousemove', function (ev) { if (miniDrag) miniMove(ev); });
  window.addEventListener('mouseup', function () { miniDrag = false; });
  [boxMotifs, boxFindings, boxPath].forEach(function (b) { if (b) b.addEventListener('change', redraw); });
  function wholeStep() { viewStart = 0; viewEnd = span; }
  var reset = document.getElementById('tl-reset');
  if (reset) reset.addEventListener('click', function () { wholeStep(); redraw(); });
  window.addEventListener('resize', function () { size(); redraw(); });

  // Keyboard, while the timeline has focus: + - (w s) zoom around the
  // window's middle, a d and the arrows pan by a fifth, 0 the whole step,
  // [ ] the previous and next step.
  function zoomBy(f) { var c = (viewStart + viewEnd) / 2, w = (viewEnd - viewStart) * f; setView(c - w / 2, c + w / 2); }
  function panBy(f) { var d = (viewEnd - viewStart) * f; setView(viewStart + d, viewEnd + d); }
  function key(k) {
    if (k === '+' || k === '=' || k === 'w' || k === 'W') zoomBy(0.5);
    else if (k === '-' || k === '_' || k === 's' || k === 'S') zoomBy(2);
    else if (k === 'a' || k === 'A' || k === 'ArrowLeft') panBy(-0.2);
    else if (k === 'd' || k === 'D' || k === 'ArrowRight') panBy(0.2);
    else if (k === '0') wholeStep();
    else if (k === '[' && stepIndex > 0) showStep(stepIndex - 1);
    else if (k === ']' && stepIndex + 1 < steps.length) showStep(stepIndex + 1);
    else return false;
    return true;
  }
  host.addEventListener('keydown', function (ev) {
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    if (key(ev.key)) { ev.preventDefault(); redraw(); }
  });

  function showStep(i) {
    useStep(i); layout(); span = Math.max(current.span, 1); size(); wholeStep(); selection = null; runSearch(); showClockNote();
    if (stepBox) stepBox.value = String(i);
  }
  if (stepBox) {
    steps.forEach(function (st, i) {
      var o = document.createElement('option'); o.value = String(i);
      o.textContent = (st.step >= 0 ? 'step ' + st.step : 'the capture') + (i === shownIndex ? ' (analysed)' : '');
      stepBox.appendChild(o);
    });
    stepBox.value = String(shownIndex); stepBox.disabled = steps.length < 2;
    stepBox.addEventListener('change', function () { showStep(Number(stepBox.value)); draw(); });
  }
  if (searchBox) {
    searchBox.addEventListener('input', function () { runSearch(); redraw(); });
    searchBox.addEventListener('keydown', function (ev) {
      if (ev.key !== 'Enter') return;
      ev.preventDefault();
      var h = nextMatch();
      if (!h) return;
      var r = ranks[h.r], s = r.start[h.i], w = Math.max(viewEnd - viewStart > span * 0.5 ? r.duration[h.i] * 40 : viewEnd - viewStart, r.duration[h.i] * 4);
      selection = h; setView(s + r.duration[h.i] / 2 - w / 2, s + r.duration[h.i] / 2 + w / 2); draw();
    });
  }
  // The legend: each family's colour (those the page's steps hold), the lanes and the overlays.
  if (legend) {
    var families = data.family_colors.slice().sort(function (p, q) { return strings[p[0]] < strings[q[0]] ? -1 : 1; });
    families.forEach(function (p) {
      var item = document.createElement('span'), swatch = document.createElement('span');
      item.style.marginRight = '12px'; item.style.whiteSpace = 'nowrap';
      swatch.style.display = 'inline-block'; swatch.style.width = '10px'; swatch.style.height = '10px';
      swatch.style.marginRight = '4px'; swatch.style.verticalAlign = 'middle'; swatch.style.background = p[1];
      item.appendChild(swatch); item.appendChild(document.createTextNode(strings[p[0]])); legend.appendChild(item);
    });
    var notes = document.createElement('div');
    notes.textContent = 'Lanes of each rank, top to bottom: Compute (C), Comm (M), Other (O), Host launch (H, where the trace links launches). ' +
      'Red outline with an id: a finding\u2019s motif instances; hatched: compute idle at step start; \u25b2: straggler; ' +
      'orange line: the cross-rank critical path (dashed: a late start; it changes rank where a collective waited for the last to arrive); ' +
      'search: matches in colour with a black top edge, the rest grey. Keys (click the timeline first): + - or w s zoom, ' +
      'a d or \u2190 \u2192 pan, 0 whole step, [ ] previous and next step.';
    legend.appendChild(notes);
  }

  size(); runSearch(); draw();
  host.setAttribute('data-timeline-first-paint-ms', performance.now().toFixed(1));
  host.setAttribute('data-timeline-kernels', String(shownTotal));
  host.setAttribute('data-timeline-path-segments', String(pathDrawn));  // of the shown step
  host.setAttribute('data-timeline-steps', String(steps.length));

  window.trainscopeTimeline = {
    zoom: function (a, b) { setView(a, b); draw(); return [viewStart, viewEnd]; },
    range: function () { return [viewStart, viewEnd]; },
    drawn: function () { return drawnRects; },
    selectAt: function (x, y) { selection = hitTest(x, y); draw(); return selection !== null; },
    selected: function () { return selection ? strings[ranks[selection.r].name[selection.i]] : null; },
    // The canvas point at the middle of kernel |i| of rank row |ri| in the window.
    kernelCenter: function (ri, i) {
      var r = ranks[ri]; return [(Math.max(labelWidth, xAt(r.start[i])) + Math.min(width, xAt(r.start[i] + r.duration[i]))) / 2, axisHeight + ri * rowHeight + r.lane[i] * laneHeight + laneHeight / 2];
    },
    describe: function () { return selection ? describe(selection) : ''; },
    // The search box's text set and searched: [kernels, ranks] matching.
    search: function (text) { if (searchBox) searchBox.value = text; runSearch(); draw(); return [matchCount, matchRanks]; },
    // Step |i| of the selector (ascending): its step number and kernel count.
    step: function (i) { showStep(i); draw(); return [current.step, total]; },
    steps: function () { return steps.map(function (st) { return st.step; }); },
    key: function (k) { var done = key(k); draw(); return done; },
    ticks: ticks
  };
  if (location.hash === '#selftest') {
    var api = window.trainscopeTimeline, out = [], whole = api.range().slice(), drawnWhole = api.drawn();
    // The longest kernel of the last rank that no other kernel of its lane
    // overlaps at its middle: zoom to its middle half, then click its middle.
    var ri = ranks.length - 1, r = ranks[ri], order = [], best = 0, i, tries;
    for (i = 0; i < r.n; i++) order.push(i);
    order.sort(function (a, b) { return r.duration[b] - r.duration[a]; });
    for (tries = 0; tries < Math.min(order.length, 200); tries++) {
      var cand = order[tries], mid = r.start[cand] + r.duration[cand] / 2, alone = true;
      for (i = 0; i < r.n && alone; i++) {
        if (i !== cand && r.lane[i] === r.lane[cand] && r.start[i] <= mid && r.start[i] + r.duration[i] >= mid) alone = false;
      }
      if (alone) { best = cand; break; }
    }
    var got = api.zoom(r.start[best] + r.duration[best] / 4, r.start[best] + r.duration[best] * 3 / 4);
    var zoomed = got[0] > whole[0] && got[1] < whole[1];
    var c = api.kernelCenter(ri, best), picked = api.selectAt(c[0], c[1]);
    var right = picked && api.selected() === strings[r.name[best]];
    // A host launch of the same rank, when the trace links them: hover text names it.
    var launchOk = true;
    if (r.nl > 0) {
      var lb = 0;
      for (i = 1; i < r.nl; i++) if (r.launchDuration[i] > r.launchDuration[lb]) lb = i;
      api.zoom(r.launchStart[lb] + r.launchDuration[lb] / 4, r.launchStart[lb] + r.launchDuration[lb] * 3 / 4);
      var lx = (Math.max(labelWidth, xAt(r.launchStart[lb])) + Math.min(width, xAt(r.launchStart[lb] + r.launchDuration[lb]))) / 2;
      launchOk = api.selectAt(lx, axisHeight + ri * rowHeight + 3 * laneHeight + laneHeight / 2) && api.describe().indexOf('host launch') === 0;
      out.push('launch=' + (launchOk ? 'ok' : 'FAIL'));
      api.zoom(got[0], got[1]); api.selectAt(c[0], c[1]);
    }
    // Search: the selected kernel's name finds at least that kernel, on its
    // rank; a text no name holds finds nothing; clearing it ends the search.
    var name = strings[r.name[best]], found = api.search(name), none = api.search('\u0000no such kernel\u0000');
    var searchOk = found[0] >= 1 && found[1] >= 1 && none[0] === 0 && api.search('')[0] === 0;
    out.push('search=' + (searchOk ? found[0] + '/' + found[1] : 'FAIL'));
    // Keys: + narrows the window to half, d moves it right, 0 is the whole step.
    api.key('0'); var w0 = api.range(); api.key('+'); var w1 = api.range(); api.key('d'); var w2 = api.range(); api.key('0'); var w3 = api.range();
    var keysOk = Math.abs((w1[1] - w1[0]) - (w0[1] - w0[0]) / 2) < 1 && w2[0] > w1[0] && w3[0] === 0 && w3[1] === span;
    out.push('keys=' + (keysOk ? 'ok' : 'FAIL'));
    api.zoom(got[0], got[1]); api.selectAt(c[0], c[1]);
    out.unshift(zoomed && right && launchOk && searchOk && keysOk ? 'ok' : 'FAIL');
    out.push('zoom=' + Math.round(whole[0]) + '..' + Math.round(whole[1]) + '->' + Math.round(got[0]) + '..' + Math.round(got[1]));
    out.push('drawn=' + drawnWhole + '->' + api.drawn());
    out.push('selected=' + (api.selected() || 'none'));
    // The cost of one redraw of the whole step (what a wheel step costs at most).
    var t0 = performance.now();
    for (var rep = 0; rep < 5; rep++) api.zoom(0, span);
    out.push('redraw_ms=' + ((performance.now() - t0) / 5).toFixed(1));
    api.zoom(got[0], got[1]);
    // Every other step of the selector decodes and draws (kernel counts), then back.
    var stepCounts = [];
    for (i = 0; i < steps.length; i++) if (i !== shownIndex) stepCounts.push(api.step(i).join(':'));
    if (stepCounts.length) { api.step(shownIndex); api.zoom(got[0], got[1]); api.selectAt(c[0], c[1]); }
    out.push('steps=' + steps.length + (stepCounts.length ? '(' + stepCounts.join(',') + ')' : ''));
    host.setAttribute('data-timeline-selftest', out.join(' '));
  }
})();

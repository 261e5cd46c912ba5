// The style sheet every HTML page of trainscope shares (analyze, compare).
#pragma once

#include "report/html_writer.h"

namespace trainscope::report {

inline constexpr HtmlLiteral kReportStyle = R"css(
#ts-tl{position:relative;margin:6px 0}#ts-tl canvas{display:block;width:100%;cursor:crosshair}
#ts-tl canvas.tl-mini{margin-top:6px;border-top:1px solid #ddd;cursor:pointer}
.tl-tip{position:fixed;display:none;z-index:10;max-width:400px;white-space:pre-wrap;word-break:break-all;
background:#fffff0;border:1px solid #999;padding:4px 6px;font:12px/1.35 monospace;pointer-events:none}
.tl-controls{margin:6px 0}
.modtree details{margin-left:18px}.modtree>details{margin-left:0}.modtree .leaf{margin-left:32px}
.modtree summary{cursor:pointer}.modtree .bad{color:#b00}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#1d1d1f;background:#fff;
overflow-wrap:break-word}
header{background:#14213d;color:#fff;padding:10px 28px;display:flex;flex-wrap:wrap;align-items:baseline;gap:2px 16px}
header h1{margin:0;font-size:20px}
header p{margin:0;opacity:.85;min-width:0;overflow-wrap:anywhere}
nav{position:sticky;top:0;background:#f3f4f6;border-bottom:1px solid #ddd;padding:5px 28px;z-index:2;
display:flex;flex-wrap:wrap;gap:2px 18px}
nav a{color:#14213d;text-decoration:none;font-weight:600}
main{padding:4px 28px 40px;max-width:1240px}
section{margin-top:22px}
h2{border-bottom:2px solid #14213d;padding-bottom:4px;font-size:19px;margin:12px 0 8px}
h3{font-size:15px;margin:18px 0 6px}
table{border-collapse:collapse;margin:8px 0;font-size:13px;display:block;max-width:100%;overflow-x:auto}
th,td{border:1px solid #ddd;padding:3px 8px;text-align:right;vertical-align:top}
th{background:#f3f4f6}
th.sortable{cursor:pointer;user-select:none}
th[aria-sort=ascending]::after{content:" \25B2";font-size:9px}
th[aria-sort=descending]::after{content:" \25BC";font-size:9px}
td.l,th.l{text-align:left}
td.l,td code{overflow-wrap:anywhere}
.verdict{font-size:16px;margin:6px 0 4px}
.t-c{color:#0072B2}.t-x{color:#D55E00}.t-i{color:#555}
.rb-head{margin:8px 0 3px}
.rb{display:flex;align-items:center;gap:8px;height:18px}
.rb-l{flex:0 0 5.5em;text-align:right;font-size:12px;color:#444;white-space:nowrap}
.rb-t{flex:1 1 auto;min-width:0;position:relative;height:15px}
.rb-bar{display:flex;height:12px}
.rb-bar i{display:block;height:100%}
.rb .w{position:absolute;left:0;bottom:0;height:2px;background:#000}
.rb-v{flex:0 0 5.5em;font-size:12px;white-space:nowrap}
.rb-cols{display:flex;align-items:flex-end;height:120px;border-bottom:1px solid #999;overflow:hidden}
.rc{flex:1 1 0;min-width:0;display:flex;flex-direction:column-reverse}
.rb-cols.sep .rc{border-right:1px solid #fff}
.rc i{display:block;width:100%}
i.c{background:#0072B2}i.x{background:#D55E00}i.i{background:#c8c8c8}i.o{background:#CC79A7}i.w{background:#000}
.rb-axis{display:flex;justify-content:space-between;font-size:12px}
.rb-legend{display:flex;flex-wrap:wrap;gap:2px 14px;font-size:12px;color:#444;margin:4px 0}
.rb-legend i{display:inline-block;width:11px;height:11px;margin-right:4px;vertical-align:-1px}
.rb-legend i.w{height:3px;vertical-align:2px}
ol.findings{list-style:none;padding:0;margin:2px 0}
details.finding{border-left:4px solid #D55E00;background:#fff7f0;margin:2px 0;padding:0}
summary.fl{display:flex;align-items:baseline;gap:10px;padding:2px 10px;list-style:none;font-weight:400;
white-space:nowrap}
summary.fl::-webkit-details-marker{display:none}
summary.fl::before{content:"\25B8";color:#D55E00}
details[open]>summary.fl::before{content:"\25BE"}
summary.fl .gain{flex:0 0 3.6em;text-align:right;font-size:15px}
summary.fl .proj{flex:0 0 auto;color:#444}
summary.fl .ft{flex:1 1 auto;min-width:0;overflow:hidden;text-overflow:ellipsis}
summary.fl .fr{flex:0 1 auto;min-width:3em;max-width:22%;overflow:hidden;text-overflow:ellipsis}
summary.fl code{flex:0 1 auto;min-width:0;max-width:22%;overflow:hidden;text-overflow:ellipsis}
.fd{padding:0 12px 6px 32px}.fd p{margin:4px 0}
details.more-findings>summary{font-weight:400;margin:4px 0}
dl.gain-models dt{margin-top:10px}dl.gain-models dd{margin:2px 0 0 18px}
.kpi{display:flex;flex-wrap:wrap;gap:10px;margin:10px 0}
.kpi div{background:#f3f4f6;border-radius:6px;padding:8px 12px;min-width:130px}
.kpi b{display:block;font-size:18px}
.finding{border-left:4px solid #D55E00;background:#fff7f0;margin:8px 0;padding:6px 12px}
.finding .gain{font-weight:700;font-size:16px;color:#D55E00}
.muted{color:#666}
.swatch{display:inline-block;width:11px;height:11px;border-radius:2px;margin-right:5px;vertical-align:-1px}
svg{max-width:100%;height:auto;display:block;margin:6px 0}
details summary{cursor:pointer;font-weight:600}
code{background:#f3f4f6;padding:0 3px;border-radius:3px;overflow-wrap:anywhere}
)css";

// Sorting of every table of <main>: a click (or Enter) on a header sorts by
// its column, again reverses. A cell's data-v holds its raw number (empty:
// unknown); without it a number is read from the text with its unit (1.2
// ms, 3,084, 62.4%). Unknown cells (n/a) stay last; a column with any text
// that is no number sorts as text. Equal keys keep their order.
inline constexpr HtmlLiteral kTableSortScript = R"js(
(function(){
var unit={'':1,ns:1e-3,'\u00b5s':1,us:1,ms:1e3,s:1e6,min:6e7,h:3.6e9,'%':1,'\u00d7':1,x:1,
  B:1,KiB:1024,MiB:1048576,GiB:1073741824,TiB:1099511627776,KB:1e3,MB:1e6,GB:1e9,TB:1e12};
function keyOf(td){
  if(!td)return null;
  var raw=td.getAttribute('data-v');
  if(raw!==null)return raw===''?null:parseFloat(raw);
  var t=td.textContent.trim();
  if(t===''||t==='n/a'||t==='\u2014'||t==='-')return null;
  var m=/^([+\-\u2212]?)(\d[\d,]*(?:\.\d+)?(?:e[+\-]?\d+)?)\s*([^\s\d(),;\/]*)/.exec(t);
  if(!m||!(m[3] in unit))return undefined;
  var n=parseFloat(m[2].replace(/,/g,''))*unit[m[3]];
  return m[1]?-n:n;
}
function sortTable(table,col,th){
  var rows=Array.prototype.slice.call(table.rows),head=0;
  while(head<rows.length&&!rows[head].querySelector('td'))head++;
  var body=rows.slice(head);
  if(body.length<2)return;
  var items=body.map(function(r,i){var c=r.cells[col];
    return {r:r,i:i,k:keyOf(c),t:c?c.textContent.trim():''};});
  var numeric=items.every(function(o){return o.k!==undefined;});
  var was=th.getAttribute('aria-sort');
  var dir=was?(was==='ascending'?-1:1):(numeric?-1:1);
  items.sort(function(a,b){
    if(numeric){
      if(a.k===null||b.k===null)return (a.k===null)-(b.k===null)||a.i-b.i;
      return (a.k-b.k)*dir||a.i-b.i;
    }
    return a.t.localeCompare(b.t,undefined,{numeric:true})*dir||a.i-b.i;
  });
  var parent=body[0].parentNode;
  items.forEach(function(o){parent.appendChild(o.r);});
  Array.prototype.forEach.call(table.querySelectorAll('th[aria-sort]'),function(h){
    h.removeAttribute('aria-sort');});
  th.setAttribute('aria-sort',dir>0?'ascending':'descending');
}
Array.prototype.forEach.call(document.querySelectorAll('main table'),function(table){
  var first=table.rows[0];
  if(!first||first.querySelector('td'))return;
  Array.prototype.forEach.call(first.cells,function(th,col){
    th.classList.add('sortable');th.tabIndex=0;if(!th.title)th.title='sort by this column';
    th.addEventListener('click',function(){sortTable(table,col,th);});
    th.addEventListener('keydown',function(e){if(e.key==='Enter')sortTable(table,col,th);});
  });
});
})();
)js";

}  // namespace trainscope::report

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
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#1d1d1f;background:#fff}
header{background:#14213d;color:#fff;padding:18px 28px}
header h1{margin:0 0 4px;font-size:22px}
header p{margin:0;opacity:.85}
nav{position:sticky;top:0;background:#f3f4f6;border-bottom:1px solid #ddd;padding:6px 28px;z-index:2}
nav a{margin-right:18px;color:#14213d;text-decoration:none;font-weight:600}
main{padding:8px 28px 40px;max-width:1200px}
section{margin-top:26px}
h2{border-bottom:2px solid #14213d;padding-bottom:4px;font-size:19px}
h3{font-size:15px;margin:18px 0 6px}
table{border-collapse:collapse;margin:8px 0;font-size:13px}
th,td{border:1px solid #ddd;padding:3px 8px;text-align:right;vertical-align:top}
th{background:#f3f4f6}
td.l,th.l{text-align:left}
.kpi{display:flex;flex-wrap:wrap;gap:10px;margin:10px 0}
.kpi div{background:#f3f4f6;border-radius:6px;padding:8px 12px;min-width:130px}
.kpi b{display:block;font-size:18px}
.finding{border-left:4px solid #D55E00;background:#fff7f0;margin:8px 0;padding:6px 12px}
.finding .gain{font-weight:700;font-size:16px;color:#D55E00}
.muted{color:#666}
.swatch{display:inline-block;width:11px;height:11px;border-radius:2px;margin-right:5px;vertical-align:-1px}
svg{max-width:100%;height:auto;display:block;margin:6px 0}
details summary{cursor:pointer;font-weight:600}
code{background:#f3f4f6;padding:0 3px;border-radius:3px}
)css";

}  // namespace trainscope::report

// The interactive timeline's script (timeline_html.h). The script itself is
// src/report/timeline.js; src/report/CMakeLists.txt wraps it in a raw string
// literal when the build is configured, so it stays a compile-time
// HtmlLiteral: no text read at run time reaches the page as markup.
#include "report/timeline_html.h"

namespace trainscope::report {

const HtmlLiteral kTimelineScript =
#include "report/timeline_script.inc"
    ;

}  // namespace trainscope::report

#include "report/html_writer.h"

#include <gtest/gtest.h>

#include <string>

#include "report/svg.h"

namespace trainscope::report {
namespace {

std::string Markup(HtmlWriter&& writer) { return std::move(writer).Finish().markup(); }

TEST(HtmlWriter, FormatEscapesEveryStringArgument) {
  HtmlWriter out;
  const std::string kernel = "<script>alert('x')</script>&";
  out.Format("<td class=\"l\">{}</td><td>{}</td><td>{:.1f}</td>", kernel, std::string_view("a\"b"),
             2.25);
  EXPECT_EQ(Markup(std::move(out)),
            "<td class=\"l\">&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;</td>"
            "<td>a&quot;b</td><td>2.2</td>");
}

TEST(HtmlWriter, TextEscapesAndRawKeepsLiterals) {
  HtmlWriter out;
  out.Raw("<p>");
  out.Text("1 < 2 & \xff");
  out.Raw("</p>");
  EXPECT_EQ(Markup(std::move(out)), "<p>1 &lt; 2 &amp; \xEF\xBF\xBD</p>");
}

TEST(HtmlWriter, FragmentsGoInUnescapedOnlyAsFragments) {
  HtmlWriter inner;
  inner.Format("<b>{}</b>", "x<y");
  const HtmlFragment fragment = std::move(inner).Finish();
  HtmlWriter out;
  out.Format("<div>{}</div>", RawHtml{fragment});
  out.Append(fragment);
  // The fragment's markup as a plain string is text: escaped.
  out.Format("{}", fragment.markup());
  EXPECT_EQ(Markup(std::move(out)),
            "<div><b>x&lt;y</b></div><b>x&lt;y</b>&lt;b&gt;x&amp;lt;y&lt;/b&gt;");
}

TEST(SvgCanvas, EscapesLabelsTooltipsAndColours) {
  SvgCanvas svg(10, 10, "a<b");
  svg.Rect(0, 0, 1, 1, "red\"/><script>", "tip & more");
  svg.Text(1, 1, "</svg>");
  const std::string markup = std::move(svg).Finish().markup();
  EXPECT_EQ(markup.find("<script>"), std::string::npos);
  EXPECT_NE(markup.find("aria-label=\"a&lt;b\""), std::string::npos);
  EXPECT_NE(markup.find("fill=\"red&quot;/&gt;&lt;script&gt;\""), std::string::npos);
  EXPECT_NE(markup.find("<title>tip &amp; more</title>"), std::string::npos);
  EXPECT_NE(markup.find(">&lt;/svg&gt;</text>"), std::string::npos);
  EXPECT_EQ(markup.rfind("</svg>"), markup.size() - 6);
}

}  // namespace
}  // namespace trainscope::report

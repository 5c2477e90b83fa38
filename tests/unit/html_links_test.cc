// report.html's links in ncu's rule texts (src/report/html_links.h).
#include "src/report/html_links.h"

#include <gtest/gtest.h>

namespace llmpo::report {
namespace {

TEST(HtmlLinks, AnAddressInParenthesesBecomesALink) {
  EXPECT_EQ(HtmlTextWithLinks("See the Best Practices Guide (https://docs.nvidia.com/cuda/a.html#b) for more."),
            "See the Best Practices Guide (<a href=\"https://docs.nvidia.com/cuda/a.html#b\" target=\"_blank\" "
            "rel=\"noopener noreferrer\">https://docs.nvidia.com/cuda/a.html#b</a>) for more.");
}

TEST(HtmlLinks, TrailingFullStopAndMarkupStayText) {
  EXPECT_EQ(HtmlTextWithLinks("<b> at http://x.org/a?b=1&c=2."),
            "&lt;b&gt; at <a href=\"http://x.org/a?b=1&amp;c=2\" target=\"_blank\" rel=\"noopener noreferrer\">"
            "http://x.org/a?b=1&amp;c=2</a>.");
}

TEST(HtmlLinks, TextWithoutAnAddressIsOnlyEscaped) {
  EXPECT_EQ(HtmlTextWithLinks("a \"https://\" b & c"), "a &quot;https://&quot; b &amp; c");
}

}  // namespace
}  // namespace llmpo::report

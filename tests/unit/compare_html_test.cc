#include <gtest/gtest.h>

#include <regex>

#include "src/report/compare_model.h"

namespace llmpo::report {
namespace {

std::size_t Count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// A report built by hand: one comparison with a hostile kernel name (markup,
// quotes, an invalid UTF-8 byte), a new kernel and a region that got slower.
CompareReport HostileReport() {
  CompareReport r;
  r.sides = {"base<dir>", "new\"dir\""};
  Comparison c;
  c.base_label = r.sides[0], c.new_label = r.sides[1];
  c.base_kernel_ns = 3e6, c.new_kernel_ns = 4.5e6, c.delta_ns = 1.5e6;
  c.total_test.verdict = analysis::Verdict::kSlower;
  c.total_test.tested = true;
  KernelDelta hostile;
  hostile.name = "</script><script>window.x=1</script>&'\"\xff";
  hostile.match = "name";
  hostile.base_ns = 3e6, hostile.new_ns = 4e6, hostile.delta_ns = 1e6;
  KernelDelta fresh;
  fresh.name = "new_c";
  fresh.match = "new";
  fresh.new_ns = 0.5e6, fresh.delta_ns = 0.5e6;
  c.kernels = {hostile, fresh};
  c.attribution = {{hostile.name, 1e6}, {"1 new kernel(s)", 0.5e6}};
  RegionDelta region;
  region.path = "step / <b>decode</b>";
  region.match = "path";
  region.base_ns = 3e6, region.new_ns = 4.5e6, region.delta_ns = 1.5e6;
  region.test = c.total_test;
  c.regions = {region};
  c.guardrails = {"different GPUs: <A> against <B>"};
  r.comparisons.push_back(c);
  return r;
}

TEST(CompareHtml, EscapesHostileNamesAndLoadsNothing) {
  const std::string page = CompareHtml(HostileReport());
  EXPECT_EQ(Count(page, "<script"), 2u);  // the data and the code, nothing injected
  EXPECT_EQ(page.find("window.x=1</script>"), std::string::npos);
  EXPECT_EQ(page.find("<b>decode"), std::string::npos);
  EXPECT_NE(page.find("step / &lt;b&gt;decode&lt;/b&gt;"), std::string::npos);
  EXPECT_NE(page.find("different GPUs: &lt;A&gt; against &lt;B&gt;"), std::string::npos);
  EXPECT_EQ(page.find('\xff'), std::string::npos);          // the invalid byte is replaced
  EXPECT_NE(page.find("\xEF\xBF\xBD"), std::string::npos);  // with U+FFFD
  EXPECT_FALSE(std::regex_search(page, std::regex(R"((src|href)\s*=\s*"?https?:)")));
}

TEST(CompareHtml, WaterfallEndsAtTheTotalAndRegionsAreColouredByVerdict) {
  const std::string page = CompareHtml(HostileReport());
  // Steps 0 -> 1 ms -> 1.5 ms, then the total from 0 to 1.5 ms.
  EXPECT_NE(page.find("data-delta-ns=\"1000000\" data-from-ns=\"0\" data-to-ns=\"1000000\""), std::string::npos);
  EXPECT_NE(page.find("data-delta-ns=\"500000\" data-from-ns=\"1000000\" data-to-ns=\"1500000\""), std::string::npos);
  EXPECT_NE(page.find("<g class=\"step total\">"), std::string::npos);
  EXPECT_NE(page.find("data-delta-ns=\"1500000\" data-from-ns=\"0\" data-to-ns=\"1500000\""), std::string::npos);
  EXPECT_NE(page.find("<tr class=\"slower\"><td>step / &lt;b&gt;"), std::string::npos);
  // Base and new bars of the matched kernel; the new kernel has no base bar.
  EXPECT_EQ(Count(page, "<rect class=\"base\" x=\"330\""), 2u);  // the legend's and the matched kernel's
  EXPECT_EQ(Count(page, "not on this side"), 1u);
  EXPECT_NE(page.find("data-table=\"kernels-0\""), std::string::npos);
}

}  // namespace
}  // namespace llmpo::report

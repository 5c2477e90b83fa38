#include <gtest/gtest.h>

#include <limits>

#include "src/report/html_text.h"
#include "src/report/timeline_model.h"

namespace llmpo::report {
namespace {

TEST(HtmlText, EscapesMarkupAndQuotes) {
  EXPECT_EQ(HtmlText(R"(<a href="x">&'</a>)"), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;");
}

TEST(HtmlText, ControlCharactersBecomeSpacesAndBadUtf8IsReplaced) {
  EXPECT_EQ(HtmlText("a\nb\rc\x01"
                     "d\te"),
            "a b c d\te");
  EXPECT_EQ(HtmlText("bad\xff!"), "bad\xEF\xBF\xBD!");  // U+FFFD
}

TEST(HtmlShort, CutsOnCharactersNotBytes) {
  EXPECT_EQ(HtmlShort("\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9", 3), "\xC3\xA9\xC3\xA9\xE2\x80\xA6");  // éé…
  EXPECT_EQ(HtmlShort("abc", 3), "abc");
  EXPECT_EQ(HtmlShort("<<<<", 3), "&lt;&lt;\xE2\x80\xA6");
}

TEST(ScriptJson, NoStringCanCloseTheScriptElement) {
  nlohmann::ordered_json doc{{"name", "</script><script>x()</script>&\xff"}};
  const std::string out = ScriptJson(doc);
  EXPECT_EQ(out.find('<'), std::string::npos);
  EXPECT_EQ(out.find('>'), std::string::npos);
  EXPECT_EQ(out.find('&'), std::string::npos);
  EXPECT_EQ(out, R"({"name":"\u003c/script\u003e\u003cscript\u003ex()\u003c/script\u003e\u0026)"
                 "\xEF\xBF\xBD\"}");
  // A JSON parser reads the original text back (the invalid byte replaced).
  EXPECT_EQ(nlohmann::json::parse(out)["name"], "</script><script>x()</script>&\xEF\xBF\xBD");
}

model::TraceGpuOp Op(std::uint64_t stream, std::uint64_t start, std::uint64_t end) {
  model::TraceGpuOp op;
  op.stream = stream;
  op.start = start;
  op.end = end;
  return op;
}

TEST(TimelineOverview, BusyTimeIsTheUnionAndBinsSplitOperations) {
  model::TraceData t;
  t.pid = 5;
  t.gpu_traced = true;
  model::TraceRange r;
  r.start = 1000, r.end = 1400;
  t.ranges.push_back(r);
  t.gpu_ops = {Op(7, 1000, 1100), Op(7, 1050, 1150), Op(8, 1200, 1300)};
  const auto o = BuildTimelineOverview({t}, 4);  // bins of 100 ns from 1000 to 1400
  ASSERT_TRUE(o);
  EXPECT_EQ(o->start_ns, 1000u);
  EXPECT_EQ(o->end_ns, 1400u);
  ASSERT_EQ(o->rows.size(), 2u);
  EXPECT_EQ(o->rows[0].label, "GPU 0 stream 7 (pid 5)");
  EXPECT_EQ(o->rows[0].busy_ns, (std::vector<double>{150, 50, 0, 0}));  // each op's time in its bins
  EXPECT_DOUBLE_EQ(*o->rows[0].busy_total_ns, 150);                     // 1000..1150, overlap once
  EXPECT_EQ(o->rows[1].busy_ns, (std::vector<double>{0, 0, 100, 0}));
  EXPECT_DOUBLE_EQ(*o->gpu_busy_ns, 250);
  EXPECT_DOUBLE_EQ(*o->gpu_idle_ns, 150);
  EXPECT_EQ(o->gpu_ops, 3u);
}

// Stream i is busy i+1 ns: the kTimelineMaxRows busiest are the highest streams.
TEST(TimelineOverview, KeepsTheBusiestRowsAndCountsTheRest) {
  model::TraceData t;
  t.pid = 5;
  t.gpu_traced = true;
  const std::size_t streams = kTimelineMaxRows + 10;
  for (std::size_t i = 0; i < streams; ++i) t.gpu_ops.push_back(Op(i, 1000, 1001 + i));
  const auto o = BuildTimelineOverview({t}, 4);
  ASSERT_TRUE(o);
  ASSERT_EQ(o->rows.size(), kTimelineMaxRows);
  EXPECT_EQ(o->rows_left_out, 10u);
  for (const auto& row : o->rows) EXPECT_GE(*row.busy_total_ns, 11) << row.label;
  EXPECT_EQ(o->rows.front().label, "GPU 0 stream 10 (pid 5)");  // in their order: device, stream, pid
  EXPECT_EQ(o->gpu_ops, streams);                               // every operation still counted
}

TEST(TimelineOverview, WithoutGpuTracingBusyIsUnknown) {
  model::TraceData t;
  model::TraceRange r;
  r.start = 10, r.end = 20;
  t.ranges.push_back(r);
  const auto o = BuildTimelineOverview({t});
  ASSERT_TRUE(o);
  EXPECT_TRUE(o->rows.empty());
  EXPECT_FALSE(o->gpu_busy_ns);
  EXPECT_FALSE(BuildTimelineOverview({}));
}

}  // namespace
}  // namespace llmpo::report

namespace llmpo::report {
namespace {

model::LaunchRecord Launch(std::int64_t stream, std::int64_t start, std::int64_t end) {
  model::LaunchRecord l;
  l.process = model::ProcessId{.name = "app", .pid = 1};
  l.device = "0";
  l.stream = stream;
  l.start_ns = start;
  l.end_ns = end;
  return l;
}

TEST(TimelineCollector, StreamsLaunchesIntoDoublingBins) {
  TimelineCollector c;
  c.SetSource("a.sqlite");
  // Bins start 1 ns wide and double until 256 of them hold 0..401000 ns: 2048 ns.
  for (auto l : {Launch(7, 0, 1000), Launch(7, 500, 1500), Launch(8, 2000, 3000), Launch(7, 400000, 401000)}) {
    c.OnLaunch(l);
  }
  c.SetSource("b.sqlite");  // a second timeline of the same run is not added
  c.OnLaunch(Launch(7, 0, 100000));
  const auto t = c.Finish();
  ASSERT_TRUE(t);
  EXPECT_EQ(t->source, "a.sqlite");
  EXPECT_EQ(t->start_ns, 0u);
  EXPECT_EQ(t->end_ns, 401000u);
  EXPECT_DOUBLE_EQ(t->bin_ns, 2048);
  EXPECT_EQ(t->bins, 401000 / 2048 + 1);
  ASSERT_EQ(t->rows.size(), 2u);
  EXPECT_EQ(t->rows[0].label, "GPU 0 stream 7 (app (1))");
  EXPECT_DOUBLE_EQ(t->rows[0].busy_ns[0], 2000);      // both overlapping launches' time, in bin 0 (0..2048)
  EXPECT_DOUBLE_EQ(t->rows[0].busy_ns[195], 1000);    // 400000 / 2048 = 195.3
  EXPECT_DOUBLE_EQ(*t->rows[0].busy_total_ns, 2500);  // 0..1500 and 400000..401000
  EXPECT_DOUBLE_EQ(t->rows[1].busy_ns[0], 48);        // 2000..2048
  EXPECT_DOUBLE_EQ(t->rows[1].busy_ns[1], 952);       // 2048..3000
  EXPECT_DOUBLE_EQ(*t->gpu_busy_ns, 3500);
  EXPECT_DOUBLE_EQ(*t->gpu_idle_ns, 401000 - 3500);
  EXPECT_EQ(t->gpu_ops, 4u);
}

TEST(TimelineCollector, KeepsTheBusiestRowsAndCountsTheRest) {
  TimelineCollector c;
  const auto streams = static_cast<std::int64_t>(kTimelineMaxRows) + 3;
  for (std::int64_t i = 0; i < streams; ++i) c.OnLaunch(Launch(i, 100 * i, 100 * i + 1 + i));
  const auto t = c.Finish();
  ASSERT_TRUE(t);
  ASSERT_EQ(t->rows.size(), kTimelineMaxRows);
  EXPECT_EQ(t->rows_left_out, 3u);
  for (const auto& row : t->rows) EXPECT_GE(*row.busy_total_ns, 4) << row.label;  // streams 0..2 left out
  EXPECT_EQ(t->gpu_ops, static_cast<std::uint64_t>(streams));
}

TEST(TimelineCollector, EarlierStartsWidenToTheLeftAndKeepTheUnionExact) {
  TimelineCollector c;
  c.OnLaunch(Launch(1, 1000000, 1001000));
  c.OnLaunch(Launch(1, 10, 20));  // before the first bins, and out of start order
  const auto t = c.Finish();
  ASSERT_TRUE(t);
  EXPECT_EQ(t->start_ns, 10u);
  double sum = 0;
  for (double v : t->rows[0].busy_ns) sum += v;
  EXPECT_DOUBLE_EQ(sum, 1010);  // every launch's time is still in some bin
  // Out of start order but within the union's window: still exact
  // (IntervalUnion's tests cover the unknown case).
  ASSERT_TRUE(t->rows[0].busy_total_ns);
  EXPECT_DOUBLE_EQ(*t->rows[0].busy_total_ns, 1010);
  ASSERT_TRUE(t->gpu_busy_ns);
  EXPECT_DOUBLE_EQ(*t->gpu_busy_ns, 1010);
  ASSERT_TRUE(t->gpu_idle_ns);
  EXPECT_DOUBLE_EQ(*t->gpu_idle_ns, 1001000.0 - 10 - 1010);
}

// Issue #35 item 8: times at both ends of 64 bits; the grid's width x 256
// and its origin are 128-bit, so nothing overflows (the asan preset's UBSan
// would stop here) and each launch's time lands in a bin.
TEST(TimelineCollector, TimesAtTheEndsOfSixtyFourBitsFitTheGrid) {
  TimelineCollector c;
  const std::int64_t lo = std::numeric_limits<std::int64_t>::min() + 1;
  const std::int64_t hi = std::numeric_limits<std::int64_t>::max() - 1;
  c.OnLaunch(Launch(1, 1000, 2000));
  c.OnLaunch(Launch(1, lo, lo + 10));
  c.OnLaunch(Launch(1, hi - 10, hi));
  const auto t = c.Finish();
  ASSERT_TRUE(t);
  EXPECT_LE(t->bins, TimelineCollector::kBins);
  double sum = 0;
  for (double v : t->rows[0].busy_ns) sum += v;
  EXPECT_DOUBLE_EQ(sum, 1020);
  ASSERT_TRUE(t->gpu_idle_ns);
  EXPECT_GT(*t->gpu_idle_ns, 1.8e19);  // span - busy, never negative
}

TEST(TimelineCollector, NothingTimedNoTimeline) {
  TimelineCollector c;
  model::LaunchRecord ncu;  // ncu results have durations, no start or end
  ncu.duration_ns = 5;
  c.OnLaunch(ncu);
  EXPECT_FALSE(c.Finish());
}

}  // namespace
}  // namespace llmpo::report

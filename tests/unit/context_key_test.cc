// LaunchRecord::context_key and origin_key let sinks reuse the last launch's lookups. They
// are shortcuts only: a report built from the nsys importer's keyed records
// must be the report of the same records with every key dropped (0: the
// sinks compare the fields). A key shared by launches of different contexts
// is what the sinks cannot see through, so the comparison is shown to catch
// one.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <string>

#include "src/analysis/kernel_category.h"
#include "src/ingest/importer.h"
#include "src/ingest/input_file.h"
#include "src/model/forwarding_sink.h"
#include "src/pipeline/collectors.h"
#include "src/report/report_set.h"
#include "src/report/report_set_json.h"
#include "tests/unit/nsys_export_sql.h"
#include "tests/unit/temp_dir.h"

namespace llmpo {
namespace {

namespace fs = std::filesystem;

// Every record to `next`, each launch first through `change`.
class RewriteLaunches : public model::ForwardingSink {
 public:
  RewriteLaunches(model::RecordSink& next, std::function<void(model::LaunchRecord&)> change)
      : ForwardingSink(next), change_(std::move(change)) {}
  void OnLaunch(const model::LaunchRecord& launch) override {
    model::LaunchRecord copy = launch;
    change_(copy);
    next().OnLaunch(copy);
  }

 private:
  std::function<void(model::LaunchRecord&)> change_;
};

// Two threads of process 300, each with numbered steps holding three layers,
// four launches a layer (the third on device 1; each on a stream of its own), and one launch
// after its ranges: the context changes within a range and between ranges.
fs::path MakeExport(const fs::path& dir) {
  std::string nvtx, kernels, calls;
  auto add = [](std::string& list, const std::string& row) { list += (list.empty() ? "" : ",") + row; };
  std::int64_t corr = 1;
  for (const std::int64_t tid : {301, 302}) {
    const std::int64_t global_tid = (std::int64_t{300} << 24) + tid, base = (tid - 301) * 100000;
    auto launch = [&](std::int64_t at, int j) {
      add(calls, fmt::format("({}, {}, 0, {}, {}, 1)", at, at + 10, global_tid, corr));
      add(kernels, fmt::format("({}, {}, {}, {}, {}, {}, 2, 2)", at + 15, at + 40 + 5 * j, j == 2 ? 1 : 0, 7 + j, corr,
                               std::int64_t{300} << 24));
      ++corr;
    };
    for (int step = 0; step < 4; ++step) {
      const std::int64_t step_start = base + step * 1000;
      add(nvtx, fmt::format("({}, {}, 59, NULL, 'step {}', NULL, {}, 0)", step_start, step_start + 900, step,
                            global_tid));
      for (int layer = 0; layer < 3; ++layer) {
        const std::int64_t layer_start = step_start + layer * 300 + 10;
        add(nvtx, fmt::format("({}, {}, 59, NULL, 'layer {}', NULL, {}, 0)", layer_start, layer_start + 280, layer,
                              global_tid));
        for (int j = 0; j < 4; ++j) launch(layer_start + 20 + j * 50, j);
      }
    }
    launch(base + 5000, 0);
  }
  return testing::WriteSqlite(dir / "keys.sqlite", testing::NsysExportSql(nvtx, kernels, calls));
}

// report_set.json of `file` imported with every launch through `change`.
std::string ReportOf(const fs::path& file, const fs::path& scratch, std::function<void(model::LaunchRecord&)> change) {
  static const analysis::KernelCategorizer categorizer = *analysis::KernelCategorizer::Create();
  auto collectors = pipeline::Collectors::Create(pipeline::RegionOptions{}, false).value();
  report::SourceInfo info{file.string(), "nsys-sqlite", std::nullopt};
  RewriteLaunches sink(collectors->BeginInput(info.path, ""), std::move(change));
  ingest::ImportContext ctx{info.path, sink, collectors->diagnostics()};
  const ingest::Importer* used = nullptr;
  const Status status = ingest::ImportFile(file, ingest::InputOptions{scratch, nullptr}, ctx, &used);
  EXPECT_TRUE(status.ok()) << status.error().message;
  if (used != nullptr) info.family = used->family;
  collectors->EndInput(std::move(info));
  report::ReportOptions options;
  options.categorizer = &categorizer;
  return report::ReportSetJson(report::BuildReportSet(collectors->Finish(), options));
}

TEST(ContextKey, KeyedLaunchesReportAsUnkeyedOnes) {
  testing::TempDir dir;
  const fs::path file = MakeExport(dir.path());
  std::size_t keyed = 0, keys_changed = 0, origins_changed = 0;
  std::uint64_t last = 0, last_origin = 0;
  const std::string with_keys = ReportOf(file, dir.path(), [&](model::LaunchRecord& l) {
    keyed += l.context_key != 0 && l.origin_key != 0;
    keys_changed += l.context_key != last;
    origins_changed += l.origin_key != last_origin;
    last = l.context_key, last_origin = l.origin_key;
  });
  const std::string without_keys = ReportOf(file, dir.path(), [](model::LaunchRecord& l) { l.context_key = l.origin_key = 0; });
  EXPECT_EQ(keyed, 98u);  // every launch has both keys
  // A new context at each layer's first launch, at the device changes
  // (third and fourth launch) and after the ranges; the second launch keeps
  // the first one's. A new origin only at a device or thread change: a
  // layer's first launch keeps the one before it (device 0, same thread).
  EXPECT_EQ(keys_changed, 74u);
  EXPECT_EQ(origins_changed, 50u);
  EXPECT_TRUE(with_keys == without_keys) << "report_set.json differs when the keys are dropped";
  EXPECT_NE(with_keys.find("layer"), std::string::npos);
}

TEST(ContextKey, OneKeyForEveryContextChangesTheReport) {
  testing::TempDir dir;
  const fs::path file = MakeExport(dir.path());
  const std::string right = ReportOf(file, dir.path(), [](model::LaunchRecord&) {});
  const std::string wrong = ReportOf(file, dir.path(), [](model::LaunchRecord& l) { l.context_key = l.origin_key = 1; });
  EXPECT_FALSE(right == wrong) << "a key shared by every launch went unseen";
}

}  // namespace
}  // namespace llmpo

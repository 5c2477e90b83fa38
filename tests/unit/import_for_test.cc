#include "tests/unit/import_for_test.h"

#include "src/analysis/kernel_category.h"
#include "src/ingest/input_file.h"

namespace llmpo::testing {

ImportedSet ImportForTest(const std::vector<std::filesystem::path>& inputs, const std::filesystem::path& scratch,
                          report::ReportOptions options) {
  static const analysis::KernelCategorizer categorizer = *analysis::KernelCategorizer::Create();
  ImportedSet built;
  built.collectors = pipeline::Collectors::Create(pipeline::RegionOptions{}, inputs.size() > 1).value();
  const ingest::InputOptions input_options{scratch, nullptr};
  for (const auto& file : inputs) {
    report::SourceInfo info{file.string(), "unknown", std::nullopt};
    model::RecordSink& sink = built.collectors->BeginInput(info.path, "");
    ingest::ImportContext ctx{info.path, sink, built.collectors->diagnostics()};
    const ingest::Importer* used = nullptr;
    const Status status = ingest::ImportFile(file, input_options, ctx, &used);
    if (used != nullptr) {
      info.format = std::string(used->name);
      info.family = used->family;
    }
    if (!status.ok()) info.failure = status.error().message;
    built.collectors->EndInput(std::move(info));
  }
  if (options.categorizer == nullptr) options.categorizer = &categorizer;
  built.set = report::BuildReportSet(built.collectors->Finish(), options);
  return built;
}

}  // namespace llmpo::testing

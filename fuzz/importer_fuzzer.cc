// libFuzzer target for the importers: any bytes, written to a temporary
// file, imported the way `import` reads it. The format is the importer
// table's row named by $LLMPO_FUZZ_FORMAT ("kineto-trace", "ncu-report", ...:
// the names in src/ingest/registry.cc), or, unset, whatever the content is
// detected as (ingest::ImportFile, detection included). No list of formats
// is kept here or in CMake. It must not crash or hang; an importer that
// fails returns an input error (exit 3) with a message; a launch duration it
// reports is finite and not negative.
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "src/ingest/importer.h"
#include "src/ingest/input_file.h"
#include "src/model/diagnostics.h"
#include "src/model/sink.h"

namespace {

class CheckingSink : public llmpo::model::RecordSink {
 public:
  void OnLaunch(const llmpo::model::LaunchRecord& launch) override {
    // docs/security.md, "Numbers": NaN, infinities and negative times never
    // reach a record.
    if (launch.duration_ns && (!std::isfinite(*launch.duration_ns) || *launch.duration_ns < 0)) std::abort();
  }
  void OnKernelSummary(const llmpo::model::KernelSummaryRow&) override {}
};

// One temporary file per process, rewritten for every input.
const std::filesystem::path& InputPath() {
  static const std::filesystem::path path = [] {
    std::string name = (std::filesystem::temp_directory_path() / "llmpo-fuzz-XXXXXX").string();
    const int fd = mkstemp(name.data());
    if (fd < 0) std::abort();
    close(fd);
    std::atexit([] { std::remove(InputPath().c_str()); });
    return std::filesystem::path(name);
  }();
  return path;
}

// The row $LLMPO_FUZZ_FORMAT names; nullptr: detect from the content.
const llmpo::ingest::Importer* ChosenImporter() {
  static const llmpo::ingest::Importer* chosen = [] () -> const llmpo::ingest::Importer* {
    const char* name = std::getenv("LLMPO_FUZZ_FORMAT");
    if (name == nullptr || *name == '\0') return nullptr;
    for (const auto& row : llmpo::ingest::Importers()) {
      if (row.name == name && row.import != nullptr) return &row;
    }
    std::fprintf(stderr, "LLMPO_FUZZ_FORMAT=%s is not an importer; one of:", name);
    for (const auto& row : llmpo::ingest::Importers()) {
      if (row.import != nullptr) std::fprintf(stderr, " %.*s", static_cast<int>(row.name.size()), row.name.data());
    }
    std::fprintf(stderr, "\n");
    std::exit(2);
  }();
  return chosen;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::filesystem::path& path = InputPath();
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) std::abort();
  if (size > 0 && std::fwrite(data, 1, size, f) != size) std::abort();
  std::fclose(f);

  CheckingSink sink;
  llmpo::model::Diagnostics diagnostics;
  llmpo::ingest::ImportContext ctx{"fuzz-input", sink, diagnostics};
  const llmpo::ingest::Importer* chosen = ChosenImporter();
  const auto status = chosen != nullptr
                          ? chosen->import(path, ctx)
                          : llmpo::ingest::ImportFile(path, {path.parent_path(), nullptr}, ctx, nullptr);
  if (!status.ok()) {
    if (status.error().message.empty()) std::abort();
    // The temporary file has no extension, so no name-only format (which
    // would need a converter) is chosen: every failure is an input error.
    if (status.error().kind != llmpo::ExitStatus::kInput) std::abort();
  }
  return 0;
}

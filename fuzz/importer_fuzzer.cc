// libFuzzer target for one importer, chosen at build time by
// LLMPO_FUZZ_FORMAT (an ingest::InputFormat enumerator): any bytes, written
// to a temporary file, imported the way `import` reads that format (the
// registry's entry, from a path). It must not crash or hang; an importer that
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
#include "src/model/diagnostics.h"
#include "src/model/sink.h"

namespace {

using llmpo::ingest::InputFormat;

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

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::filesystem::path& path = InputPath();
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) std::abort();
  if (size > 0 && std::fwrite(data, 1, size, f) != size) std::abort();
  std::fclose(f);

  // Detection must not crash either, whatever it decides.
  (void)llmpo::ingest::DetectFormat(std::string_view(reinterpret_cast<const char*>(data), size));

  CheckingSink sink;
  llmpo::model::Diagnostics diagnostics;
  llmpo::ingest::ImportContext ctx{"fuzz-input", sink, diagnostics};
  const auto status = llmpo::ingest::ImporterFor(InputFormat::LLMPO_FUZZ_FORMAT).import(path, ctx);
  if (!status.ok()) {
    if (status.error().message.empty()) std::abort();
    if (status.error().kind != llmpo::ExitStatus::kInput) std::abort();
  }
  return 0;
}

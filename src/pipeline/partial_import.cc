#include "src/pipeline/partial_import.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <optional>
#include <thread>

#include "src/analysis/kernel_category.h"
#include "src/pipeline/collectors.h"
#include "src/pipeline/input_dedupe.h"
#include "src/pipeline/outputs.h"
#include "src/pipeline/partial_merge.h"

namespace llmpo::pipeline {
namespace fs = std::filesystem;
using report::PartialSet;

namespace {

// Each input's finished region trees, copied before Finish() combines them.
std::vector<report::RegionInputPart> RegionParts(Collectors& collectors) {
  std::vector<report::RegionInputPart> parts;
  for (const analysis::SourceRegions& s : collectors.FinishedRegionInputs()) {
    const analysis::RegionBuilder& b = *s.builder;
    report::RegionInputPart part{b.source(), s.family, b.caps(), b.saw_nvtx(), b.launches_seen(),
                                 b.launches_outside(), b.folded(), b.launches_per_range(), {}};
    for (const auto& [scope, tree] : b.scopes()) part.scopes.push_back({scope, tree.caps, tree.regions()});
    parts.push_back(std::move(part));
  }
  return parts;
}

PartialSet ToPartial(Collectors& collectors, const std::string& job) {
  PartialSet p;
  p.job = job;
  p.regions = RegionParts(collectors);
  report::Collected c = collectors.Finish();
  p.sources = std::move(c.sources);
  p.kernels = std::move(c.kernels);
  p.runtime = std::move(c.runtime);
  p.gpu_busy = std::move(c.gpu_busy);
  p.gpu_breakdown = std::move(c.gpu_breakdown);
  p.timeline = std::move(c.timeline);
  p.unused_kernel_patterns = std::move(c.unused_kernel_patterns);
  p.diagnostics = std::move(c.diagnostics);
  p.region_diagnostics = std::move(c.region_diagnostics);
  p.launch_sequences = std::move(c.launch_sequences);
  p.phases = std::move(c.phases);
  return p;
}

struct Slot {
  std::optional<PartialFile> part;
  std::vector<Error> failures;
};

// One input, read alone and reduced; its collectors are gone on return.
void CollectOne(const ImportRequest& request, const fs::path& file, const std::string& job, Slot& slot) {
  ImportRequest one = request;
  one.inputs = {file};
  auto collectors = Collectors::Create(request.regions, false);
  if (!collectors.ok()) {
    slot.failures.push_back(collectors.error());
    return;
  }
  ReadImportInputs(one, **collectors, slot.failures);
  slot.part = PartialFile{file.string(), ToPartial(**collectors, job)};
}

}  // namespace

Result<PartialImport> CollectPartial(const ImportRequest& request, const std::string& job, unsigned threads) {
  {
    auto probe = Collectors::Create(request.regions, false);  // a bad filter, said once
    if (!probe.ok()) return std::move(probe).error();
  }
  model::Diagnostics dedupe;
  const std::vector<fs::path> inputs = UniqueInputs(request.inputs, dedupe);
  std::vector<Slot> slots(inputs.size());
  std::atomic<std::size_t> next{0};
  const auto work = [&] {
    for (std::size_t i = next++; i < inputs.size(); i = next++) CollectOne(request, inputs[i], job, slots[i]);
  };
  std::vector<std::thread> pool;
  const unsigned n = std::clamp<unsigned>(threads, 1, std::max<std::size_t>(inputs.size(), 1));
  for (unsigned t = 1; t < n; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  PartialImport out;
  out.inputs = inputs.size();
  std::vector<PartialFile> parts;
  PartialSet head;  // what the dedupe said comes first, as in one import
  head.job = job;
  head.diagnostics = std::move(dedupe);
  parts.push_back({"(inputs)", std::move(head)});
  for (Slot& s : slots) {
    for (Error& e : s.failures) out.failures.push_back(std::move(e));
    if (s.part) parts.push_back(std::move(*s.part));
  }
  ASSIGN_OR_RETURN(out.set, MergePartials(std::move(parts)));
  out.set.merged_from.clear();  // made from inputs, not from partial files
  return out;
}

Result<std::vector<std::string>> WritePartialReports(PartialSet set, const ImportRequest& request) {
  RETURN_IF_ERROR(PrepareOutputFolder(request));
  ASSIGN_OR_RETURN(analysis::KernelCategorizer categorizer,
                   analysis::KernelCategorizer::Create(request.regions.categories));
  NoteMissingRanks(set);
  MergedCollection merged(std::move(set));
  const report::ReportSet reports = report::BuildReportSet(merged.Take(), ImportReportOptions(request, categorizer));
  return WriteOutputs(request.out_dir, reports);
}

}  // namespace llmpo::pipeline

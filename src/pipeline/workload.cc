#include "src/pipeline/workload.h"

#include <fmt/format.h>

#include <filesystem>

#include "src/config/node_path.h"
#include "src/config/scalar.h"

namespace llmpo::pipeline {
namespace fs = std::filesystem;

Result<Workload> ResolveWorkload(const config::Node& c) {
  Workload w;
  if (const auto* argv = config::FindPath(c, config::SplitKey("pipeline.workload.argv")); argv && !argv->is_null()) {
    if (argv->is_string()) {
      w.argv = {argv->get<std::string>()};
    } else if (argv->is_array() && !argv->empty()) {
      for (const auto& a : *argv) w.argv.push_back(config::ScalarToText(a));
    } else {
      return MakeError(ExitStatus::kUsage, "pipeline.workload.argv must be a program and its arguments, as a list")
          .WithNote("e.g. 'pipeline.workload.argv=[python3,infer.py,--steps,8]', or: profile -- python3 infer.py");
    }
    return w;
  }
  const auto* name = config::FindPath(c, config::SplitKey("model.workload"));
  if (name == nullptr || !name->is_string()) {
    return MakeError(ExitStatus::kUsage, "no workload: pipeline.workload.argv is null and model.workload is not set")
        .WithNote("give one with: profile -- CMD ARGS...");
  }
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  // Next to the binary (build tree, bundles), else where an install puts them.
  fs::path path = exe.parent_path() / "workloads" / name->get<std::string>();
  if (const fs::path installed = exe.parent_path().parent_path() / "lib/llm-perf-opt/workloads" / path.filename();
      !fs::is_regular_file(path, ec) && fs::is_regular_file(installed, ec)) {
    path = installed;
  }
  w.argv = {path.string()};
  // model.workload_args: the sizes and flags the model config passes to it.
  if (const auto* args = config::FindPath(c, config::SplitKey("model.workload_args")); args && args->is_array()) {
    for (const auto& a : *args) w.argv.push_back(config::ScalarToText(a));
  }
  // model.cuda_graphs: the bundled LLM decodes with CUDA graphs.
  if (const auto* graphs = config::FindPath(c, config::SplitKey("model.cuda_graphs"));
      graphs && graphs->is_boolean() && graphs->get<bool>()) {
    w.argv.push_back("--cuda-graphs");
  }
  w.bundled = true;
  w.exists = fs::is_regular_file(path, ec);
  return w;
}

}  // namespace llmpo::pipeline

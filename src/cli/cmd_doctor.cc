#include <iostream>
#include <nlohmann/json.hpp>

#include "src/cli/parse_args.h"
#include "src/core/version.h"
#include "src/pipeline/doctor.h"
#include "src/report/json_writer.h"

namespace llmpo::cli {
namespace {

// doctor --json: the same findings for programs. schema_version changes when
// a field changes meaning or goes away (adding one does not).
nlohmann::ordered_json DoctorJson(const pipeline::DoctorReport& report) {
  nlohmann::ordered_json checks = nlohmann::ordered_json::array();
  for (const auto& c : report.checks) {
    checks.push_back({{"name", c.name}, {"ok", c.ok}, {"detail", c.detail}, {"fix", c.ok ? "" : c.fix}});
  }
  return {{"schema_version", 1},
          {"tool", kToolName},
          {"version", kToolVersion},
          {"checks", checks},
          {"verdicts", report.verdicts}};
}

}  // namespace

int RunDoctor(const Invocation& inv) {
  CLI::App app{"Check the GPU, driver, CUDA toolkit, ncu and nsys on this machine, and say what will work.",
               "llm-perf-opt doctor"};
  bool json = false;
  app.add_flag("--json", json, "print the findings as JSON (schema_version, checks, verdicts)");
  if (auto stop = Parse(app, inv.args)) return *stop;
  const auto report = pipeline::RunDoctor();
  if (json) {
    std::cout << report::JsonFileText(DoctorJson(report));
  } else {
    std::cout << pipeline::FormatDoctor(report);
  }
  return 0;  // findings are the output; a missing tool is not an error of doctor's
}

}  // namespace llmpo::cli

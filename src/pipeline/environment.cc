#include "src/pipeline/environment.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <cstdlib>
#include <sstream>

#include "src/core/version.h"
#include "src/pipeline/doctor.h"

namespace llmpo::pipeline {
namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

std::optional<fs::path> FindOnPath(const std::string& name) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return std::nullopt;
  std::stringstream dirs(path);
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (dir.empty()) continue;
    fs::path candidate = fs::path(dir) / name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return std::nullopt;
}

Json DescribeEnvironment() {
  Json env;
  env["tool"] = {{"name", kToolName}, {"version", kToolVersion}};
  utsname uts{};
  if (::uname(&uts) == 0) {
    env["host"] = uts.nodename;
    env["os"] = {{"sysname", uts.sysname}, {"release", uts.release}, {"machine", uts.machine}};
  }
  std::error_code ec;
  env["cwd"] = fs::current_path(ec).string();
  Json tools = Json::object();
  for (const char* name : {"ncu", "nsys", "nvidia-smi", "nvcc"}) {
    auto found = FindOnPath(name);
    tools[name] = found ? Json(found->string()) : Json(nullptr);
  }
  env["tools_on_path"] = std::move(tools);
  env["gpu"] = nullptr;
  Json checks = Json::array();
  for (const auto& check : RunDoctor().checks) {
    if (check.name == "GPU and driver" && check.ok) env["gpu"] = check.detail;
    checks.push_back({{"name", check.name}, {"ok", check.ok}, {"detail", check.detail}});
  }
  env["checks"] = std::move(checks);  // the same findings as `llm-perf-opt doctor`, versions included
  Json vars = Json::object();
  for (const char* name : {"CUDA_VISIBLE_DEVICES", "CUDA_HOME", "NSYS_NVTX_PROFILER_REGISTER_ONLY"}) {
    const char* value = std::getenv(name);
    vars[name] = value ? Json(value) : Json(nullptr);
  }
  env["environment"] = std::move(vars);
  return env;
}

}  // namespace llmpo::pipeline

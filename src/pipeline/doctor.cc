#include "src/pipeline/doctor.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <filesystem>
#include <fstream>

#include "src/core/atomic_file.h"
#include "src/pipeline/environment.h"
#include "src/pipeline/process.h"
#include "src/pipeline/tool_version.h"
#include "src/pipeline/trace_job.h"

namespace llmpo::pipeline {
namespace fs = std::filesystem;
namespace {

// Runs `argv` and returns the first non-empty line of its output, or "".
std::string FirstLine(const std::vector<std::string>& argv, int* exit_code) {
  const fs::path dir = fs::temp_directory_path();
  const fs::path out = dir / fmt::format("llmpo-doctor-{}.out", ::getpid());
  const fs::path err = dir / fmt::format("llmpo-doctor-{}.err", ::getpid());
  auto result = RunToFiles(argv, out, err);
  *exit_code = result.ok() ? result->exit_code : -1;
  std::string first;
  for (const auto& file : {out, err}) {
    std::ifstream in(file);
    std::string line;
    while (first.empty() && std::getline(in, line)) {
      if (line.find_first_not_of(" \t\r") != std::string::npos) first = line;
    }
  }
  std::error_code ec;
  fs::remove(out, ec);
  fs::remove(err, ec);
  return first;
}

// The last line that mentions a version ("Version 2025.1.1", "release 13.0").
std::string VersionLine(const std::vector<std::string>& argv, int* exit_code) {
  const fs::path out = fs::temp_directory_path() / fmt::format("llmpo-doctor-{}.ver", ::getpid());
  auto result = RunToFiles(argv, out, out.string() + ".err");
  *exit_code = result.ok() ? result->exit_code : -1;
  std::ifstream in(out);
  std::string line, found;
  while (std::getline(in, line)) {
    if (line.find("ersion") != std::string::npos || line.find("release") != std::string::npos) found = line;
  }
  std::error_code ec;
  fs::remove(out, ec);
  fs::remove(out.string() + ".err", ec);
  return found;
}

Check ToolCheck(const std::string& tool, const std::string& fix) {
  Check c{tool, false, "", fix};
  auto path = FindOnPath(tool);
  if (!path) {
    c.detail = "not found on PATH";
    return c;
  }
  int code = 0;
  const std::string version = VersionLine({tool, "--version"}, &code);
  c.ok = code == 0;
  c.detail = fmt::format("{}{}", path->string(), version.empty() ? "" : " (" + version + ")");
  if (!c.ok) c.detail += fmt::format("; '{} --version' exited with {}", tool, code);
  if (std::string too_old = TooOldMessage(tool, version); c.ok && !too_old.empty()) {
    c.ok = false;
    c.detail += "; too old";
    c.fix = too_old;
  }
  return c;
}

Check GpuCheck() {
  Check c{"GPU and driver", false, "", "install the NVIDIA driver (nvidia-smi), or run on a machine with a GPU"};
  if (!FindOnPath("nvidia-smi")) {
    c.detail = "nvidia-smi not found: no NVIDIA driver here";
    return c;
  }
  int code = 0;
  const std::string line =
      FirstLine({"nvidia-smi", "--query-gpu=name,driver_version,compute_cap", "--format=csv,noheader"}, &code);
  c.ok = code == 0 && !line.empty();
  c.detail = c.ok ? line : fmt::format("nvidia-smi failed (exit {}): {}", code, line);
  return c;
}

// NVIDIA's driver restricts GPU performance counters to admins unless
// RmProfilingAdminOnly is 0; ncu then fails with ERR_NVGPUCTRPERM.
Check CounterPermissionCheck(bool gpu) {
  const bool root = ::geteuid() == 0;
  const std::string driver_fix =
      "set 'options nvidia NVreg_RestrictProfilingToAdminUsers=0' (modprobe.d) and reload the driver";
  Check c{"GPU counter permission", false, "", root ? driver_fix : "run as root, or " + driver_fix};
  std::ifstream params("/proc/driver/nvidia/params");
  if (!params) {
    c.detail = gpu ? "unknown: /proc/driver/nvidia/params is not readable"
                   : "unknown: /proc/driver/nvidia/params is not readable (no NVIDIA driver loaded)";
    c.fix = gpu ? "if ncu reports ERR_NVGPUCTRPERM: " + c.fix : "";  // without a GPU, its check says what to do
    return c;
  }
  std::string line;
  while (std::getline(params, line)) {
    if (line.starts_with("RmProfilingAdminOnly:")) {
      const bool admin_only = line.find('1') != std::string::npos;
      c.ok = !admin_only || ::geteuid() == 0;
      c.detail = admin_only ? (::geteuid() == 0 ? "restricted to admins; running as root" : "restricted to admins")
                            : "open to all users";
      return c;
    }
  }
  c.detail = "unknown: RmProfilingAdminOnly not listed";
  c.fix = "if ncu reports ERR_NVGPUCTRPERM: " + c.fix;
  return c;
}

Check TracerCheck() {
  Check c{"tracer library", false, "", ""};
  auto lib = FindTracerLibrary();
  c.ok = lib.ok();
  if (c.ok) {
    c.detail = lib->string();
  } else {
    c.detail = lib.error().message;
    c.fix = lib.error().notes.empty() ? "build the release tree" : lib.error().notes.front();
  }
  return c;
}

// CUPTI, where the tracer looks for it (LLMPO_CUPTI_PATH, the loader's
// search path, the CUDA toolkit's usual folders).
Check CuptiCheck() {
  Check c{"CUPTI (GPU side of the tracer)", false, "not found",
          "install the CUDA toolkit's CUPTI, or set LLMPO_CUPTI_PATH to libcupti.so"};
  std::vector<std::string> candidates;
  if (const char* env = std::getenv("LLMPO_CUPTI_PATH"); env != nullptr && *env) candidates.emplace_back(env);
  for (const char* name : {"libcupti.so", "libcupti.so.13", "libcupti.so.12", "/usr/local/cuda/lib64/libcupti.so",
                           "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so", "/usr/local/cuda/lib/libcupti.so"}) {
    candidates.emplace_back(name);
  }
  for (const auto& name : candidates) {
    // Found: left loaded, not dlclose'd. libcupti keeps a buffer it
    // allocated when loaded in its globals and does not free it on unload,
    // so unloading it shows as a 72 KiB leak under LeakSanitizer
    // (scripts/sanitize.sh); a loaded library costs nothing in a short run.
    if (dlopen(name.c_str(), RTLD_LAZY | RTLD_LOCAL) != nullptr) {
      c.ok = true;
      c.detail = name;
      return c;
    }
  }
  return c;
}

// The installed version's limits the commands adapt to (tool_probe.h).
std::string VersionLimits(const Check& tool) {
  const auto version = ParseToolVersion(tool.detail);
  if (!version || *version >= ToolVersion{2023, 1}) return "";
  if (tool.name == "ncu") {
    return fmt::format("; ncu {}: no app-range replay, --range-filter or --graph-profiling (2023.1 has them)",
                       version->Text());
  }
  return fmt::format("; nsys {}: its stats reports have the pre-2023.1 names (gpukernsum, nvtxsum), used as such",
                     version->Text());
}

std::string NcuVerdict(const Check& ncu, bool gpu, bool counters, bool counters_unknown) {
  const bool found = !ncu.detail.starts_with("not found");
  std::string verdict = gpu && ncu.ok && counters ? "will work"
                        : !gpu && found && ncu.ok
                            ? "will not work: no GPU (ncu runs the program but profiles no kernel); reading saved "
                              ".ncu-rep reports with it works"
                        : !gpu             ? "will not work: no GPU"
                        : !found           ? "will not work: ncu missing"
                        : !ncu.ok          ? "will not work: " + ncu.detail
                        : counters_unknown ? "may fail: counter access could not be checked"
                                           : "may fail: counter access is restricted";
  if (found && ncu.ok) verdict += VersionLimits(ncu);
  return "ncu profiling (pipeline.ncu.enable=true): " + verdict;
}

std::string NsysVerdict(const Check& nsys, bool gpu) {
  const bool found = !nsys.detail.starts_with("not found");
  std::string verdict = !found     ? "will not work: nsys missing"
                        : !nsys.ok ? "will not work: " + nsys.detail
                        : gpu      ? "will work"
                                   : "NVTX ranges and OS runtime calls only (no GPU, so no CUDA kernels)";
  if (found && nsys.ok) verdict += VersionLimits(nsys);
  return "nsys timeline (pipeline.nsys.enable=true): " + verdict;
}

}  // namespace

DoctorReport RunDoctor() {
  DoctorReport r;
  r.checks.push_back(GpuCheck());
  r.checks.push_back(CounterPermissionCheck(r.checks[0].ok));
  r.checks.push_back(ToolCheck("nvcc", "install the CUDA toolkit (needed to build the bundled workloads)"));
  r.checks.push_back(ToolCheck("ncu", "install Nsight Compute and put its folder on PATH"));
  r.checks.push_back(ToolCheck("nsys", "install Nsight Systems and put its folder on PATH"));
  r.checks.push_back(TracerCheck());
  r.checks.push_back(CuptiCheck());
  const bool gpu = r.checks[0].ok, counters = r.checks[1].ok;
  const bool counters_unknown = r.checks[1].detail.starts_with("unknown");
  const bool tracer = r.checks[5].ok, cupti = r.checks[6].ok;
  r.verdicts.push_back(NcuVerdict(r.checks[3], gpu, counters, counters_unknown));
  r.verdicts.push_back(NsysVerdict(r.checks[4], gpu));
  r.verdicts.push_back(fmt::format("trace (our NVTX + CUPTI tracer, no nsys needed): {}",
                                   !tracer        ? "will not work: the tracer library is not built"
                                   : gpu && cupti ? "NVTX ranges and GPU activity"
                                   : !gpu         ? "NVTX ranges only (no GPU)"
                                                  : "NVTX ranges only (no CUPTI)"));
  r.verdicts.push_back(
      "import of existing files (ncu CSV and .ncu-rep, nsys CSV and SQLite, PyTorch traces, our traces): works "
      "everywhere");
  r.verdicts.push_back("profile --dry-run (print the commands): works everywhere");
  return r;
}

std::string FormatDoctor(const DoctorReport& r) {
  std::string out = "llm-perf-opt doctor\n\n";
  for (const auto& c : r.checks) {
    out += fmt::format("  [{}] {}: {}\n", c.ok ? "ok" : "--", c.name, c.detail);
    if (!c.ok && !c.fix.empty()) out += fmt::format("       fix: {}\n", c.fix);
  }
  out += "\n";
  for (const auto& v : r.verdicts) out += fmt::format("  {}\n", v);
  return out;
}

}  // namespace llmpo::pipeline

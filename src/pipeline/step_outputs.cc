#include "src/pipeline/step_outputs.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <tuple>

namespace llmpo::pipeline {
namespace fs = std::filesystem;
namespace {

std::string OptionValue(const Argv& argv, const std::string& flag) { return ArgValue(argv, flag); }

bool NonEmptyFile(const fs::path& file) {
  std::error_code ec;
  return fs::is_regular_file(file, ec) && fs::file_size(file, ec) > 0 && !ec;
}

bool Mentions(const fs::path& file, std::string_view text) {
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    if (line.find(text) != std::string::npos) return true;
  }
  return false;
}

std::string Trim(std::string line) {
  const auto first = line.find_first_not_of(" \t\r");
  const auto last = line.find_last_not_of(" \t\r");
  line = first == std::string::npos ? "" : line.substr(first, last - first + 1);
  if (line.size() > 300) line = line.substr(0, 300) + "...";
  return line;
}

// nsys' reports of the step: run.nsys-rep, or run.1.nsys-rep, ... with repeat.
std::vector<fs::path> NsysReports(const fs::path& base) {
  std::vector<fs::path> found;
  std::error_code ec;
  const std::string stem = base.filename().string();
  for (auto it = fs::directory_iterator(base.parent_path(), ec); !ec && it != fs::directory_iterator();
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.starts_with(stem + ".") && name.ends_with(".nsys-rep") && NonEmptyFile(it->path())) {
      found.push_back(it->path());
    }
  }
  return found;
}

std::string WithToolWords(std::string problem, const fs::path& out, const fs::path& err) {
  if (std::string said = FirstErrorLine(out, err); !said.empty()) problem += fmt::format(": \"{}\"", said);
  return problem;
}

std::string NsysProblem(const PlannedCommand& cmd, const fs::path& out, const fs::path& err) {
  const fs::path base = OptionValue(cmd.argv, "--output");
  if (base.empty() || !NsysReports(base).empty()) return "";
  std::error_code ec;
  if (fs::exists(base.string() + ".qdstrm", ec)) {
    return WithToolWords(
        fmt::format("nsys wrote only the raw capture {}.qdstrm, no .nsys-rep (it could not run its importer, "
                    "QdstrmImporter)",
                    base.filename().string()),
        out, err);
  }
  return WithToolWords("nsys wrote no report (.nsys-rep)", out, err);
}

std::string StatsProblem(const PlannedCommand& cmd, const fs::path& out, const fs::path& err) {
  if (std::string said = FirstErrorLine(out, err); !said.empty()) return fmt::format("nsys stats: \"{}\"", said);
  // "SKIPPED: ... does not contain ..." is nsys' word that the capture has no such data.
  if (Mentions(out, "SKIPPED:") || Mentions(err, "SKIPPED:")) return "";
  const std::string prefix = OptionValue(cmd.argv, "--output");
  const std::string csv = prefix + "_" + OptionValue(cmd.argv, "--report") + ".csv";
  return prefix.empty() || NonEmptyFile(csv) ? "" : fmt::format("nsys stats wrote no {}", fs::path(csv).filename().string());
}

// The numbered reports of `base` (run.3.nsys-rep, ...; run.rank3.nsys-rep
// from the ranks of a launcher), by number, each with its label ("3", "rank3").
std::vector<std::pair<std::string, fs::path>> Numbered(const fs::path& base) {
  std::vector<std::tuple<bool, int, std::string, fs::path>> found;
  for (const fs::path& report : NsysReports(base)) {
    const std::string middle = report.filename().string().substr(base.filename().string().size() + 1);
    const std::string label = middle.substr(0, middle.find('.'));
    const bool rank = label.starts_with("rank");
    const std::string number = rank ? label.substr(4) : label;
    if (!number.empty() && number.size() < 7 && number.find_first_not_of("0123456789") == std::string::npos &&
        middle == label + ".nsys-rep") {
      found.emplace_back(rank, std::stoi(number), label, report);
    }
  }
  std::sort(found.begin(), found.end());
  std::vector<std::pair<std::string, fs::path>> out;
  for (const auto& [rank, n, label, report] : found) out.emplace_back(label, report);
  return out;
}

}  // namespace

std::string ArgValue(const Argv& argv, const std::string& flag) {
  for (std::size_t i = 0; i < argv.size(); ++i) {
    if (argv[i] == flag && i + 1 < argv.size()) return argv[i + 1];
    if (argv[i].starts_with(flag + "=")) return argv[i].substr(flag.size() + 1);
  }
  return "";
}

std::vector<PlannedCommand> PerNumberedReport(const PlannedCommand& cmd) {
  if ((cmd.step != "nsys-stats" && cmd.step != "nsys-export") || cmd.argv.empty()) return {cmd};
  const fs::path report = cmd.argv.back();
  std::error_code ec;
  if (report.extension() != ".nsys-rep" || fs::exists(report, ec)) return {cmd};
  std::vector<PlannedCommand> out;
  for (const auto& [n, numbered] : Numbered(report.parent_path() / report.stem())) {
    PlannedCommand one = cmd;
    one.step = fmt::format("{}.{}", cmd.step, n);
    one.argv.back() = numbered.string();
    for (std::size_t i = 0; i + 1 < one.argv.size(); ++i) {
      if (one.argv[i] != "--output") continue;
      fs::path output = one.argv[i + 1];
      one.argv[i + 1] = output.extension() == ".sqlite"
                            ? (output.parent_path() / fmt::format("{}.{}.sqlite", output.stem().string(), n)).string()
                            : fmt::format("{}.{}", output.string(), n);
    }
    out.push_back(std::move(one));
  }
  return out.empty() ? std::vector<PlannedCommand>{cmd} : out;
}

bool NsysSessionFlake(const PlannedCommand& cmd, int exit_code, const fs::path& out, const fs::path& err) {
  if (cmd.step != "nsys" || exit_code != 1) return false;
  std::vector<std::string> lines;
  for (const fs::path& file : {out, err}) {
    std::ifstream in(file);
    std::string line;
    while (std::getline(in, line)) {
      if (std::string t = Trim(line); !t.empty()) lines.push_back(t);
    }
  }
  return lines.size() == 1 && lines[0] == "End of file";
}

std::string FirstErrorLine(const fs::path& out, const fs::path& err) {
  for (const fs::path& file : {err, out}) {
    std::ifstream in(file);
    std::string line;
    while (std::getline(in, line)) {
      const std::string t = Trim(line);
      if (t.starts_with("ERROR") || t.starts_with("==ERROR==") || t.starts_with("Importer error") ||
          t.find("[libprotobuf ERROR") != std::string::npos) {
        return t;
      }
    }
  }
  return "";
}

std::string StepOutputProblem(const PlannedCommand& cmd, const fs::path& run_dir, const fs::path& out,
                              const fs::path& err) {
  if (cmd.step == "nsys") return NsysProblem(cmd, out, err);
  if (cmd.step == "nsys-stats") return StatsProblem(cmd, out, err);
  if (cmd.step == "nsys-export") {
    const fs::path sqlite = OptionValue(cmd.argv, "--output");
    if (std::string said = FirstErrorLine(out, err); !said.empty()) return fmt::format("nsys export: \"{}\"", said);
    return sqlite.empty() || NonEmptyFile(sqlite) ? "" : WithToolWords("nsys export wrote no SQLite file", out, err);
  }
  if (cmd.step == "ncu") {
    const std::string base = OptionValue(cmd.argv, "--export");
    if (base.empty() || NonEmptyFile(base + ".ncu-rep")) return "";
    if (Mentions(out, "No kernels were profiled") || Mentions(err, "No kernels were profiled")) {
      return "ncu profiled no kernel and wrote no report. Check the kernel and NVTX filters (push/pop ranges need "
             "a trailing '/', named domains DOMAIN@range/) and launch-skip/count";
    }
    if (Mentions(out, "No ranges were profiled") || Mentions(err, "No ranges were profiled")) {
      return "ncu profiled no range and wrote no report. Range replay needs NVTX includes that match ranges "
             "around CUDA work";
    }
    return WithToolWords("ncu wrote no report (.ncu-rep)", out, err);
  }
  if (cmd.step.starts_with("ncu-")) {
    if (std::string said = FirstErrorLine(out, err); !said.empty()) return fmt::format("ncu: \"{}\"", said);
    if (!cmd.stdout_to.empty() && !NonEmptyFile(run_dir / cmd.stdout_to)) {
      return fmt::format("ncu wrote nothing to {}", cmd.stdout_to);
    }
  }
  return "";
}

bool NormalEnding(const PlannedCommand& cmd, int exit_code) {
  if (cmd.step != "nsys" || exit_code != 143) return false;
  const bool capture_range = std::any_of(cmd.argv.begin(), cmd.argv.end(),
                                         [](const std::string& a) { return a == "--capture-range=nvtx"; });
  return capture_range && !NsysReports(OptionValue(cmd.argv, "--output")).empty();
}

}  // namespace llmpo::pipeline

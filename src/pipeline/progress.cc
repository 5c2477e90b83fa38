#include "src/pipeline/progress.h"

#include <fmt/format.h>
#include <re2/re2.h>

#include <algorithm>

namespace llmpo::pipeline {
namespace {

bool StartsWith(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

// nsys prints its phases as whole lines.
constexpr std::string_view kNsysPhases[] = {"Collecting data...", "Generating '", "Processing events...",
                                            "Saving temporary",   "Generated:",   "Processing ["};

}  // namespace

bool ToolProgress::Feed(std::string_view line) {
  static const RE2 kProfiling(R"re(^==PROF== Profiling "(.*)" - (\d+):(.*)$)re");
  static const RE2 kPasses(R"re(- (\d+) pass(?:es)?\s*$)re");
  static const RE2 kReplayPass(R"re(replay pass (\d+))re");
  static const RE2 kConnected(R"re(^==PROF== Connected to process (\d+))re");
  const std::string before = Text();
  std::string name;
  std::string rest;
  int id = 0;
  std::string pid;
  if (RE2::FullMatch(line, kProfiling, &name, &id, &rest)) {
    results_ = std::max(results_, id + 1);
    last_name_ = name;
    int passes = 0;
    if (RE2::PartialMatch(rest, kPasses, &passes) || RE2::PartialMatch(rest, kReplayPass, &passes)) {
      last_passes_ = passes;
    } else {
      last_passes_ = 0;
    }
  } else if (RE2::PartialMatch(line, kConnected, &pid)) {
    phase_ = "connected to process " + pid;
  } else if (StartsWith(line, "==PROF== Disconnected")) {
    phase_ = "disconnected";
  } else if (StartsWith(line, "==ERROR==")) {
    last_error_ = std::string(line.substr(10));
  } else {
    for (std::string_view p : kNsysPhases) {
      if (StartsWith(line, p)) phase_ = std::string(line.substr(0, 80));
    }
  }
  return Text() != before;
}

std::string ToolProgress::Text() const {
  std::string text = fmt::format("[{}]", step_);
  if (results_ > 0) {
    text += fmt::format(" {} result{} profiled, last: {}", results_, results_ == 1 ? "" : "s",
                        last_name_.size() > 60 ? last_name_.substr(0, 57) + "..." : last_name_);
    if (last_passes_ > 0) text += fmt::format(" ({} pass{})", last_passes_, last_passes_ == 1 ? "" : "es");
  } else if (!phase_.empty()) {
    text += " " + phase_;
  } else {
    text += " running";
  }
  if (!last_error_.empty()) text += " | error: " + last_error_.substr(0, 80);
  return text;
}

void ProgressDisplay::Update(const std::string& text) {
  if (text == shown_) return;
  if (terminal_) {
    const std::size_t pad = width_ > text.size() ? width_ - text.size() : 0;
    std::fprintf(out_, "\r%s%*s", text.c_str(), static_cast<int>(pad), "");
    std::fflush(out_);
    width_ = text.size();
    shown_ = text;
    return;
  }
  const auto now = std::chrono::steady_clock::now();
  if (!shown_.empty() && std::chrono::duration<double>(now - last_plain_).count() < plain_interval_s_) {
    held_ = text;
    return;
  }
  std::fprintf(out_, "%s\n", text.c_str());
  std::fflush(out_);
  shown_ = text;
  held_.clear();
  last_plain_ = now;
}

void ProgressDisplay::Finish() {
  if (terminal_) {
    if (!shown_.empty()) std::fprintf(out_, "\n");
  } else if (!held_.empty()) {
    std::fprintf(out_, "%s\n", held_.c_str());
  }
  std::fflush(out_);
  shown_.clear();
  held_.clear();
  width_ = 0;
}

Result<ProcessResult> RunStepWithProgress(ProcessRunner& runner, StepSpec spec, const std::string& step, std::FILE* out,
                                          bool terminal) {
  if (out == nullptr) return runner.Run(spec);
  ToolProgress progress(step);
  ProgressDisplay display(out, terminal);
  display.Update(progress.Text());
  spec.on_line = [&](std::string_view line) {
    if (progress.Feed(line)) display.Update(progress.Text());
  };
  auto result = runner.Run(spec);
  display.Finish();
  return result;
}

}  // namespace llmpo::pipeline

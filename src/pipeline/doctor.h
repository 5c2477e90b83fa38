// `doctor`: what this machine has for profiling, and what will and will not
// work. Each check runs a tool through the process interface (or reads a
// file) and never fails the program; the verdicts are the output.
#pragma once

#include <string>
#include <vector>

namespace llmpo::pipeline {

struct Check {
  std::string name;  // "GPU", "ncu", ...
  bool ok = false;
  std::string detail;  // version, path, or what is wrong
  std::string fix;     // what to do when not ok
};

struct DoctorReport {
  std::vector<Check> checks;
  std::vector<std::string> verdicts;  // "ncu profiling: will work", ...
};

DoctorReport RunDoctor();
std::string FormatDoctor(const DoctorReport& report);

}  // namespace llmpo::pipeline

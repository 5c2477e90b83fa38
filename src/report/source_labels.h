// Short names for the inputs in tables: the full paths are listed once (the
// sources list of kernels.md and report.html); tables and section titles name
// an input by its file name, with as many parent folders as it takes to tell
// two inputs with the same file name apart.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "src/report/kernels_report.h"

namespace llmpo::report {

// path -> label, for every source (the same path twice gets one label).
std::map<std::string, std::string> SourceLabels(const std::vector<SourceInfo>& sources);

// The label of `path`; the path itself when it is not one of the sources.
std::string LabelOf(const std::map<std::string, std::string>& labels, const std::string& path);

}  // namespace llmpo::report

#include <iostream>

#include "src/cli/parse_args.h"
#include "src/pipeline/doctor.h"

namespace llmpo::cli {

int RunDoctor(const Invocation& inv) {
  CLI::App app{"Check the GPU, driver, CUDA toolkit, ncu and nsys on this machine, and say what will work.",
               "llm-perf-opt doctor"};
  if (auto stop = Parse(app, inv.args)) return *stop;
  std::cout << pipeline::FormatDoctor(pipeline::RunDoctor());
  return 0;  // findings are the output; a missing tool is not an error of doctor's
}

}  // namespace llmpo::cli

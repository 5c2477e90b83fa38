#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "src/cli/subcommands.h"

int main(int argc, char** argv) {
  try {
    return llmpo::cli::Main(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const std::exception& e) {
    // Library code returns errors as values; this is the last line of defence.
    std::cerr << "llm-perf-opt: internal error: " << e.what() << "\n";
    return 1;
  }
}

// What env.json records about the machine a run happened on.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace llmpo::pipeline {

// The first executable called `name` on PATH.
std::optional<std::filesystem::path> FindOnPath(const std::string& name);

// Host, OS, working directory, the tools found on PATH and the environment
// variables that change what the profilers do.
nlohmann::ordered_json DescribeEnvironment();

}  // namespace llmpo::pipeline

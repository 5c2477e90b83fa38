// Inputs named more than once, or copies of one file under two names: the
// same bytes describe the same launches, so they are read once. Compared by
// content (size, then a hash of the bytes, then the bytes themselves), never
// by name alone.
#pragma once

#include <filesystem>
#include <vector>

#include "src/model/diagnostics.h"

namespace llmpo::pipeline {

// `inputs` in their order, without any whose content an earlier one already
// has; each one left out is named in a note in `diagnostics`. An input that
// cannot be read here is kept (its import says what is wrong with it).
std::vector<std::filesystem::path> UniqueInputs(const std::vector<std::filesystem::path>& inputs,
                                                model::Diagnostics& diagnostics);

}  // namespace llmpo::pipeline

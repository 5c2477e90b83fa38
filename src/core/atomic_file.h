// Writes a whole file so that readers see either the old content or the new,
// never half of it: write a temp file beside it, fsync, rename over.
#pragma once

#include <filesystem>
#include <string_view>

#include "src/core/result.h"

namespace llmpo {

Status WriteFileAtomically(const std::filesystem::path& path, std::string_view content);

Result<std::string> ReadWholeFile(const std::filesystem::path& path);

}  // namespace llmpo

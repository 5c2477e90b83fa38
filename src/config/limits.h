// Bounds on what a configuration may grow to. YAML aliases (*name) copy a
// whole anchored subtree, and ${...} copies a value, so a few hundred bytes
// of nested aliases or interpolations can ask for gigabytes ("billion
// laughs"). These limits are far above any real configuration (a few hundred
// nodes); crossing one is an input error (exit 3) that names the file and
// the limit. docs/security.md lists them.
#pragma once

#include <cstddef>
#include <cstdint>

namespace llmpo::config {

// One YAML file, aliases expanded: levels of nesting, nodes (keys, values
// and list items) and bytes of scalar text (keys included).
inline constexpr int kMaxYamlDepth = 64;
inline constexpr std::uint64_t kMaxYamlNodes = 100'000;
inline constexpr std::uint64_t kMaxYamlScalarBytes = 16u << 20;  // 16 MiB

// ${...} interpolation, over one composition: the longest string one
// interpolation may produce, and what copies of values (${a.b} standing for a
// mapping, a list or a string) may add up to in nodes and in bytes.
inline constexpr std::size_t kMaxInterpolatedStringBytes = 1u << 20;  // 1 MiB
inline constexpr std::uint64_t kMaxInterpolationNodes = 100'000;
inline constexpr std::uint64_t kMaxInterpolationBytes = 16u << 20;  // 16 MiB

}  // namespace llmpo::config

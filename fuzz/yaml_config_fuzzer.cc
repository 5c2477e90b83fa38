// libFuzzer target: any bytes as a YAML config file. Loading must not crash;
// whatever loads must survive emit -> load unchanged (NaN aside, which never
// equals itself).
#include <cstdint>
#include <cstdlib>
#include <string>

#include "src/config/yaml_io.h"

namespace {

bool HasNaN(const llmpo::config::Node& n) {
  if (n.is_number_float()) return n.get<double>() != n.get<double>();
  if (n.is_structured()) {
    for (const auto& child : n) {
      if (HasNaN(child)) return true;
    }
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto loaded = llmpo::config::LoadYaml(text, "fuzz.yaml");
  if (!loaded.ok()) return 0;
  const std::string emitted = llmpo::config::EmitYaml(*loaded);
  auto again = llmpo::config::LoadYaml(emitted, "emitted.yaml");
  if (!again.ok()) std::abort();
  if (!HasNaN(*loaded) && *again != *loaded) std::abort();
  return 0;
}

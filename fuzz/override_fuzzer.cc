// libFuzzer target: any bytes as one command-line override, parsed and then
// composed against the shipped conf/. Must never crash, hang or leak; a
// parse failure must come with a message.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "src/config/composer.h"
#include "src/config/override.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto parsed = llmpo::config::ParseOverride(text);
  if (!parsed.ok()) {
    if (parsed.error().message.empty()) std::abort();
    return 0;
  }
  llmpo::config::ComposeRequest request;
  request.search_path = {LLMPO_SOURCE_CONF_DIR};
  request.overrides = {text};
  auto composed = llmpo::config::Compose(request);
  if (!composed.ok() && composed.error().message.empty()) std::abort();
  return 0;
}

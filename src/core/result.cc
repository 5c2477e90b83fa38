#include "src/core/result.h"

namespace llmpo {

std::string Error::Render() const {
  std::string out;
  for (auto it = context.rbegin(); it != context.rend(); ++it) {
    out += *it;
    out += ": ";
  }
  out += message;
  for (const auto& note : notes) {
    out += "\n  ";
    out += note;
  }
  return out;
}

}  // namespace llmpo

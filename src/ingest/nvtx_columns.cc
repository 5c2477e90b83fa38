#include "src/ingest/nvtx_columns.h"

#include <charconv>
#include <string>

namespace llmpo::ingest {
namespace {

constexpr std::string_view kDefaultDomain = "<default domain>";

// The quoted entries of a cell, or the whole cell when nothing is quoted.
std::vector<std::string_view> Entries(std::string_view cell) {
  std::vector<std::string_view> entries;
  std::size_t pos = 0;
  while ((pos = cell.find('"', pos)) != std::string_view::npos) {
    const std::size_t end = cell.find('"', pos + 1);
    if (end == std::string_view::npos) break;
    entries.push_back(cell.substr(pos + 1, end - pos - 1));
    pos = end + 1;
  }
  return entries;
}

// "domain:range:f1:f2:f3:f4:f5:f6" -> frame; the message (f6) names the
// range when the range field is empty (nvtxRangePushEx with only a message).
std::optional<model::NvtxFrame> ParseEntry(std::string_view entry) {
  std::size_t end = entry.size();
  std::string_view message;
  for (int i = 0; i < 6; ++i) {
    const std::size_t colon = entry.rfind(':', end == 0 ? 0 : end - 1);
    if (colon == std::string_view::npos || end == 0) return std::nullopt;
    if (i == 0) message = entry.substr(colon + 1, end - colon - 1);
    end = colon;
  }
  const std::string_view head = entry.substr(0, end);  // "domain:range"
  const std::size_t colon = head.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  model::NvtxFrame frame;
  const std::string_view domain = head.substr(0, colon);
  frame.domain = domain == kDefaultDomain ? "" : std::string(domain);
  frame.name = std::string(head.substr(colon + 1));
  if (frame.name.empty() && message != "none") frame.name = std::string(message);
  return frame;
}

}  // namespace

std::vector<model::NvtxFrame> ParsePushPopColumn(std::string_view cell) {
  std::vector<model::NvtxFrame> frames;
  for (std::string_view entry : Entries(cell)) {
    if (auto frame = ParseEntry(entry)) frames.push_back(std::move(*frame));
  }
  return frames;
}

std::vector<model::NvtxFrame> ParseStartEndColumn(std::string_view cell) {
  std::vector<std::string_view> entries = Entries(cell);
  if (entries.empty() && !cell.empty()) entries.push_back(cell);
  std::vector<model::NvtxFrame> frames;
  for (std::string_view entry : entries) {
    const std::size_t colon = entry.find(':');
    if (colon == std::string_view::npos) continue;
    std::int64_t id = 0;
    const auto [ptr, ec] = std::from_chars(entry.data(), entry.data() + colon, id);
    auto frame = ParseEntry(entry.substr(colon + 1));
    if (!frame) continue;
    if (ec == std::errc() && ptr == entry.data() + colon) frame->instance = id;
    frames.push_back(std::move(*frame));
  }
  return frames;
}

}  // namespace llmpo::ingest

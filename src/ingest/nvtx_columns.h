// ncu's two NVTX columns (present with --nvtx), parsed into frames.
//   push/pop:  '1614690 "<default domain>:A:none:none:none:none:none:none" "<default domain>:A::A1:..."'
//              a thread id, then one quoted entry per stack level, outermost first;
//   start/end: entries 'Id:Domain:Range:...' (quoted and space-separated, or one bare entry).
// An entry ends with six fixed fields (payload type/value, color type/color,
// message type/message), so it is split from the right: range names may hold ':'.
#pragma once

#include <string_view>
#include <vector>

#include "src/model/records.h"

namespace llmpo::ingest {

std::vector<model::NvtxFrame> ParsePushPopColumn(std::string_view cell);
std::vector<model::NvtxFrame> ParseStartEndColumn(std::string_view cell);

}  // namespace llmpo::ingest

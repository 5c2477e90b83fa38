#include "src/ingest/ncu_rep/reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <unordered_map>

#include "ncu_report.pb.h"  // generated from ncu_report.proto (CMakeLists.txt)
#include "src/core/utf8.h"
#include "src/core/varint.h"

namespace llmpo::ingest::ncurep {
namespace {

namespace pb = ::llmpo::ncurep;

// Text as stored, without the trailing NULs some writers leave (the Windows
// process name of ncu 2025.2), made valid UTF-8.
std::string Text(const std::string& bytes, std::size_t& replaced) {
  std::string s = bytes;
  while (!s.empty() && s.back() == '\0') s.pop_back();
  replaced += ReplaceInvalidUtf8(s);
  return s;
}

Value ToValue(const pb::MetricValue& v, std::size_t& replaced) {
  Value out;
  if (v.has_string_value()) out.text = Text(v.string_value(), replaced);
  if (v.has_double_value()) out.number = v.double_value();
  if (v.has_float_value()) out.number = v.float_value();
  if (v.has_uint64_value()) {
    out.integer = v.uint64_value();
    out.number = static_cast<double>(v.uint64_value());
  }
  if (v.has_uint32_value()) {
    out.integer = v.uint32_value();
    out.number = static_cast<double>(v.uint32_value());
  }
  return out;
}

std::array<std::uint64_t, 3> ToDim3(const pb::Uint64x3& d) { return {d.x(), d.y(), d.z()}; }

model::FindingType ToFindingType(std::uint32_t type) {
  switch (type) {
    case 2:
      return model::FindingType::kWarning;
    case 3:
      return model::FindingType::kError;
    case 4:
      return model::FindingType::kOptimization;
    default:  // 0 none, 1 ok
      return model::FindingType::kInfo;
  }
}

// Rule text as ncu prints it: the report keeps links as "@section:ID:Name@"
// (printed "Name") and "@url:Text:URL@" (printed "Text (URL)").
std::string RenderMarkup(const std::string& text) {
  std::string out;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t open = text.find('@', at);
    const bool section = open != std::string::npos && text.compare(open, 9, "@section:") == 0;
    const bool url = open != std::string::npos && text.compare(open, 5, "@url:") == 0;
    const std::size_t close = section || url ? text.find('@', open + 1) : std::string::npos;
    if (close == std::string::npos) {
      out += text.substr(at);
      break;
    }
    out += text.substr(at, open - at);
    const std::string body = text.substr(open + (section ? 9 : 5), close - open - (section ? 9 : 5));
    const std::size_t colon = body.find(':');
    if (colon == std::string::npos) {
      out += body;
    } else if (section) {
      out += body.substr(colon + 1);
    } else {
      out += body.substr(0, colon) + " (" + body.substr(colon + 1) + ")";
    }
    at = close + 1;
  }
  return out;
}

RuleResult ToRule(const pb::RuleResult& r, std::size_t& replaced) {
  RuleResult rule{
      Text(r.identifier(), replaced), Text(r.display_name(), replaced), Text(r.section_identifier(), replaced), {}};
  for (const auto& item : r.body().items()) {
    if (item.has_message()) {
      model::Finding f;
      f.rule = rule.identifier;
      f.section = rule.section;
      f.type = ToFindingType(item.message().type());
      f.title = RenderMarkup(Text(item.message().title(), replaced));
      f.message = RenderMarkup(Text(item.message().text(), replaced));
      rule.messages.push_back(std::move(f));
    }
    if (item.has_speedup() && !rule.messages.empty()) {
      // The speedup has no message id: it sits in its message's item, or
      // follows it; either way it belongs to the last message.
      model::Finding& f = rule.messages.back();
      if (item.speedup().has_percent()) f.speedup_pct = item.speedup().percent();
      if (item.speedup().type() == 1) f.speedup_kind = model::SpeedupKind::kLocal;
      if (item.speedup().type() == 2) f.speedup_kind = model::SpeedupKind::kGlobal;
    }
  }
  return rule;
}

std::string NvtxRangeName(const std::string& name, const pb::NvtxAttributes& attributes, std::size_t& replaced) {
  return Text(name.empty() ? attributes.message().text() : name, replaced);
}

void ReadNvtx(const pb::NvtxState& state, ProfileResult& out, std::size_t& replaced) {
  std::map<std::uint64_t, std::string> domains;
  for (const auto& d : state.domains()) {
    std::string name = Text(d.name(), replaced);
    if (name == "<default domain>") name.clear();
    domains[d.id()] = std::move(name);
  }
  auto domain_name = [&](std::uint64_t id) {
    auto it = domains.find(id);
    return it == domains.end() ? (id == 0 ? std::string() : std::to_string(id)) : it->second;
  };
  for (const auto& t : state.threads()) {
    for (const auto& d : t.domains()) {
      NvtxThreadStack stack{t.thread_id(), domain_name(d.id()), {}};
      for (const auto& r : d.ranges()) {
        NvtxStackFrame frame{stack.domain, NvtxRangeName(r.name(), r.attributes(), replaced), std::nullopt};
        if (r.has_last_api_call_id()) frame.last_api_call_id = r.last_api_call_id();
        stack.frames.push_back(std::move(frame));
      }
      out.nvtx_push_pop.push_back(std::move(stack));
    }
  }
  for (const auto& d : state.start_end_domains()) {
    for (const auto& r : d.ranges()) {
      NvtxStartEnd range{domain_name(d.id()), NvtxRangeName(r.name(), r.attributes(), replaced), std::nullopt,
                         std::nullopt};
      if (r.has_id()) range.id = r.id();
      if (r.has_start_thread_id()) range.start_thread_id = r.start_thread_id();
      out.nvtx_start_end.push_back(std::move(range));
    }
  }
}

// The protobuf wire format, walked without decoding: calls `on_field` with
// the number and bytes of each length-delimited field at the top level of
// `message`. False when `message` is not a sequence of fields (protobuf's
// parser then says it does not decode).
template <class OnField>
bool ForEachLengthField(std::string_view message, OnField on_field) {
  auto varint = [&](std::uint64_t& v) { return ReadVarint(message, v); };
  while (!message.empty()) {
    std::uint64_t key = 0, n = 0;
    if (!varint(key)) return false;
    switch (key & 7) {
      case 0:
        if (!varint(n)) return false;
        break;
      case 1:
      case 5:
        n = (key & 7) == 1 ? 8 : 4;
        if (n > message.size()) return false;
        message.remove_prefix(n);
        break;
      case 2:
        if (!varint(n) || n > message.size()) return false;
        on_field(key >> 3, message.substr(0, n));
        message.remove_prefix(n);
        break;
      default:
        return false;
    }
  }
  return true;
}

// Field numbers of ncu_report.proto the limits count.
constexpr std::uint64_t kResultMetricsField = 13;    // ProfileResult.metrics
constexpr std::uint64_t kRangeMetricsField = 4;      // RangeResult.metrics
constexpr std::uint64_t kMetricInstancesField = 3;   // MetricResult.instances
constexpr std::uint64_t kHeaderStringTableField = 4;  // BlockHeader.string_table
constexpr std::uint64_t kStringTableStringsField = 1;  // StringTable.strings

// How many metric values (metrics and instances) a result entry holds.
std::uint64_t CountValues(std::string_view result, bool range) {
  const std::uint64_t metrics_field = range ? kRangeMetricsField : kResultMetricsField;
  std::uint64_t n = 0;
  ForEachLengthField(result, [&](std::uint64_t field, std::string_view metric) {
    if (field != metrics_field) return;
    ++n;
    ForEachLengthField(metric, [&](std::uint64_t f, std::string_view) { n += f == kMetricInstancesField; });
  });
  return n;
}

// How many strings a block header's string table holds.
std::uint64_t CountStrings(std::string_view header) {
  std::uint64_t n = 0;
  ForEachLengthField(header, [&](std::uint64_t field, std::string_view table) {
    if (field != kHeaderStringTableField) return;
    ForEachLengthField(table, [&](std::uint64_t f, std::string_view) { n += f == kStringTableStringsField; });
  });
  return n;
}

Error PastLimit(const std::string& label, const std::string& what, std::uint64_t limit, std::string_view unit) {
  return MakeError(ExitStatus::kInput,
                   fmt::format("{}: {}, past the limit of {} {}; refused", label, what, limit, unit))
      .WithNote(
          "a real Nsight Compute report stays far below it; this file is damaged or made to exhaust memory "
          "(docs/security.md, \"Nsight Compute reports\")")
      .WithNote(
          "if ncu itself reads it, export it as CSV and import the CSV: ncu --import REPORT --csv --page raw "
          "--print-units base > report.csv");
}

// Bounded reading: every size is checked against what is left of the file
// before anything is allocated for it.
class Framing {
 public:
  Framing(std::istream& in, std::uint64_t size, const std::string& label, const ReadSummary& summary)
      : in_(in), size_(size), label_(label), summary_(summary) {}

  std::uint64_t position() const { return pos_; }
  std::uint64_t left() const { return size_ - pos_; }

  Result<std::uint32_t> ReadSize(std::string_view what) {
    unsigned char b[4];
    RETURN_IF_ERROR(ReadInto(reinterpret_cast<char*>(b), 4, what));
    return static_cast<std::uint32_t>(b[0]) | static_cast<std::uint32_t>(b[1]) << 8 |
           static_cast<std::uint32_t>(b[2]) << 16 | static_cast<std::uint32_t>(b[3]) << 24;
  }

  // Reads `n` bytes into `buffer` (reused between calls).
  Status ReadBytes(std::uint64_t n, std::string& buffer, std::string_view what) {
    if (n > left()) return Damaged(fmt::format("{} of {} bytes", what, n));
    buffer.resize(n);
    return ReadInto(buffer.data(), n, what);
  }

  // Passes over `n` bytes without keeping them (cubins of several hundred KB).
  Status Skip(std::uint64_t n, std::string_view what) {
    if (n > left()) return Damaged(fmt::format("{} of {} bytes", what, n));
    in_.ignore(static_cast<std::streamsize>(n));
    if (static_cast<std::uint64_t>(in_.gcount()) != n) return Damaged(std::string(what));
    pos_ += n;
    return OkStatus();
  }

  Error Damaged(std::string what) const {
    return MakeError(ExitStatus::kInput,
                     fmt::format("{}: damaged or truncated Nsight Compute report: {} at byte {} runs past the end of "
                                 "the file ({} bytes)",
                                 label_, what, pos_, size_))
        .WithNote(ReadSoFar())
        .WithNote("the file was cut short or changed; copy or export it again (ncu writes it whole at exit)");
  }

  std::string ReadSoFar() const {
    return fmt::format("read before the damage: {} block(s), {} source(s), {} result(s)", summary_.blocks,
                       summary_.sources, summary_.results);
  }

 private:
  Status ReadInto(char* out, std::uint64_t n, std::string_view what) {
    if (n > left()) return Damaged(std::string(what));
    in_.read(out, static_cast<std::streamsize>(n));
    if (static_cast<std::uint64_t>(in_.gcount()) != n) return Damaged(std::string(what));
    pos_ += n;
    return OkStatus();
  }

  std::istream& in_;
  std::uint64_t size_;
  std::uint64_t pos_ = 0;
  const std::string& label_;
  const ReadSummary& summary_;
};

class ReportReader {
 public:
  ReportReader(std::istream& in, std::uint64_t size, const std::string& label, Visitor& visitor,
               model::Diagnostics& diagnostics)
      : framing_(in, size, label, summary_),
        label_(label),
        visitor_(visitor),
        diagnostics_(diagnostics),
        name_budget_(std::max(kMinNameBudgetBytes, size * kMaxNameBytesPerFileByte)) {}

  Result<ReadSummary> Run() {
    RETURN_IF_ERROR(ReadFileHeader());
    while (framing_.left() > 0) RETURN_IF_ERROR(ReadBlock());
    if (replaced_ > 0) {
      diagnostics_.Add(model::Diag::invalid_utf8, fmt::format("{}: {} byte(s) of names are not UTF-8; each shown as U+FFFD", label_, replaced_));
    }
    visitor_.OnSession(session_);
    summary_.bytes = framing_.position();
    return summary_;
  }

 private:
  Status ReadFileHeader() {
    RETURN_IF_ERROR(framing_.ReadBytes(4, buffer_, "the magic number"));
    if (buffer_ != std::string_view("NVR\0", 4)) {
      return MakeError(ExitStatus::kInput, fmt::format("{}: not an Nsight Compute report (no NVR magic)", label_));
    }
    ASSIGN_OR_RETURN(std::uint32_t n, framing_.ReadSize("the file header size"));
    RETURN_IF_ERROR(framing_.ReadBytes(n, buffer_, "the file header"));
    pb::FileHeader header;
    if (!header.ParseFromString(buffer_)) {
      return MakeError(ExitStatus::kInput, fmt::format("{}: the report's file header does not decode", label_));
    }
    if (header.version() != kKnownFormatVersion) {
      return MakeError(ExitStatus::kInput,
                       fmt::format("{}: Nsight Compute report format version {}; this reader knows version {} "
                                   "(ncu 2020.3 to 2026.2)",
                                   label_, header.has_version() ? std::to_string(header.version()) : "missing",
                                   kKnownFormatVersion))
          .WithNote(
              "export it as CSV where ncu exists and import the CSV: ncu --import REPORT --csv --page raw "
              "--print-units base > report.csv");
    }
    return OkStatus();
  }

  Status ReadBlock() {
    ASSIGN_OR_RETURN(std::uint32_t n, framing_.ReadSize("a block header size"));
    if (n > kMaxBlockHeaderBytes && n <= framing_.left()) {
      return PastLimit(label_, fmt::format("block {} declares a header of {} bytes", summary_.blocks, n),
                       kMaxBlockHeaderBytes, "bytes");
    }
    RETURN_IF_ERROR(framing_.ReadBytes(n, buffer_, "a block header"));
    const std::uint64_t strings = CountStrings(buffer_);
    if (strings > kMaxStrings - strings_.size()) {
      return PastLimit(label_,
                       fmt::format("block {} brings the string tables to {} strings", summary_.blocks,
                                   strings_.size() + strings),
                       kMaxStrings, "strings");
    }
    pb::BlockHeader header;
    if (!header.ParseFromString(buffer_)) {
      return MakeError(ExitStatus::kInput, fmt::format("{}: block {} has a header that does not decode (at byte {})",
                                                       label_, summary_.blocks, framing_.position() - n))
          .WithNote(framing_.ReadSoFar());
    }
    ++summary_.blocks;
    if (header.has_session()) MergeSession(header.session());
    for (const auto& s : header.string_table().strings()) {
      strings_.push_back(std::make_shared<const std::string>(Text(s, replaced_)));
    }
    return ReadPayload(header);
  }

  Status ReadPayload(const pb::BlockHeader& header) {
    const std::uint64_t payload = header.payload_size();
    if (payload > framing_.left()) {
      return framing_.Damaged(fmt::format("block {}'s payload of {} bytes", summary_.blocks - 1, payload));
    }
    const std::uint64_t end = framing_.position() + payload;
    std::uint64_t entry = 0;
    while (framing_.position() < end) {
      ASSIGN_OR_RETURN(std::uint32_t size, framing_.ReadSize("an entry size"));
      if (framing_.position() > end || size > end - framing_.position()) {
        return framing_.Damaged(fmt::format("an entry of {} bytes in block {}", size, summary_.blocks - 1));
      }
      if (entry < header.num_sources()) {
        RETURN_IF_ERROR(framing_.Skip(size, "a source entry"));
        ++summary_.sources;
      } else if (entry - header.num_sources() < header.num_results() + header.num_range_results()) {
        if (size > kMaxResultBytes) {
          return PastLimit(label_, fmt::format("result {} is {} bytes long", summary_.results, size), kMaxResultBytes,
                           "bytes");
        }
        RETURN_IF_ERROR(framing_.ReadBytes(size, buffer_, "a result entry"));
        const bool range = entry - header.num_sources() >= header.num_results();
        if (const std::uint64_t values = CountValues(buffer_, range); values > kMaxValuesPerResult) {
          return PastLimit(label_, fmt::format("result {} holds {} metric values", summary_.results, values),
                           kMaxValuesPerResult, "values per result");
        }
        ReadResult(header, range);
        if (over_name_budget_) {
          return PastLimit(label_,
                           fmt::format("its first {} results name metric names of {} bytes or more in all",
                                       summary_.results, name_bytes_),
                           name_budget_, "bytes (64 per byte of the file, at least 256 MiB)");
        }
      } else {
        RETURN_IF_ERROR(framing_.Skip(size, "an entry"));
        ++summary_.extra_entries;  // 2026.2's CUDA graph description, or kinds not known yet
      }
      ++entry;
    }
    if (entry < header.num_sources() + header.num_results() + header.num_range_results()) {
      diagnostics_.Add(model::Diag::ncu_rep_missing_entries, fmt::format("{}: block {} announces {} source(s) and {} result(s) but holds {} entries", label_,
                                   summary_.blocks - 1, header.num_sources(),
                                   header.num_results() + header.num_range_results(), entry));
    }
    return OkStatus();
  }

  // A range result becomes a result named "range", as ncu's CSV pages name it.
  static bool ParseRangeResult(const std::string& bytes, pb::ProfileResult& r, google::protobuf::Arena& arena) {
    pb::RangeResult& range = *google::protobuf::Arena::CreateMessage<pb::RangeResult>(&arena);
    if (!range.ParseFromString(bytes)) return false;
    if (range.has_thread_id()) r.set_thread_id(range.thread_id());
    if (range.has_api_call_id()) r.set_api_call_id(range.api_call_id());
    r.set_function_name("range");
    r.set_demangled_name("range");
    r.mutable_metrics()->Swap(range.mutable_metrics());
    r.mutable_sections()->Swap(range.mutable_sections());
    r.mutable_rules()->Swap(range.mutable_rules());
    if (range.has_nvtx()) r.mutable_nvtx()->Swap(range.mutable_nvtx());
    return true;
  }

  void ReadResult(const pb::BlockHeader& header, bool range) {
    // One arena per result, emptied after it: hundreds of metric messages
    // without a malloc and free each.
    arena_.Reset();
    pb::ProfileResult& r = *google::protobuf::Arena::CreateMessage<pb::ProfileResult>(&arena_);
    const std::uint64_t index = summary_.results++;
    if (!(range ? ParseRangeResult(buffer_, r, arena_) : r.ParseFromString(buffer_))) {
      diagnostics_.Add(model::Diag::ncu_rep_bad_result, fmt::format("{}: result {} ({} bytes, ending at byte {}) does not decode; skipped", label_,
                                   index, buffer_.size(), framing_.position()));
      return;
    }
    ProfileResult out;
    out.index = index;
    out.range = range;
    FillIdentity(r, header, out);
    FillMetrics(r, out);
    if (over_name_budget_) return;  // refused by ReadPayload
    for (const auto& section : r.sections()) {
      Section& kept = out.sections.emplace_back();
      kept.identifier = Text(section.identifier(), replaced_);
      kept.display_name = Text(section.display_name(), replaced_);
      for (const auto& m : section.header().metrics()) {
        kept.header.emplace_back(Text(m.name(), replaced_), Text(m.label(), replaced_));
      }
    }
    for (const auto& rule : r.rules()) out.rules.push_back(ToRule(rule, replaced_));
    if (r.has_nvtx()) {
      out.has_nvtx = true;
      ReadNvtx(r.nvtx(), out, replaced_);
    }
    visitor_.OnResult(out);
  }

  void FillIdentity(const pb::ProfileResult& r, const pb::BlockHeader& header, ProfileResult& out) {
    if (r.has_thread_id()) out.thread_id = r.thread_id();
    if (r.has_api_call_id()) out.api_call_id = r.api_call_id();
    if (r.has_context_id()) out.context_id = r.context_id();
    if (r.has_stream_id()) out.stream_id = r.stream_id();
    if (r.has_creation_time()) out.creation_time_s = r.creation_time();
    out.mangled_name = Text(r.mangled_name(), replaced_);
    out.function_name = Text(r.function_name(), replaced_);
    out.demangled_name = Text(r.demangled_name(), replaced_);
    if (r.has_grid_size()) out.grid_size = ToDim3(r.grid_size());
    if (r.has_block_size()) out.block_size = ToDim3(r.block_size());
    if (header.process().has_process_id()) out.process_id = header.process().process_id();
    out.process_name = Text(header.process().process_name(), replaced_);
  }

  // Whether the metric `m` of result `out` is kept: its name exists and is
  // not too long, and the names kept so far stay within the file's budget
  // (each launch copies the names of its metrics).
  bool KeepMetric(const pb::MetricResult& m, const ProfileResult& out) {
    if (m.name_id() >= strings_.size()) {
      diagnostics_.Add(model::Diag::ncu_rep_bad_metric_name,
                       fmt::format("{}: result {} has a metric with name index {}, past the string table's {} "
                                   "names; skipped",
                                   label_, out.index, m.name_id(), strings_.size()));
      return false;
    }
    const std::string& name = *strings_[m.name_id()];
    if (name.size() > kMaxMetricNameBytes) {
      diagnostics_.Add(model::Diag::ncu_rep_long_metric_name,
                       fmt::format("{}: result {} has a metric named by {} bytes ({}); skipped", label_, out.index,
                                   name.size(), model::Excerpt(name)));
      return false;
    }
    name_bytes_ += name.size();
    if (name_bytes_ > name_budget_) over_name_budget_ = true;
    return !over_name_budget_;
  }

  void FillMetrics(const pb::ProfileResult& r, ProfileResult& out) {
    out.metrics.reserve(r.metrics_size());
    for (const auto& m : r.metrics()) {
      if (!KeepMetric(m, out)) continue;
      MetricEntry e;
      e.interned_name = strings_[m.name_id()];
      if (m.has_value()) e.value = ToValue(m.value(), replaced_);
      e.instances.reserve(m.instances_size());
      for (const auto& i : m.instances()) {
        e.instances.push_back({ToValue(i.correlation(), replaced_), ToValue(i.value(), replaced_)});
      }
      out.metrics.push_back(std::move(e));
    }
  }

  void MergeSession(const pb::SessionDetails& s) {
    if (s.has_creation_time()) session_.creation_time_s = s.creation_time();
    if (s.host().has_os()) session_.host_os = Text(s.host().os(), replaced_);
    if (s.target().has_os()) session_.target_os = Text(s.target().os(), replaced_);
    if (s.has_command_line()) session_.command_line = Text(s.command_line(), replaced_);
    for (const auto& v : s.versions()) {
      session_.versions.emplace_back(Text(v.provider(), replaced_), Text(v.version(), replaced_));
    }
    for (const auto& d : s.devices()) MergeDevice(d);
  }

  // A device's fragments merge by id, found through device_index_ (a
  // session of 160,000 devices costs a lookup each, not a walk of all).
  void MergeDevice(const pb::DeviceAttributes& d) {
    const auto [at, added] = device_index_.try_emplace(d.id(), session_.devices.size());
    if (added) session_.devices.push_back(Device{d.id(), {}, {}});
    Device* it = &session_.devices[at->second];
    if (d.has_name()) it->name = Text(d.name(), replaced_);
    constexpr std::string_view kPrefix = "device__attribute_";
    for (const auto& a : d.attributes()) {
      std::string name = Text(a.name(), replaced_);
      if (name.starts_with(kPrefix)) name.erase(0, kPrefix.size());
      it->attributes.push_back({std::move(name), ToValue(a.value(), replaced_)});
    }
  }

  ReadSummary summary_;
  Framing framing_;
  const std::string& label_;
  Visitor& visitor_;
  model::Diagnostics& diagnostics_;
  Session session_;
  std::unordered_map<std::uint32_t, std::size_t> device_index_;  // device id -> index in session_.devices
  std::vector<std::shared_ptr<const std::string>> strings_;  // the string tables, concatenated in block order
  // Bytes of metric names the results kept so far name (their launches copy
  // them), and how many the file may name: kMaxNameBytesPerFileByte per byte
  // of it, at least kMinNameBudgetBytes.
  std::uint64_t name_bytes_ = 0;
  std::uint64_t name_budget_ = 0;
  bool over_name_budget_ = false;
  std::string buffer_;
  google::protobuf::Arena arena_;
  std::size_t replaced_ = 0;
};

}  // namespace

const Value* MetricEntry::Scalar() const {
  const bool empty_text = value && value->text && value->text->empty() && !value->number;
  if (value && !value->empty() && !empty_text) return &*value;
  if (instances.size() == 1 && !instances[0].value.empty()) return &instances[0].value;
  return value && !value->empty() ? &*value : nullptr;
}

const MetricEntry* ProfileResult::FindMetric(std::string_view name) const {
  for (const auto& m : metrics) {
    if (m.name() == name) return &m;
  }
  return nullptr;
}

std::vector<NvtxStackFrame> ProfileResult::LaunchStack() const {
  std::vector<NvtxStackFrame> frames;
  for (const auto& stack : nvtx_push_pop) {
    if (thread_id && stack.thread_id != *thread_id) continue;
    frames.insert(frames.end(), stack.frames.begin(), stack.frames.end());
  }
  return frames;
}

const Value* Device::Find(std::string_view attribute) const {
  for (const auto& a : attributes) {
    if (a.name == attribute) return &a.value;
  }
  return nullptr;
}

std::string Session::NcuVersion() const {
  for (const auto& [provider, version] : versions) {
    if (provider == "Nsight Compute Target") return version;
  }
  return {};
}

Result<ReadSummary> Read(std::istream& in, std::uint64_t file_size, const std::string& label, Visitor& visitor,
                         model::Diagnostics& diagnostics) {
  return ReportReader(in, file_size, label, visitor, diagnostics).Run();
}

}  // namespace llmpo::ingest::ncurep

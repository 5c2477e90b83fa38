// PyTorch profiler (Kineto) Chrome traces: `.json`, `.json.gz`, and tar
// archives holding one trace per rank. Each trace is streamed into compact
// records (trace_reader), then linked and pushed into the sink (attribution).
#include <archive.h>
#include <archive_entry.h>
#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <vector>

#include "src/core/usable_cpus.h"
#include "src/core/utf8.h"
#include "src/ingest/api_call_sums.h"
#include "src/ingest/importer.h"
#include "src/ingest/kineto/attribution.h"
#include "src/ingest/kineto/byte_source.h"
#include "src/ingest/kineto/trace_reader.h"

namespace llmpo::ingest {
namespace {

using kineto::ByteSource;

bool Contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

bool IsTarHeader(std::string_view bytes) { return bytes.size() >= 262 && bytes.substr(257, 5) == "ustar"; }

// The first bytes of a gzip stream, inflated (as much as `head` allows, up
// to 1 MiB), in 64 KiB steps: it stops once `enough` says what comes after
// cannot change the answer (a head is looked at several times per input).
std::string InflateHead(std::string_view head, const std::function<bool(std::string_view)>& enough) {
  constexpr std::size_t kMax = std::size_t{1} << 20, kStep = std::size_t{1} << 16;
  std::string out;
  z_stream z{};
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) return "";
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(head.data()));
  z.avail_in = static_cast<uInt>(head.size());
  while (out.size() < kMax) {
    const std::size_t had = out.size();
    out.resize(had + kStep);
    z.next_out = reinterpret_cast<Bytef*>(out.data() + had);
    z.avail_out = static_cast<uInt>(kStep);
    const int rc = inflate(&z, Z_SYNC_FLUSH);
    out.resize(out.size() - z.avail_out);
    if (rc != Z_OK || z.avail_out != 0 || enough(out)) break;  // the end, damage, input used up, or sure
  }
  inflateEnd(&z);
  return out;
}

// A tar whose first members (as far as `head` reaches) include a
// `.json.gz`: its traces cannot be seen compressed, so the name decides.
bool TarHeadHasGzipJson(std::string_view head) {
  constexpr std::size_t kBlock = 512;
  for (std::size_t at = 0; at + kBlock <= head.size();) {
    const std::string_view header = head.substr(at, kBlock);
    const std::string_view name = header.substr(0, header.substr(0, 100).find('\0'));
    if (name.empty()) return false;
    if (name.ends_with(".json.gz")) return true;
    std::uint64_t size = 0;  // octal, at byte 124
    for (char c : header.substr(124, 12)) {
      if (c >= '0' && c <= '7') size = size * 8 + static_cast<std::uint64_t>(c - '0');
    }
    at += kBlock + (size + kBlock - 1) / kBlock * kBlock;
  }
  return false;
}

// The keys of the top-level object that starts `text` (at its '{'), as far
// as the text goes: a head may end anywhere. `open`: the object does not end
// in it.
std::vector<std::string_view> TopLevelKeys(std::string_view text, bool& open) {
  std::vector<std::string_view> keys;
  int depth = 0;
  bool expect_key = false;
  open = true;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') {
      const std::size_t start = ++i;
      for (; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\') ++i;  // an escaped byte
      }
      if (i >= text.size()) break;  // the head ends inside a string
      if (depth == 1 && expect_key) keys.push_back(text.substr(start, i - start));
      expect_key = false;
    } else if (c == '{' || c == '[') {
      ++depth;
      expect_key = c == '{' && depth == 1;
    } else if (c == '}' || c == ']') {
      if (--depth <= 0) {
        open = false;
        break;
      }
    } else if (c == ',') {
      expect_key = depth == 1;
    }
  }
  return keys;
}

// Top-level keys only PyTorch's profiler (Kineto) writes, in the order it
// writes them: a trace may hold 64 KiB of them (the properties of many GPUs,
// run metadata) before traceEvents.
bool IsKinetoKey(std::string_view key) {
  static constexpr std::string_view kKeys[] = {
      "traceEvents",   "schemaVersion",        "deviceProperties",    "distributedInfo", "baseTimeNanoseconds",
      "cupti_version", "cuda_runtime_version", "cuda_driver_version", "record_shapes",   "with_stack",
      "with_modules",  "profile_memory",       "with_flops"};
  return std::find(std::begin(kKeys), std::end(kKeys), key) != std::end(kKeys);
}

// A JSON object whose top-level keys so far include one of Kineto's, or one
// still open where the head ends with Chrome trace events in it.
bool LooksLikeKinetoObject(std::string_view text) {
  bool open = true;
  const auto keys = TopLevelKeys(text, open);
  if (std::any_of(keys.begin(), keys.end(), IsKinetoKey)) return true;
  return open && Contains(text, "\"ph\"") && Contains(text, "\"ts\"");
}

// `settled_only`: by the clauses alone that more text cannot undo (not the
// guess from an object's keys and events so far), for a head looked at in
// steps.
bool LooksLikeTraceText(std::string_view text, bool settled_only = false) {
  std::size_t i = 0;
  if (text.starts_with("\xEF\xBB\xBF")) i = 3;
  while (i < text.size() && (text[i] == ' ' || text[i] == '\n' || text[i] == '\r' || text[i] == '\t')) ++i;
  if (i == text.size()) return false;
  if (text[i] == '{') {
    return Contains(text, "\"traceEvents\"") || Contains(text, "\"schemaVersion\"") ||
           (!settled_only && LooksLikeKinetoObject(text.substr(i)));
  }
  if (text[i] == '[') return Contains(text, "\"ph\"") && Contains(text, "\"ts\"");
  return false;
}

// How far a compressed archive (.tar.gz) may inflate, all members
// together: libarchive inflates it, and the gzip bomb limit holds for it as
// for a .json.gz (kineto::InflateLimit of the archive's size).
struct ArchiveLimit {
  bool compressed = false;
  std::uint64_t file_bytes = 0;
  std::uint64_t limit = 0;
};

// Whether the archive inflated past its limit; `error` says how far.
bool PastArchiveLimit(archive* a, const ArchiveLimit& limit, std::string& error) {
  if (!limit.compressed) return false;
  const auto inflated = static_cast<std::uint64_t>(archive_filter_bytes(a, 0));
  if (inflated <= limit.limit) return false;
  error = fmt::format("the archive inflates past {} bytes ({} compressed bytes); refused as a likely gzip bomb",
                      limit.limit, limit.file_bytes);
  return true;
}

// An archive member, read through libarchive in chunks of a fixed size from
// its first byte, whatever the caller asks for, and each request filled
// whole (short only at the end). libarchive drops the bytes of a call that
// fails (a tar cut short) or that takes the archive past its gzip limit, so
// what a member yields then depends only on those chunks: a member read
// whole and parsed later (MemberInputs::Defer) gives what it gives read in
// place.
class ArchiveMemberSource : public ByteSource {
 public:
  ArchiveMemberSource(archive* a, const ArchiveLimit& limit) : a_(a), limit_(limit), chunk_(kChunkBytes) {}
  std::size_t Read(char* buffer, std::size_t size) override {
    std::size_t got = 0;
    while (got < size) {
      if (at_ == held_ && !Fetch()) break;
      const std::size_t n = std::min(size - got, held_ - at_);
      std::memcpy(buffer + got, chunk_.data() + at_, n);
      at_ += n;
      got += n;
    }
    return got;
  }
  // Reads a member that is not a trace to its end, keeping nothing (letting
  // libarchive skip it would inflate it whole without a check).
  void Drain() {
    while (Fetch()) {
    }
  }

 private:
  static constexpr std::size_t kChunkBytes = std::size_t{1} << 16;

  // The next chunk into chunk_; false at the end, on an error or past the limit.
  bool Fetch() {
    at_ = held_ = 0;
    if (done_) return false;
    const la_ssize_t got = archive_read_data(a_, chunk_.data(), chunk_.size());
    if (PastArchiveLimit(a_, limit_, error_)) {
      over_limit_ = done_ = true;
      return false;
    }
    if (got > 0) {
      held_ = static_cast<std::size_t>(got);
      return true;
    }
    done_ = true;
    if (got < 0) error_ = archive_error_string(a_) != nullptr ? archive_error_string(a_) : "archive read error";
    return false;
  }

  archive* a_;
  const ArchiveLimit& limit_;
  std::vector<char> chunk_;
  std::size_t at_ = 0, held_ = 0;
  bool done_ = false;
};

// A plain trace file from this size up is read by two threads when the
// process may run on two CPUs or more (bench/RESULTS.md, "Kineto traces").
constexpr std::uint64_t kSplitFromBytes = std::uint64_t{64} << 20;

// Each byte of a name that is not UTF-8 becomes U+FFFD, so every report gets
// text; how many is said once per trace (invalid_utf8).
void RepairNames(kineto::TraceStore& store, const std::string& label, ImportContext& ctx) {
  const std::size_t replaced = store.names.ReplaceInvalidUtf8() + store.threads.ReplaceInvalidUtf8();
  if (replaced == 0) return;
  ctx.diagnostics.Add(model::Diag::invalid_utf8,
                      fmt::format("{}: {} byte(s) of names are not UTF-8; each shown as U+FFFD", label, replaced));
}

// The trace's cuda_runtime / cuda_driver calls, added to the input's sums.
void SumApiCalls(const kineto::TraceStore& store, ApiCallSums& sums) {
  for (const auto& call : store.calls) {
    if (call.end >= call.start) sums.Add(store.names[call.name], static_cast<double>(call.end - call.start));
  }
}

// Reads one trace; false when nothing usable came out of it. Its API calls
// go into `api`: the trace's own rows, or (an archive read as one input)
// the ranks' calls added up; `rank`, when given, gets the trace's rank.
bool ImportOneTrace(ByteSource& source, const std::string& label, ImportContext& ctx, ApiCallSums& api,
                    const kineto::SplitRead* split = nullptr, std::optional<std::int64_t>* rank = nullptr) {
  kineto::TraceStore store;
  const kineto::ReadOutcome read =
      kineto::ReadTrace(source, store, ctx.diagnostics, label, kineto::kDefaultBufferBytes, true, split);
  if (!read.error.empty()) {
    store.cut_short = true;
    ctx.diagnostics.Add(model::Diag::kineto_json_error,
                        fmt::format("{}: {} (the JSON text is damaged or cut short; the {} events before it are "
                                    "kept)",
                                    label, read.error, store.events));
  }
  if (store.events == 0 && !read.error.empty()) return false;
  RepairNames(store, label, ctx);
  SumApiCalls(store, api);  // before EmitTrace, which drops the calls
  if (rank != nullptr) *rank = store.rank;
  kineto::EmitTrace(store, label, ctx);
  return true;
}

// A gzip stream that inflated past its limit (kineto::InflateLimit): an
// input error naming the limit and how to raise it, not a trace cut short.
Status InflateRefusal(const ByteSource& source, const std::string& label) {
  if (!source.over_limit()) return OkStatus();
  return MakeError(ExitStatus::kInput, fmt::format("{}: {}", label, source.error()))
      .WithNote(fmt::format("a gzip stream may inflate to at most max(1 GiB, {} x its compressed size), against gzip "
                            "bombs; for a larger trace, raise the limit with {}=BYTES (docs/security.md)",
                            kineto::kInflateRatio, kineto::kInflateLimitVariable));
}

// A member's name: as UTF-8 where the archive says (pax), else as stored,
// any byte that is not UTF-8 shown as U+FFFD (it names the rank's input).
std::string MemberName(archive_entry* entry) {
  const char* utf8 = archive_entry_pathname_utf8(entry);
  const char* raw = utf8 != nullptr ? utf8 : archive_entry_pathname(entry);
  std::string name = raw != nullptr ? raw : "?";
  ReplaceInvalidUtf8(name);
  return name;
}

// libarchive's message about its last error; it may have none (null).
std::string ArchiveError(archive* a) {
  const char* message = archive_error_string(a);
  return message != nullptr ? message : "libarchive gives no reason; the file may be damaged or cut short";
}

struct ArchiveCloser {
  void operator()(archive* a) const { archive_read_free(a); }
};

// A member read whole into memory, for MemberInputs::Defer; the source's
// error, if reading stopped early, goes with the bytes (the member's parse
// then says it as it would have said it reading in place).
struct MemberBytes {
  kineto::PageBuffer bytes;
  std::string error;
};

// Every byte to the member's end, as an in-place read drains it (the same
// calls to libarchive, so the same limit checks and errors).
MemberBytes ReadWhole(ArchiveMemberSource& source, kineto::PageBuffer pages) {
  MemberBytes out{std::move(pages), {}};
  std::size_t got = 0;
  while (got < out.bytes.size()) {
    const std::size_t n = source.Read(out.bytes.data() + got, out.bytes.size() - got);
    if (n == 0) break;
    got += n;
  }
  out.bytes.Shrink(got);
  source.Drain();  // the call that finds the member's end
  out.error = source.error();
  return out;
}

// The parse of a deferred member: what ImportArchive does with a member in
// place, on bytes read before.
MemberInputs::DeferredRead ParseLater(MemberBytes member, bool gzip, std::string label) {
  // Shared: a std::function is copyable, the pages are not.
  auto held = std::make_shared<MemberBytes>(std::move(member));
  return [held, gzip, label = std::move(label)](ImportContext& into) {
    std::unique_ptr<ByteSource> bytes = kineto::MemorySource(std::move(held->bytes), std::move(held->error));
    std::unique_ptr<ByteSource> inflated = gzip ? kineto::GunzipSource(*bytes) : nullptr;
    ApiCallSums own;
    std::optional<std::int64_t> rank;
    MemberInputs::Outcome outcome;
    outcome.read = ImportOneTrace(inflated ? *inflated : *bytes, label, into, own, nullptr, &rank);
    if (outcome.read) own.Emit(into, rank);
    if (inflated) {
      if (Status refused = InflateRefusal(*inflated, label); !refused.ok())
        outcome.refusal = std::move(refused).error();
    }
    return outcome;
  };
}

// Pages for the member when it may be read whole now and parsed later
// (DeferBytes); none (size 0) when it is read in place.
kineto::PageBuffer DeferPages(archive_entry* entry, const ImportContext& ctx) {
  if (ctx.members == nullptr || !archive_entry_size_is_set(entry)) return {};
  const std::uint64_t most = ctx.members->DeferBytes();
  const la_int64_t size = archive_entry_size(entry);
  if (most == 0 || size <= 0 || static_cast<std::uint64_t>(size) > most) return {};
  return kineto::PageBuffer(static_cast<std::size_t>(size));  // empty if the pages cannot be had
}

// Every member of an opened archive; `traces` counts those read in place.
Status ReadMembers(archive* a, const ArchiveLimit& limit, ImportContext& ctx, ApiCallSums& api, int& traces, int& rc) {
  archive_entry* entry = nullptr;
  // ARCHIVE_WARN: the entry is whole, but something in its header could not
  // be converted: a pax tar's UTF-8 member name, which libarchive cannot
  // turn into the "C" locale's ASCII (Python's tarfile writes pax by
  // default). The name is read as UTF-8 instead.
  while ((rc = archive_read_next_header(a, &entry)) == ARCHIVE_OK || rc == ARCHIVE_WARN) {
    if (ctx.members != nullptr && ctx.members->Stopped()) break;  // a deferred member was refused
    ArchiveMemberSource source(a, limit);
    const std::string member = MemberName(entry);
    const bool gzip = member.ends_with(".json.gz");
    const bool regular = archive_entry_filetype(entry) == AE_IFREG;
    if (regular && !member.ends_with(".json") && !gzip) {
      const std::string note =
          fmt::format("{}: member '{}' is not a .json or .json.gz trace; not read", ctx.source, model::Excerpt(member));
      if (ctx.members == nullptr || !ctx.members->Note(note)) ctx.diagnostics.Note(note);
    }
    if (!regular || (!member.ends_with(".json") && !gzip)) {
      source.Drain();
      RETURN_IF_ERROR(InflateRefusal(source, ctx.source));
      continue;
    }
    const std::string label = ctx.source + ":" + member;
    if (kineto::PageBuffer pages = DeferPages(entry, ctx); pages.size() > 0) {
      ctx.members->Defer(label, ParseLater(ReadWhole(source, std::move(pages)), gzip, label));
      RETURN_IF_ERROR(InflateRefusal(source, ctx.source));
      continue;
    }
    std::unique_ptr<ByteSource> inflated = gzip ? kineto::GunzipSource(source) : nullptr;
    if (ctx.members == nullptr) {
      if (ImportOneTrace(inflated ? *inflated : source, label, ctx, api)) ++traces;
    } else {  // an input of its own, with its own API call rows
      ImportContext& into = ctx.members->Begin(label);
      ApiCallSums own;
      std::optional<std::int64_t> rank;
      const bool read = ImportOneTrace(inflated ? *inflated : source, label, into, own, nullptr, &rank);
      if (read) own.Emit(into, rank);
      ctx.members->End(read);
      if (read) ++traces;
    }
    // What the parse left of the member (after the JSON's end, or a gzip
    // stream's) is read too: checked against the archive's gzip limit, and
    // the same calls to libarchive as a member read whole.
    source.Drain();
    if (inflated) RETURN_IF_ERROR(InflateRefusal(*inflated, label));
    RETURN_IF_ERROR(InflateRefusal(source, ctx.source));
  }
  return OkStatus();
}

Status ImportArchive(const std::filesystem::path& file, ImportContext& ctx) {
  std::unique_ptr<archive, ArchiveCloser> a(archive_read_new());
  archive_read_support_filter_all(a.get());
  archive_read_support_format_tar(a.get());
  if (archive_read_open_filename(a.get(), file.c_str(), 1 << 20) != ARCHIVE_OK) {
    return MakeError(ExitStatus::kInput,
                     fmt::format("{}: cannot read the archive: {}", ctx.source, ArchiveError(a.get())));
  }
  std::error_code size_error;
  ArchiveLimit limit;
  limit.compressed = archive_filter_code(a.get(), 0) != ARCHIVE_FILTER_NONE;
  limit.file_bytes = std::filesystem::file_size(file, size_error);
  if (size_error) limit.file_bytes = 0;
  limit.limit = kineto::InflateLimitOrOverride(limit.file_bytes);
  int traces = 0;
  int rc = 0;
  ApiCallSums api;
  Status read = ReadMembers(a.get(), limit, ctx, api, traces, rc);
  if (ctx.members != nullptr) {  // the deferred members come before whatever stopped the loop
    MemberInputs::Settled settled = ctx.members->Settle();
    traces += settled.read;
    for (const std::string& note : settled.notes) ctx.diagnostics.Note(note);
    if (settled.refusal) return std::move(*settled.refusal);
  }
  RETURN_IF_ERROR(std::move(read));
  if (rc != ARCHIVE_EOF) {
    ctx.diagnostics.Add(model::Diag::kineto_json_error,
                        fmt::format("{}: the archive is damaged or cut short ({}); the {} trace(s) before it are kept",
                                    ctx.source, ArchiveError(a.get()), traces));
  }
  if (traces == 0) {
    return MakeError(ExitStatus::kInput, fmt::format("{}: an archive without a readable Kineto trace", ctx.source));
  }
  if (ctx.members == nullptr) api.Emit(ctx);
  return OkStatus();
}

// Whether the (inflated) bytes of `source` start with a tar header: its
// first 512-byte block, read.
bool StartsWithTarHeader(ByteSource& source) {
  char first[512];
  std::size_t got = 0;
  while (got < sizeof first) {
    const std::size_t n = source.Read(first + got, sizeof first - got);
    if (n == 0) break;
    got += n;
  }
  return IsTarHeader(std::string_view(first, got));
}

}  // namespace

bool IsKinetoArchive(const std::filesystem::path& file) {
  std::string why;
  std::unique_ptr<ByteSource> source = kineto::OpenFileSource(file.string(), why, kineto::kGzipPeekBuffer);
  return source && StartsWithTarHeader(*source);
}

// True only where LooksLikeTraceText is true of `text` and of any longer
// text it begins: one of the clauses that more text cannot undo.
bool SurelyTraceText(std::string_view text) { return !IsTarHeader(text) && LooksLikeTraceText(text, true); }

bool LooksLikeKinetoTrace(std::string_view head) {
  const std::string inflated =
      kineto::IsGzip(head.data(), head.size()) ? InflateHead(head, SurelyTraceText) : std::string();
  const std::string_view text = inflated.empty() ? head : std::string_view(inflated);
  if (IsTarHeader(text)) {
    return Contains(text, "\"traceEvents\"") || TarHeadHasGzipJson(text) || LooksLikeTraceText(text.substr(512));
  }
  return LooksLikeTraceText(text);
}

Status ImportKinetoTrace(const std::filesystem::path& file, ImportContext& ctx) {
  std::string why;
  std::unique_ptr<ByteSource> source = kineto::OpenFileSource(file.string(), why, kineto::kGzipPeekBuffer);
  if (!source) return MakeError(ExitStatus::kInput, fmt::format("{}: {}", ctx.source, why));
  if (StartsWithTarHeader(*source)) return ImportArchive(file, ctx);
  source = kineto::OpenFileSource(file.string(), why);  // start again from byte 0
  if (!source) return MakeError(ExitStatus::kInput, fmt::format("{}: {}", ctx.source, why));
  std::error_code size_error;
  const std::uintmax_t size = std::filesystem::file_size(file, size_error);
  // One CPU: one thread, but the records are still reserved from the size.
  const kineto::SplitRead split{file.string(), size_error ? 0 : size,
                                UsableCpus() >= 2 ? kSplitFromBytes : std::numeric_limits<std::uint64_t>::max()};
  ApiCallSums api;
  std::optional<std::int64_t> rank;
  const bool read = ImportOneTrace(*source, ctx.source, ctx, api, &split, &rank);
  RETURN_IF_ERROR(InflateRefusal(*source, ctx.source));
  if (read) api.Emit(ctx, rank);
  if (!read) {
    return MakeError(ExitStatus::kInput, fmt::format("{}: no event could be read from the trace", ctx.source))
        .WithNote(
            "check that the file is a whole PyTorch profiler trace (export_chrome_trace / tensorboard_trace_handler)");
  }
  return OkStatus();
}

}  // namespace llmpo::ingest

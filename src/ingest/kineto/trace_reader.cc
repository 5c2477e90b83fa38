#include "src/ingest/kineto/trace_reader.h"

#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cstring>
#include <functional>
#include <future>
#include <limits>
#include <thread>
#include <type_traits>

#include "src/ingest/kineto/event_scan.h"
#include "src/ingest/kineto/json_pull.h"
#include "src/ingest/kineto/structural_index.h"
#include "src/ingest/kineto/swar.h"

namespace llmpo::ingest::kineto {
namespace {

using namespace std::string_view_literals;

// Appends `from` to `into` (each record through `fix`), giving the pages of
// `from` already copied back to the system as it goes: the second thread's
// records are half a big trace, and holding both copies at once would make
// the end of the read the import's peak of memory. `from` is left empty.
template <typename T, typename Fix>
void AppendReleasing(std::vector<T>& into, std::vector<T>& from, Fix fix) {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);
  const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  const std::size_t step = std::max<std::size_t>(1, (std::size_t{1} << 20) / sizeof(T));
  const auto base = reinterpret_cast<std::uintptr_t>(from.data());
  std::uintptr_t released = (base + page - 1) / page * page;  // pages wholly inside `from` only
  for (std::size_t i = 0; i < from.size(); ++i) {
    T record = from[i];
    fix(record);
    into.push_back(record);
    if ((i + 1) % step != 0) continue;
    const std::uintptr_t copied = (base + (i + 1) * sizeof(T)) / page * page;
    if (copied <= released) continue;
    madvise(reinterpret_cast<void*>(released), copied - released, MADV_DONTNEED);  // never read again
    released = copied;
  }
  std::vector<T>().swap(from);
}

// One event's fields of interest, as text; reused from event to event so
// the strings keep their capacity.
struct RawEvent {
  std::string ph, cat, name, pid, tid, ts, dur;
  std::string correlation, external_id, device, stream;
  bool has_ts = false, has_dur = false;
  bool skipped = false;  // read past: not a duration event, or an ignored category
  void Clear() {
    ph.clear();
    cat.clear();
    name.clear();
    pid.clear();
    tid.clear();
    ts.clear();
    dur.clear();
    correlation.clear();
    external_id.clear();
    device.clear();
    stream.clear();
    has_ts = has_dur = skipped = false;
  }
  EventFields View() const {
    return EventFields{ph,          cat,         name,   pid,    tid,    ts,      dur,
                       correlation, external_id, device, stream, has_ts, has_dur, skipped};
  }
};

enum class Category {
  kKernel,
  kMemcpy,
  kMemset,
  kSync,
  kCall,
  kCpuOp,
  kAnnotation,
  kGpuAnnotation,
  kIgnored,
  kUnknown
};

Category Classify(const EventFields& e) {
  const std::string_view c = e.cat;
  if (c == "kernel"sv || c == "Kernel"sv) return Category::kKernel;
  if (c == "gpu_memcpy"sv || c == "Memcpy"sv) return Category::kMemcpy;
  if (c == "gpu_memset"sv || c == "Memset"sv) return Category::kMemset;
  if (c == "cuda_sync"sv) return Category::kSync;
  if (c == "cuda_runtime"sv || c == "cuda_driver"sv || c == "Runtime"sv) return Category::kCall;
  if (c == "cpu_op"sv) return Category::kCpuOp;
  if (c == "user_annotation"sv) return Category::kAnnotation;
  if (c == "Operator"sv) {  // before 2021-06, record_function ranges were Operator events too
    const bool op = e.name.find("::") != std::string_view::npos && !e.name.starts_with("ProfilerStep#");
    return op ? Category::kCpuOp : Category::kAnnotation;
  }
  if (c == "gpu_user_annotation"sv) return Category::kGpuAnnotation;
  if (IsIgnoredCategory(c)) return Category::kIgnored;
  return Category::kUnknown;
}

template <typename T>
std::optional<T> Parse(std::string_view text) {
  T value{};
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return value;
}

// The second half of a file split in two (ReadTrace's `split`): read by its
// own thread from the first event start found after the middle of the file
// to the end of the event list, into a store of its own.
struct Tail {
  TraceStore store;
  model::Diagnostics diagnostics;
  std::uint64_t start = 0;  // the offset of its first event's '{'; 0: no split
  std::uint64_t end = 0;    // just past the event list's ']'
  std::string error;        // a syntax error in the half (the sequential read would stop there too)
  bool finished = false;    // reached the ']' or the error
};

class Reader {
 public:
  Reader(ByteSource& source, TraceStore& store, model::Diagnostics& diagnostics, const std::string& label,
         std::size_t buffer_bytes, bool indexed, std::uint64_t base = 0)
      : json_(source, buffer_bytes, base), fast_(indexed), store_(store), diagnostics_(diagnostics), label_(label) {}

  // The first thread's side of a split: at the tail's start it takes the
  // tail's events and goes on after the event list.
  void JoinAt(Tail* tail, const std::function<void(bool)>* join) {
    tail_ = tail;
    join_ = join;
  }
  bool took_tail() const { return took_tail_; }

  // The second thread's side: finds an event start in the first buffer
  // after `from` (a '{' after a ',' that opens an object with a key), then
  // reads events to the end of their list. Gives the start to `started`
  // first (0 when none was found) and stops early when `cancel` is set.
  void ReadTailFrom(std::uint64_t from, const std::atomic<bool>& cancel,
                    const std::function<void(std::uint64_t)>& started, Tail& out) {
    const std::uint64_t start = FindEventStart(from);
    started(start);
    if (start == 0) return;
    cancel_ = &cancel;  // out.start is the first thread's to set (from `started`)
    const bool ok = ReadEventList();
    if (cancel.load(std::memory_order_relaxed)) return;
    out.error = json_.error();
    out.end = json_.offset();
    out.finished = ok || !out.error.empty();
  }

  ReadOutcome Run() {
    const char first = json_.Peek();
    if (first == '[') {
      store_.array_form = true;
      ReadEvents();
    } else if (first == '{') {
      ReadTopObject();
    } else {
      json_.Fail("expected '{' or '[' at the start of a Chrome trace");
    }
    return ReadOutcome{json_.error()};
  }

 private:
  void ReadTopObject() {
    json_.Consume('{');
    if (json_.Consume('}')) return;
    std::string key;
    do {
      if (!json_.ReadString(key) || !json_.Expect(':', "':'")) return;
      bool ok = true;
      if (key == "traceEvents"sv) {
        ok = ReadEvents();
      } else if (key == "baseTimeNanoseconds"sv) {
        ok = json_.ReadScalar(text_, is_string_);
        if (ok) store_.base_ns = Parse<std::int64_t>(text_);
      } else if (key == "distributedInfo"sv && json_.Peek() == '{') {
        ok = ReadDistributedInfo();
      } else {
        ok = json_.SkipValue();
      }
      if (!ok) return;
    } while (json_.Consume(','));
    json_.Expect('}', "',' or '}' after a top-level value");
  }

  bool ReadDistributedInfo() {
    json_.Consume('{');
    if (json_.Consume('}')) return true;
    std::string key;
    do {
      if (!json_.ReadString(key) || !json_.Expect(':', "':'")) return false;
      if ((key == "rank"sv || key == "world_size"sv) && json_.Peek() != '{' && json_.Peek() != '[') {
        if (!json_.ReadScalar(text_, is_string_)) return false;
        (key == "rank"sv ? store_.rank : store_.world_size) = Parse<std::int64_t>(text_);
      } else if (!json_.SkipValue()) {
        return false;
      }
    } while (json_.Consume(','));
    return json_.Expect('}', "',' or '}' in distributedInfo");
  }

  bool ReadEvents() {
    if (!json_.Expect('[', "'[' starting the event list")) return false;
    if (json_.Consume(']')) return true;
    const bool ok = ReadEventList();
    if (tail_ != nullptr) (*join_)(false);  // the split point was not an event of this list
    tail_ = nullptr;
    return ok;
  }

  // From an element of the event list to just past its ']'.
  bool ReadEventList() {
    do {
      if (cancel_ != nullptr && cancel_->load(std::memory_order_relaxed)) return false;
      const char next = json_.Peek();
      if (tail_ != nullptr && json_.offset() >= tail_->start) {
        if (json_.offset() == tail_->start && next == '{') return TakeTail();
        (*join_)(false);  // passed it: the guess was not an event start
        tail_ = nullptr;
      }
      if (next != '{') {
        if (!json_.SkipValue()) return false;
        continue;
      }
      const std::uint64_t position = json_.offset();
      if (!fast_ || !ScanIndexed()) {
        if (!ReadEvent()) return false;
        fields_ = event_.View();
      }
      Store(position);
    } while (NextElement());
    return json_.Expect(']', "',' or ']' after an event");
  }

  // The ',' after an event and the white space around it, as
  // json_.Consume(',') takes them, through the index while it covers them.
  bool NextElement() {
    if (indexed_ && index_generation_ == json_.generation()) {
      const char* t = json_.data();
      const std::size_t n = index_.limit();
      std::size_t p = json_.pos();
      if (p < n && IsJsonSpace(t[p])) p = index_.NextNonSpace(p);
      if (p < n && t[p] == ',') {
        if (const std::size_t next = index_.NextNonSpace(p + 1); next < n) {
          json_.set_pos(next);
          return true;
        }
      }
    }
    return json_.Consume(',');
  }

  // The tail starts exactly here, at an event of the list: its events are
  // the rest of the list. Reading goes on after the list's ']', or stops at
  // the tail's syntax error, as reading on alone would have.
  bool TakeTail() {
    Tail& tail = *tail_;
    tail_ = nullptr;
    took_tail_ = true;
    (*join_)(true);
    if (!tail.finished) return json_.Fail("the second reading thread stopped early");
    AppendStore(std::move(tail.store));
    diagnostics_.Merge(tail.diagnostics);
    if (!tail.error.empty()) {
      json_.SetError(tail.error);
      return false;
    }
    return json_.Restart(tail.end);
  }

  void AppendStore(TraceStore&& tail) {
    std::vector<std::uint32_t> names(tail.names.size()), threads(tail.threads.size());
    for (std::uint32_t i = 0; i < names.size(); ++i) names[i] = store_.names.Intern(tail.names[i]);
    for (std::uint32_t i = 0; i < threads.size(); ++i) threads[i] = store_.threads.Intern(tail.threads[i]);
    store_.gpu_ops.reserve(store_.gpu_ops.size() + tail.gpu_ops.size());
    store_.calls.reserve(store_.calls.size() + tail.calls.size());
    store_.cpu_ops.reserve(store_.cpu_ops.size() + tail.cpu_ops.size());
    store_.annotations.reserve(store_.annotations.size() + tail.annotations.size());
    std::vector<std::uint32_t> lanes(tail.lanes.size());
    for (std::uint32_t i = 0; i < lanes.size(); ++i) lanes[i] = store_.lanes.Intern(tail.lanes[i]);
    AppendReleasing(store_.gpu_ops, tail.gpu_ops, [&](GpuOp& op) {
      op.name = names[op.name];
      op.lane = lanes[op.lane];
    });
    AppendReleasing(store_.calls, tail.calls, [&](HostCall& call) {
      call.name = names[call.name];
      call.thread = threads[call.thread];
    });
    const auto fix_span = [&](auto& span) {
      span.name = names[span.name];
      span.thread = threads[span.thread];
    };
    AppendReleasing(store_.cpu_ops, tail.cpu_ops, fix_span);
    AppendReleasing(store_.annotations, tail.annotations, fix_span);
    store_.events += tail.events;
    store_.gpu_user_annotations += tail.gpu_user_annotations;
    if (store_.os_pid.empty()) store_.os_pid = tail.os_pid;
  }

  // A likely event start in the first buffer from the read position: past
  // the first newline (which no JSON string holds, so the bytes after it are
  // outside strings), a '{' after a ',' whose first byte inside is a quote,
  // the first whose first key is "ph" if any. 0 when there is none. Only a
  // guess: the first thread checks it.
  std::uint64_t FindEventStart(std::uint64_t from) {
    while (json_.len() < kGuessWindow && json_.Compact(kGuessWindow)) {
    }
    const char* t = json_.data();
    const std::size_t n = json_.len();
    const char* newline = static_cast<const char*>(std::memchr(t, '\n', n));
    if (newline == nullptr) return 0;
    const std::size_t after = static_cast<std::size_t>(newline - t) + 1;
    index_.Build(t, after, n);
    std::size_t guess = 0;
    for (std::size_t p = index_.NextBracket(after); p < n; p = index_.NextBracket(p + 1)) {
      if (t[p] != '{') continue;
      std::size_t before = p;
      while (before > after && IsJsonSpace(t[before - 1])) --before;
      const std::size_t inside = index_.NextNonSpace(p + 1);
      if (before > after && t[before - 1] == ',' && inside < n && t[inside] == '"') {
        if (guess == 0) guess = p;
        if (n - inside > 4 && std::memcmp(t + inside, "\"ph\"", 4) == 0) {  // PyTorch writes "ph" first
          guess = p;
          break;
        }
      }
    }
    if (guess == 0) return 0;
    json_.set_pos(guess);
    return from + guess;
  }

  // The event at the read position through the structural index, when it
  // is whole in the buffer (compacting and refilling it when the event is
  // cut by its end). False leaves the position at the event for ReadEvent.
  bool ScanIndexed() {
    for (;;) {
      if (index_generation_ != json_.generation() || !indexed_) {
        index_.Build(json_.data(), json_.pos(), json_.len());
        index_generation_ = json_.generation();
        indexed_ = true;
        backslash_ = 0;
      }
      std::size_t end = 0;
      switch (ScanEvent(json_.data(), index_, json_.pos(), fields_, end, backslash_)) {
        case ScanResult::kDone:
          json_.set_pos(end);
          return true;
        case ScanResult::kOther:
          return false;
        case ScanResult::kIncomplete:
          if (!json_.Compact(kMaxIndexedBuffer)) return false;
      }
    }
  }

  bool ReadScalarInto(std::string& out) {
    if (json_.Peek() == '{' || json_.Peek() == '[') {
      out.clear();
      return json_.SkipValue();
    }
    return json_.ReadScalar(out, is_string_);
  }

  bool ReadArgs() {
    if (json_.Peek() != '{') return json_.SkipValue();
    json_.Consume('{');
    if (json_.Consume('}')) return true;
    do {
      if (!json_.ReadKey(key_)) return false;
      std::string* target = nullptr;
      if (key_.size() == 11) {
        if (key_ == "correlation"sv)
          target = &event_.correlation;
        else if (key_ == "External id"sv || key_ == "external id"sv)
          target = &event_.external_id;
      } else if (key_.size() == 6) {
        if (key_ == "device"sv)
          target = &event_.device;
        else if (key_ == "stream"sv)
          target = &event_.stream;
      }
      if (!(target ? ReadScalarInto(*target) : json_.SkipValue())) return false;
    } while (json_.Consume(','));
    return json_.Expect('}', "',' or '}' in args");
  }

  // The event keys read, by length first: one switch instead of a chain of
  // memcmp calls for every key of every event.
  std::string* EventTarget() {
    switch (key_.size()) {
      case 2:
        if (key_ == "ts"sv) return (event_.has_ts = true, &event_.ts);
        return nullptr;
      case 3:
        if (key_ == "pid"sv) return &event_.pid;
        if (key_ == "tid"sv) return &event_.tid;
        if (key_ == "dur"sv) return (event_.has_dur = true, &event_.dur);
        return nullptr;
      case 4:
        return key_ == "name"sv ? &event_.name : nullptr;
      default:
        return nullptr;
    }
  }

  bool ReadEvent() {
    event_.Clear();
    json_.Consume('{');
    if (json_.Consume('}')) return true;
    do {
      if (!json_.ReadKey(key_)) return false;
      bool ok = true;
      if (key_.size() == 2 && key_ == "ph"sv) {
        ok = ReadScalarInto(event_.ph);
        // Metadata, flows, instants: nothing to keep; pass over the rest fast.
        if (ok && event_.ph != "X"sv) return (event_.skipped = true, json_.SkipRestOfObject());
      } else if (key_.size() == 3 && key_ == "cat"sv) {
        ok = ReadScalarInto(event_.cat);
        if (ok && IsIgnoredCategory(event_.cat)) return (event_.skipped = true, json_.SkipRestOfObject());
      } else if (key_.size() == 4 && key_ == "args"sv) {
        ok = ReadArgs();
      } else if (std::string* target = EventTarget()) {
        ok = ReadScalarInto(*target);
      } else {
        ok = json_.SkipValue();
      }
      if (!ok) return false;
    } while (json_.Consume(','));
    return json_.Expect('}', "',' or '}' in an event");
  }

  void BadEvent(std::uint64_t position, model::Diag code, const char* what) {
    diagnostics_.AddLazy(code, [&] {
      return fmt::format("{}: byte {}: {} event '{}' {}; skipped", label_, position, fields_.cat,
                         model::Excerpt(fields_.name), what);
    });
  }

  // Start and end, or nullopt (reported) when the times are missing or bad.
  std::optional<std::pair<std::int64_t, std::int64_t>> Times(std::uint64_t position) {
    const auto ts = fields_.has_ts ? MicrosToNs(fields_.ts) : std::nullopt;
    const auto dur = fields_.has_dur ? MicrosToNs(fields_.dur) : std::nullopt;
    if (!ts || !dur) {
      BadEvent(position, model::Diag::kineto_bad_time, "has no readable ts or dur");
      return std::nullopt;
    }
    if (*dur < 0) {
      BadEvent(position, model::Diag::kineto_negative_duration, "ends before it starts (negative dur)");
      return std::nullopt;
    }
    return InRange(position, *ts, *dur);
  }

  // ts and ts + dur, or nullopt (reported) when either is past ±2^62 ns.
  std::optional<std::pair<std::int64_t, std::int64_t>> InRange(std::uint64_t position, std::int64_t ts,
                                                               std::int64_t dur) {
    std::int64_t end = 0;
    if (!TimeInRange(ts) || __builtin_add_overflow(ts, dur, &end) || !TimeInRange(end)) {
      BadEvent(position, model::Diag::kineto_time_out_of_range, "starts or ends past ±2^62 ns (about 146 years)");
      return std::nullopt;
    }
    return std::pair{ts, end};
  }

  std::uint32_t Thread() {
    if (store_.os_pid.empty() && Parse<std::int64_t>(fields_.pid)) store_.os_pid = fields_.pid;
    // Events come in runs of one thread: the last answer is kept.
    if (have_thread_ && fields_.pid == last_pid_ && fields_.tid == last_tid_) return thread_;
    last_pid_.assign(fields_.pid);
    last_tid_.assign(fields_.tid);
    have_thread_ = true;
    thread_key_.assign(fields_.pid).append("/").append(fields_.tid);
    return thread_ = store_.threads.Intern(thread_key_);
  }

  void StoreGpuOp(std::uint64_t position, GpuOpKind kind) {
    const auto times = Times(position);
    if (!times) return;
    GpuOp op;
    op.kind = kind;
    op.start = times->first, op.end = times->second;
    op.name = store_.names.Intern(fields_.name);
    Lane lane;
    const auto device = IdFromText(fields_.device.empty() ? fields_.pid : fields_.device);
    lane.device = device ? static_cast<std::int32_t>(*device) : -1;
    const auto stream = IdFromText(fields_.stream.empty() ? fields_.tid : fields_.stream);
    lane.stream = stream ? static_cast<std::int64_t>(*stream) : -1;
    op.lane = store_.lanes.Intern(lane);
    if (auto c = IdFromText(fields_.correlation)) op.correlation = *c, op.has_correlation = true;
    if (auto x = IdFromText(fields_.external_id)) op.external_id = *x, op.has_external_id = true;
    store_.gpu_ops.push_back(op);
  }

  void StoreCall(std::uint64_t position) {
    const auto times = Times(position);
    if (!times) return;
    HostCall call;
    call.start = times->first, call.end = times->second;
    call.name = store_.names.Intern(fields_.name);
    call.thread = Thread();
    if (auto c = IdFromText(fields_.correlation)) call.correlation = *c, call.has_correlation = true;
    store_.calls.push_back(call);
  }

  void StoreCpuOp(std::uint64_t position) {
    const auto times = Times(position);
    if (!times) return;
    CpuOp op;
    op.start = times->first, op.end = times->second;
    op.name = store_.names.Intern(fields_.name);
    op.thread = Thread();
    if (auto x = IdFromText(fields_.external_id)) op.external_id = *x, op.has_external_id = true;
    store_.cpu_ops.push_back(op);
  }

  void StoreAnnotation(std::uint64_t position) {
    // An annotation without a dur may be a range cut at the window's end:
    // attribution decides (attribution.cc, CutAnnotations).
    const auto ts = !fields_.has_dur && fields_.has_ts ? MicrosToNs(fields_.ts) : std::nullopt;
    const bool dur_missing = ts && TimeInRange(*ts);
    const auto times = dur_missing ? std::optional{std::pair{*ts, *ts}} : Times(position);
    if (!times) return;
    CpuSpan span;
    span.dur_missing = dur_missing;
    span.start = times->first, span.end = times->second;
    span.position = position;
    span.name = store_.names.Intern(fields_.name);
    span.thread = Thread();
    if (auto x = IdFromText(fields_.external_id)) span.external_id = *x, span.has_external_id = true;
    store_.annotations.push_back(span);
  }

  // Text past kMaxKeptBytes (a hostile 256 MiB name or ts) is cut on a
  // character boundary, and counted: no field costs more than that.
  void CapFields(std::uint64_t position) {
    for (std::string_view* f :
         {&fields_.ph, &fields_.cat, &fields_.name, &fields_.pid, &fields_.tid, &fields_.ts, &fields_.dur,
          &fields_.correlation, &fields_.external_id, &fields_.device, &fields_.stream}) {
      if (f->size() <= kMaxKeptBytes) continue;
      std::size_t n = kMaxKeptBytes;
      while (n > 0 && (static_cast<unsigned char>((*f)[n]) & 0xC0) == 0x80) --n;
      *f = f->substr(0, n);
      diagnostics_.AddLazy(model::Diag::kineto_text_cut, [&] {
        return fmt::format("{}: byte {}: a value longer than {} bytes ('{}'); kept to its first {} bytes", label_,
                           position, kMaxKeptBytes, model::Excerpt(*f), n);
      });
    }
  }

  void Store(std::uint64_t position) {
    ++store_.events;
    diagnostics_.CountRow();
    if (fields_.skipped || fields_.ph != "X"sv) return;  // metadata, flows, instants, counters
    // No value is longer than its event's text (decoding never lengthens one).
    if (json_.offset() - position > kMaxKeptBytes) CapFields(position);
    switch (Classify(fields_)) {
      case Category::kKernel:
        return StoreGpuOp(position, GpuOpKind::kKernel);
      case Category::kMemcpy:
        return StoreGpuOp(position, GpuOpKind::kMemcpy);
      case Category::kMemset:
        return StoreGpuOp(position, GpuOpKind::kMemset);
      case Category::kSync:
        return StoreGpuOp(position, GpuOpKind::kSync);
      case Category::kCall:
        return StoreCall(position);
      case Category::kCpuOp:
        return StoreCpuOp(position);
      case Category::kAnnotation:
        return StoreAnnotation(position);
      case Category::kGpuAnnotation:
        ++store_.gpu_user_annotations;
        return;
      case Category::kIgnored:
        return;
      case Category::kUnknown:
        diagnostics_.AddLazy(model::Diag::kineto_unknown_category, [&] {
          return fmt::format("{}: byte {}: event '{}' of category '{}', which this importer does not know; ignored",
                             label_, position, model::Excerpt(fields_.name), model::Excerpt(fields_.cat));
        });
        return;
    }
  }

  // How far FindEventStart looks (the buffer grows to it when it is smaller).
  static constexpr std::size_t kGuessWindow = std::size_t{1} << 16;
  // An event longer than this is read byte by byte, in the buffer it has.
  static constexpr std::size_t kMaxIndexedBuffer = std::size_t{64} << 20;

  JsonPull json_;
  bool fast_;
  Tail* tail_ = nullptr;                             // first thread: the split point ahead
  const std::function<void(bool)>* join_ = nullptr;  // waits for the tail; false also cancels it
  const std::atomic<bool>* cancel_ = nullptr;        // second thread: stop
  bool took_tail_ = false;
  StructuralIndex index_;
  std::uint64_t index_generation_ = 0;
  bool indexed_ = false;
  std::size_t backslash_ = 0;  // ScanEvent's memory of the next backslash in the index
  EventFields fields_;
  TraceStore& store_;
  model::Diagnostics& diagnostics_;
  const std::string& label_;
  RawEvent event_;
  std::string_view key_;
  std::string text_, thread_key_;
  std::string last_pid_, last_tid_;  // the last CPU thread, whose id is thread_
  std::uint32_t thread_ = 0;
  bool have_thread_ = false;
  bool is_string_ = false;
};

}  // namespace

namespace {

// value = digits x 10^exponent microseconds, the digits as written (leading
// zeros dropped), in integer nanoseconds rounded half away from zero; nullopt
// when it does not fit an int64. `Digits` holds the significant digits: a
// std::string for any length, or a fixed buffer on the fast path.
template <typename Digits>
std::optional<std::int64_t> ToNs(bool negative, Digits& mantissa, int exponent) {
  exponent += 3;  // to nanoseconds
  bool round_up = false;
  if (exponent < 0) {  // drop digits below the nanosecond
    const auto drop = static_cast<std::size_t>(-exponent);
    if (drop > mantissa.size()) {
      mantissa.clear();
    } else {
      round_up = mantissa[mantissa.size() - drop] >= '5';
      mantissa.resize(mantissa.size() - drop);
    }
    exponent = 0;
  }
  if (mantissa.size() + static_cast<std::size_t>(exponent) > 19) return std::nullopt;
  std::uint64_t value = 0;  // at most 19 digits: fits
  for (std::size_t i = 0; i < mantissa.size(); ++i) value = value * 10 + static_cast<std::uint64_t>(mantissa[i] - '0');
  for (int k = 0; k < exponent; ++k) value *= 10;
  if (round_up) ++value;
  if (value > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return std::nullopt;
  return negative ? -static_cast<std::int64_t>(value) : static_cast<std::int64_t>(value);
}

// Up to 40 significant digits without touching the heap (timestamps have 19
// at most); longer mantissas go through a std::string.
class SmallDigits {
 public:
  bool push_back(char c) {
    if (size_ == sizeof(d_)) return false;
    d_[size_++] = c;
    return true;
  }
  std::size_t size() const { return size_; }
  char operator[](std::size_t i) const { return d_[i]; }
  void clear() { size_ = 0; }
  void resize(std::size_t n) { size_ = n; }

 private:
  char d_[40];
  std::size_t size_ = 0;
};

template <typename Digits>
std::optional<std::int64_t> ParseMicros(std::string_view text, Digits& mantissa, bool& overflow) {
  overflow = false;
  std::size_t i = 0;
  const bool negative = i < text.size() && text[i] == '-';
  if (negative || (i < text.size() && text[i] == '+')) ++i;
  int exponent = 0;
  bool dot = false;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '.' && !dot) {
      dot = true;
    } else if (c >= '0' && c <= '9') {
      if (!(mantissa.size() == 0 && c == '0') && !mantissa.push_back(c)) return (overflow = true, std::nullopt);
      if (dot) --exponent;
    } else {
      break;
    }
  }
  if (i == 0 || (i == 1 && (negative || text[0] == '+')) || (dot && i == (negative ? 2u : 1u))) return std::nullopt;
  if (i < text.size()) {
    if (text[i] != 'e' && text[i] != 'E') return std::nullopt;
    std::string_view e = text.substr(i + 1);
    if (!e.empty() && e[0] == '+') e.remove_prefix(1);
    const auto exp = Parse<int>(e);
    if (!exp || *exp > 40 || *exp < -60) return std::nullopt;
    exponent += *exp;
  }
  return ToNs(negative, mantissa, exponent);
}

struct StringDigits {
  std::string s;
  bool push_back(char c) { return s.push_back(c), true; }
  std::size_t size() const { return s.size(); }
  char operator[](std::size_t i) const { return s[i]; }
  void clear() { s.clear(); }
  void resize(std::size_t n) { s.resize(n); }
};

constexpr std::uint64_t kPow10[] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};

// The common spellings, "123" and "123.4" to "123.456" (at most 16 integer
// digits, as Kineto's microsecond timestamps since 1970 have), without the
// general path; nullopt for anything else, and for a value past
// kMaxPlainUs, which the general path checks against int64.
std::optional<std::int64_t> PlainMicrosToNs(std::string_view text) {
  const char* p = text.data();
  const std::size_t n = text.size();
  const std::size_t int_end = n < 16 ? n : 16;
  std::size_t i = 0;
  std::int64_t us = 0;  // at most 16 digits: fits
  // The leading digits eight bytes at a time while eight are left (a
  // timestamp's), the rest one by one.
  for (std::size_t k = 8; k == 8 && n - i >= 8 && i < 16;) {
    const std::uint64_t w = swar::Load8(p + i);
    k = swar::LeadingDigits(w);
    if (k == 0) break;
    us = us * static_cast<std::int64_t>(kPow10[k]) + static_cast<std::int64_t>(swar::DigitsValue(w, k));
    i += k;
  }
  for (unsigned digit = 0; i < int_end && (digit = static_cast<unsigned char>(p[i]) - '0') <= 9; ++i) {
    us = us * 10 + digit;
  }
  // Up to here us * 1000 + 999 fits an int64.
  constexpr std::int64_t kMaxPlainUs = (std::numeric_limits<std::int64_t>::max() - 999) / 1000;
  if (i == 0 || us > kMaxPlainUs) return std::nullopt;
  if (i == n) return us * 1000;
  const std::size_t decimals = n - i - 1;
  if (p[i] != '.' || decimals == 0 || decimals > 3) return std::nullopt;
  std::int64_t ns = 0;
  for (std::size_t k = i + 1; k < n; ++k) {
    const unsigned digit = static_cast<unsigned char>(p[k]) - '0';
    if (digit > 9) return std::nullopt;
    ns = ns * 10 + digit;
  }
  static constexpr std::int64_t kScale[] = {1, 100, 10, 1};  // by decimals: to nanoseconds
  return us * 1000 + ns * kScale[decimals];
}

}  // namespace

std::optional<std::int64_t> MicrosToNs(std::string_view text) {
  if (auto ns = PlainMicrosToNs(text)) return ns;
  bool overflow = false;
  SmallDigits small;
  auto ns = ParseMicros(text, small, overflow);
  if (!overflow) return ns;
  StringDigits any;
  return ParseMicros(text, any, overflow);
}

std::optional<std::uint64_t> IdFromText(std::string_view text) {
  // The usual id: 1 to 19 plain digits, which always fit.
  if (!text.empty() && text.size() <= 19) {
    std::uint64_t value = 0;
    std::size_t i = 0;
    for (unsigned digit = 0; i < text.size() && (digit = static_cast<unsigned char>(text[i]) - '0') <= 9; ++i) {
      value = value * 10 + digit;
    }
    if (i == text.size()) return value;
  }
  std::size_t begin = text.size();
  while (begin > 0 && text[begin - 1] >= '0' && text[begin - 1] <= '9') --begin;
  if (begin == text.size()) return std::nullopt;
  const bool negative = begin > 0 && text[begin - 1] == '-';
  if (begin > 0 && !negative && text[begin - 1] != ' ') return std::nullopt;  // "1.5", "0x10"
  auto value = Parse<std::uint64_t>(text.substr(begin));
  if (!value) return std::nullopt;
  return negative ? 0 - *value : *value;
}

namespace {

// Room for the records of `bytes` of JSON text, reserved up front: address
// space only (pages are touched as records arrive, so resident memory is
// what is used), and the vectors need not copy themselves to grow. Events of
// PyTorch traces take 300 bytes and more; where they take less, the vectors
// grow as usual.
void ReserveFor(std::uint64_t bytes, TraceStore& store) {
  const auto n = static_cast<std::size_t>(bytes / 300);
  store.gpu_ops.reserve(n);
  store.calls.reserve(n);
  store.cpu_ops.reserve(n);
}

}  // namespace

ReadOutcome ReadTrace(ByteSource& source, TraceStore& store, model::Diagnostics& diagnostics, const std::string& label,
                      std::size_t buffer_bytes, bool indexed, const SplitRead* split) {
  if (split != nullptr) ReserveFor(split->size, store);
  if (split == nullptr || split->size < split->min_bytes || split->size < 2 || !source.Seek(0)) {
    return Reader(source, store, diagnostics, label, buffer_bytes, indexed).Run();
  }
  std::string why;
  std::unique_ptr<ByteSource> second = OpenFileSource(split->path, why);
  const std::uint64_t middle = split->size / 2;
  if (second == nullptr || !second->Seek(middle)) {
    return Reader(source, store, diagnostics, label, buffer_bytes, indexed).Run();
  }
  Tail tail;
  std::atomic<bool> cancel{false};
  std::promise<std::uint64_t> start;
  std::future<std::uint64_t> started = start.get_future();
  ReserveFor(split->size - middle, tail.store);
  std::thread thread([&] {
    Reader(*second, tail.store, tail.diagnostics, label, buffer_bytes, indexed, middle)
        .ReadTailFrom(
            middle, cancel, [&](std::uint64_t at) { start.set_value(at); }, tail);
  });
  bool joined = false;
  const std::function<void(bool)> join = [&](bool keep) {
    if (!keep) cancel.store(true, std::memory_order_relaxed);
    if (!joined) thread.join();
    joined = true;
  };
  tail.start = started.get();
  Reader first(source, store, diagnostics, label, buffer_bytes, indexed);
  if (tail.start != 0) first.JoinAt(&tail, &join);
  ReadOutcome outcome = first.Run();
  join(false);  // not taken (the first thread stopped before the split point): discarded
  if (first.took_tail()) outcome.second_thread_from = tail.start;
  return outcome;
}

}  // namespace llmpo::ingest::kineto

#include "src/ingest/kineto/attribution.h"

#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <thread>
#include <tuple>
#include <type_traits>
#include <unordered_map>

#include "src/ingest/kineto/breakdown.h"
#include "src/ingest/kineto/id_merge.h"
#include "src/ingest/kineto/id_table.h"
#include "src/ingest/kineto/partition_near.h"
#include "src/ingest/kineto/span_sweep.h"
#include "src/ingest/kineto/trace_reader.h"
#include "src/model/counter_suffix.h"

namespace llmpo::ingest::kineto {
namespace {

constexpr std::uint32_t kNone = kNoIndex;
constexpr std::string_view kStepPrefix = "ProfilerStep#";

// A GPU op and the call that launched it, by index into the store.
struct Launch {
  std::uint32_t op = 0;
  std::uint32_t call = kNone;
};

// A GPU op (not a sync) with what attribution reads of the call that
// launched it, visited in (thread, call start) order. 64 bytes where the op
// and its call took 72: the store's ops and calls are dropped once these are
// built, before the sink's own records grow.
struct Linked {
  std::int64_t start = 0, end = 0;
  std::int64_t call_start = 0, call_end = 0;  // valid with has_call
  std::uint64_t correlation = 0;
  std::uint32_t name = 0, call_name = 0, thread = 0;
  std::uint32_t op_by_id = kNone;  // the cpu_op its real External id names (HasRealExternalIds), if one alone
  std::uint32_t lane : 30 = 0;     // index into TraceStore::lanes
  GpuOpKind kind : 2 = GpuOpKind::kKernel;
  bool has_correlation = false;
  bool has_call = false;
};
static_assert(sizeof(Linked) == 64);

// Gives the pages of `v` back to the system behind a walk that only goes
// forward (`forward`: the caller checked that it does), so that what is
// built from it does not sit beside all of it. The pages wholly below the
// latest element passed are never read again; the vector is freed whole
// after the walk.
template <typename T>
class ReleaseBehind {
 public:
  ReleaseBehind(const std::vector<T>& v, bool forward)
      : base_(reinterpret_cast<std::uintptr_t>(v.data())),
        page_(static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE))),
        forward_(forward && !v.empty()) {
    static_assert(std::is_trivially_destructible_v<T>);
    released_ = (base_ + page_ - 1) / page_ * page_;  // pages wholly inside the vector only
  }
  void Passed(std::size_t index) {
    if (!forward_ || index < next_check_) return;
    next_check_ = index + kStep;
    const std::uintptr_t below = (base_ + index * sizeof(T)) / page_ * page_;
    if (below <= released_) return;
    madvise(reinterpret_cast<void*>(released_), below - released_, MADV_DONTNEED);
    released_ = below;
  }

 private:
  static constexpr std::size_t kStep = (std::size_t{1} << 20) / sizeof(T);  // madvise about once per MiB
  std::uintptr_t base_, page_, released_;
  bool forward_;
  std::size_t next_check_ = 0;
};

// In 2023 traces a GPU op's External id is its own correlation id and names
// no CPU op; from 2024 it names the innermost cpu_op. Real ids exist when some
// op's External id differs from its correlation.
bool HasRealExternalIds(const TraceStore& store) {
  for (const auto& op : store.gpu_ops) {
    if (op.kind == GpuOpKind::kKernel && op.has_external_id && op.has_correlation && op.external_id != op.correlation)
      return true;
  }
  return false;
}

std::optional<std::int64_t> StepNumber(std::string_view name) { return model::NumberAfter(name, kStepPrefix); }

// ProfilerStep#7 is instance 7... of the region "ProfilerStep".
std::string RegionName(const std::string& name) { return StepNumber(name) ? "ProfilerStep" : name; }

// The earliest start and the latest end of the trace's events.
std::optional<std::pair<std::int64_t, std::int64_t>> TimeSpan(const TraceStore& s) {
  std::optional<std::pair<std::int64_t, std::int64_t>> span;
  const auto add = [&](const auto& events) {
    for (const auto& e : events) {
      if (!span) span = std::pair{e.start, e.end};
      span->first = std::min(span->first, e.start);
      span->second = std::max(span->second, e.end);
    }
  };
  add(s.gpu_ops);
  add(s.calls);
  add(s.cpu_ops);
  add(s.annotations);
  return span;
}

// Whether an absolute time (the trace's own plus baseTimeNanoseconds) reads
// as Unix time: Kineto writes Unix microseconds, or times relative to a Unix
// base (kineto-reference.md, "Time"); a hand-made or converted trace may
// count from 0. Taken as Unix between 2000 and 2100.
bool IsUnixTime(std::int64_t ns) {
  constexpr std::int64_t kYear2000 = 946'684'800'000'000'000, kYear2100 = 4'102'444'800'000'000'000;
  return ns >= kYear2000 && ns < kYear2100;
}

// baseTimeNanoseconds, unless adding it would put an event past ±2^62 ns
// (TimeInRange): then it is ignored, said, and times stay the trace's own.
std::int64_t UsableBase(const TraceStore& s, const std::string& label, ImportContext& ctx) {
  if (!s.base_ns || *s.base_ns == 0) return 0;
  const std::int64_t base = *s.base_ns;
  const auto span = TimeSpan(s);
  std::int64_t first = base, last = base;
  const bool fits =
      span ? !__builtin_add_overflow(base, span->first, &first) && !__builtin_add_overflow(base, span->second, &last)
           : true;
  if (fits && TimeInRange(first) && TimeInRange(last)) return base;
  ctx.diagnostics.Add(model::Diag::kineto_time_out_of_range,
                      fmt::format("{}: baseTimeNanoseconds {} puts the trace's events past ±2^62 ns (about 146 "
                                  "years); ignored: times are the trace's own",
                                  label, base));
  return 0;
}

class Emitter {
 public:
  Emitter(TraceStore& store, const std::string& label, ImportContext& ctx)
      : s_(store), label_(label), ctx_(ctx), process_(ProcessOf(store)), base_(UsableBase(store, label, ctx)) {
    region_names_.reserve(s_.names.size());
    for (std::uint32_t i = 0; i < s_.names.size(); ++i) region_names_.push_back(RegionName(s_.names[i]));
  }

  void Run() {
    FindCutAnnotations();
    FindSteps();
    // The store's GPU ops and calls (linked), then its CPU ops (counted), are
    // freed before anything goes to the sink: they are gone by the time the
    // sink's own records grow.
    const std::vector<Linked> launches = InFileOrder() ? LinkInFileOrder() : LinkLaunches(OrderLaunches());
    // The per-device breakdowns read only the launches: computed on a
    // second thread while the CPU ops are counted.
    std::map<std::int32_t, model::DeviceBreakdown> devices;
    std::thread breakdown([&] { devices = ComputeBreakdown(launches); });
    CountCpuOps(launches);
    breakdown.join();
    EmitAnnotations();
    // Every range is in: the phase collector may reduce kernels per step as
    // they come instead of keeping each one (phases.h).
    ctx_.sink.OnNvtxRangesDone();
    // Attribution reads the launches once more, in order: each page of them
    // goes back to the system once passed, as the sink's records grow.
    AttributeAndEmit(launches);
    EmitLongCpuOps();
    EmitBreakdown(std::move(devices));
  }

 private:
  // An annotation whose end was never recorded: `dur` 0 (PyTorch writes an
  // op still open when the profiler stopped with its end at its start) or
  // no `dur`. It is a range cut at the trace window's end when
  //  - events of its thread (launch calls, CPU ops, annotations) start after
  //    it, before the end it is given: the end of the innermost range that
  //    encloses it (an annotation with a real end past its start, or one cut
  //    before it), else the end of its thread's last event; and
  //  - no annotation of its thread starts after that end (the enclosing range
  //    is the last one of the thread: the cut is at the trace's end).
  // A cut range is kept open to that end: the launches made in it are
  // attributed to it, its CPU time is unknown (model::NvtxRange::end_unknown),
  // and each is counted (kineto_range_truncated). Any other dur-0 annotation
  // is a zero-length mark, unchanged; one without `dur` is dropped
  // (kineto_bad_time), as before. docs/import.md, "Attribution".
  void FindCutAnnotations() {
    std::vector<std::uint32_t> candidates;
    for (std::uint32_t i = 0; i < s_.annotations.size(); ++i) {
      if (s_.annotations[i].end == s_.annotations[i].start) candidates.push_back(i);
    }
    if (candidates.empty()) return;  // the usual case: nothing copied
    struct ThreadEvents {
      std::int64_t last_end = INT64_MIN;
      std::int64_t last_annotation_start = INT64_MIN;
      std::vector<std::int64_t> starts;       // of every event of the thread, sorted
      std::vector<std::int64_t> call_starts;  // of its launch (runtime / driver) calls, sorted
    };
    std::unordered_map<std::uint32_t, ThreadEvents> threads;
    for (std::uint32_t c : candidates) threads[s_.annotations[c].thread];
    const auto add = [&](const auto& events, bool is_call, bool is_annotation) {
      for (const auto& e : events) {
        auto it = threads.find(e.thread);
        if (it == threads.end()) continue;
        ThreadEvents& t = it->second;
        t.last_end = std::max(t.last_end, e.end);
        t.starts.push_back(e.start);
        if (is_call) t.call_starts.push_back(e.start);
        if (is_annotation) t.last_annotation_start = std::max(t.last_annotation_start, e.start);
      }
    };
    add(s_.calls, true, false);
    add(s_.cpu_ops, false, false);
    add(s_.annotations, false, true);
    for (auto& [thread, t] : threads) {
      std::sort(t.starts.begin(), t.starts.end());
      std::sort(t.call_starts.begin(), t.call_starts.end());
    }
    std::sort(candidates.begin(), candidates.end(), [&](std::uint32_t a, std::uint32_t b) {
      const CpuSpan& x = s_.annotations[a];
      const CpuSpan& y = s_.annotations[b];
      return std::tuple(x.thread, x.start, a) < std::tuple(y.thread, y.start, b);
    });
    adjusted_ = s_.annotations;
    cut_.assign(s_.annotations.size(), false);
    SpanSweep enclosing(s_.annotations);  // candidates come in (thread, start) order, as it needs
    std::vector<std::uint32_t> cuts;      // cut ranges of the current thread, outermost first
    std::uint32_t thread = kNone;
    std::uint64_t dropped = 0;
    for (std::uint32_t c : candidates) {
      const CpuSpan& a = s_.annotations[c];
      if (a.thread != thread) thread = a.thread, cuts.clear();
      const ThreadEvents& t = threads.at(a.thread);
      // The innermost range around it: open at its start with a real end past it.
      std::optional<std::int64_t> end;
      std::int64_t enclosing_start = INT64_MIN;
      const auto& open = enclosing.OpenAt(a.thread, a.start);
      for (auto it = open.rbegin(); it != open.rend(); ++it) {
        const CpuSpan& o = s_.annotations[*it];
        if (o.end > a.start) {
          end = o.end, enclosing_start = o.start;
          break;
        }
      }
      while (!cuts.empty() && adjusted_[cuts.back()].end <= a.start) cuts.pop_back();
      if (!cuts.empty() && adjusted_[cuts.back()].start >= enclosing_start) end = adjusted_[cuts.back()].end;
      const std::int64_t to = end.value_or(t.last_end);
      const auto later = std::upper_bound(t.starts.begin(), t.starts.end(), a.start);
      const bool goes_on = later != t.starts.end() && *later <= to;
      if (goes_on && t.last_annotation_start <= to) {
        adjusted_[c].end = to;
        cut_[c] = true;
        cuts.push_back(c);
        const auto calls = std::upper_bound(t.call_starts.begin(), t.call_starts.end(), to) -
                           std::lower_bound(t.call_starts.begin(), t.call_starts.end(), a.start);
        ctx_.diagnostics.AddLazy(model::Diag::kineto_range_truncated, [&] {
          return fmt::format(
              "{}: byte {}: annotation '{}' at ts {:.3f} us has {} while its thread goes on ({} launch call(s) "
              "after its start): a range cut at the end of the trace window; kept open to {:.3f} us ({}), its "
              "launches attributed to it, its CPU time unknown (not an instance of 0 ms)",
              label_, static_cast<std::uint64_t>(a.position), model::Excerpt(s_.names[a.name]),
              static_cast<double>(a.start) / 1000.0, a.dur_missing ? "no dur" : "dur 0", calls,
              static_cast<double>(to) / 1000.0,
              end ? "the end of the range around it" : "the end of its thread's last event");
        });
      } else if (a.dur_missing) {
        ++dropped;
        ctx_.diagnostics.AddLazy(model::Diag::kineto_bad_time, [&] {
          return fmt::format("{}: byte {}: annotation '{}' has no readable ts or dur; skipped", label_,
                             static_cast<std::uint64_t>(a.position), model::Excerpt(s_.names[a.name]));
        });
      }
    }
    if (dropped == 0 && std::find(cut_.begin(), cut_.end(), true) == cut_.end()) {  // zero-length marks only
      adjusted_ = {};
      cut_.clear();
      return;
    }
    if (dropped > 0) {
      std::vector<CpuSpan> kept;
      std::vector<bool> kept_cut;
      kept.reserve(adjusted_.size() - dropped);
      for (std::size_t i = 0; i < adjusted_.size(); ++i) {
        if (adjusted_[i].dur_missing && !cut_[i]) continue;
        kept.push_back(adjusted_[i]);
        kept_cut.push_back(cut_[i]);
      }
      adjusted_ = std::move(kept);
      cut_ = std::move(kept_cut);
    }
    annotations_ = &adjusted_;
  }

  void EmitAnnotations() {
    const std::vector<CpuSpan>& annotations = *annotations_;
    for (std::uint32_t i = 0; i < annotations.size(); ++i) {
      const CpuSpan& a = annotations[i];
      const bool cut = !cut_.empty() && cut_[i];
      model::NvtxRange range;
      range.name = region_names_[a.name];
      range.process = process_;
      range.start_ns = a.start + base_;
      range.end_ns = a.end + base_;
      range.global_tid = a.thread;
      range.range_id = i;
      range.end_unknown = cut;
      if (IsUnixTime(*range.start_ns)) range.unix_offset_ns = 0;
      ctx_.sink.OnNvtxRange(range);
    }
  }

  // The ProfilerStep#N annotations as steps and their windows, before any
  // launch is looked at (the breakdown's thread reads the windows).
  void FindSteps() {
    const std::vector<CpuSpan>& annotations = *annotations_;
    for (std::uint32_t i = 0; i < annotations.size(); ++i) {
      const CpuSpan& a = annotations[i];
      const auto n = StepNumber(s_.names[a.name]);
      if (!n) continue;
      step_windows_.push_back({a.start, a.end, steps_.size()});
      model::StepTimes step{*n, static_cast<double>(a.end - a.start), 0, 0, std::nullopt};
      if (!cut_.empty() && cut_[i]) step.cpu_ns.reset();  // its kernels still count: launched in its window
      if (IsUnixTime(a.start + base_)) step.start_unix_ns = a.start + base_;
      steps_.push_back(step);
    }
    std::sort(step_windows_.begin(), step_windows_.end());
  }

  // The index of the step whose window holds `t` (the latest to start at or
  // before it); kNoStep outside every step.
  std::uint32_t StepIndexAt(std::int64_t t) const {
    auto it = std::upper_bound(step_windows_.begin(), step_windows_.end(), t,
                               [](std::int64_t x, const StepWindow& w) { return x < w.start; });
    if (it == step_windows_.begin()) return kNoStep;
    --it;
    return t < it->end ? static_cast<std::uint32_t>(it->step) : kNoStep;
  }
  model::StepTimes* StepAt(std::int64_t t) {
    const std::uint32_t i = StepIndexAt(t);
    return i == kNoStep ? nullptr : &steps_[i];
  }

  // Whether the records that have a correlation id come in its order
  // (not decreasing), as a trace written in launch order has them.
  template <typename T>
  static bool ByCorrelation(const std::vector<T>& records) {
    std::uint64_t last = 0;
    for (const T& r : records) {
      if (!r.has_correlation) continue;
      if (r.correlation < last) return false;
      last = r.correlation;
    }
    return true;
  }
  template <typename T>
  static bool ByExternalId(const std::vector<T>& records) {
    std::uint64_t last = 0;
    for (const T& r : records) {
      if (!r.has_external_id) continue;
      if (r.external_id < last) return false;
      last = r.external_id;
    }
    return true;
  }

  // Each GPU op's cpu_op by real External id (HasRealExternalIds): the one
  // cpu_op with its id, kNone where none or several have it; empty without
  // real ids. A merge where both lists come in id order, else an IdTable.
  std::vector<std::uint32_t> CpuOpOfOps() const {
    if (!HasRealExternalIds(s_)) return {};
    std::vector<std::uint32_t> of(s_.gpu_ops.size(), kNone);
    if (ByExternalId(s_.cpu_ops) && ByExternalId(s_.gpu_ops)) {
      CpuOpMerge merge(s_.cpu_ops);
      for (std::uint32_t i = 0; i < s_.gpu_ops.size(); ++i) of[i] = merge.Find(s_.gpu_ops[i]);
      return of;
    }
    const IdTable op_by_id = CpuOpsByExternalId();
    for (std::uint32_t i = 0; i < s_.gpu_ops.size(); ++i) {
      if (!s_.gpu_ops[i].has_external_id) continue;
      if (auto index = op_by_id.Find(s_.gpu_ops[i].external_id); index && *index != kNone) of[i] = *index;
    }
    return of;
  }

  // Each GPU op's call: the first call with its correlation id. A merge of
  // the two lists where both come in correlation order (no table of 12
  // bytes per slot, 2 to 3 slots per call); else through an IdTable.
  std::vector<std::uint32_t> CallOfOps() const {
    std::vector<std::uint32_t> call(s_.gpu_ops.size(), kNone);
    if (ByCorrelation(s_.calls) && ByCorrelation(s_.gpu_ops)) {
      CallMerge merge(s_.calls);
      for (std::uint32_t i = 0; i < s_.gpu_ops.size(); ++i) call[i] = merge.Find(s_.gpu_ops[i]);
      return call;
    }
    IdTable call_of(s_.calls.size());
    for (std::uint32_t i = 0; i < s_.calls.size(); ++i) {
      if (s_.calls[i].has_correlation) call_of.TryEmplace(s_.calls[i].correlation, i);
    }
    for (std::uint32_t i = 0; i < s_.gpu_ops.size(); ++i) {
      if (!s_.gpu_ops[i].has_correlation) continue;
      if (auto c = call_of.Find(s_.gpu_ops[i].correlation)) call[i] = *c;
    }
    return call;
  }

  // The order attribution visits launches in: launched ops by (thread, call
  // start), the rest after.
  bool CallBefore(const Launch& a, const Launch& b) const {
    if ((a.call == kNone) != (b.call == kNone)) return b.call == kNone;
    if (a.call == kNone) return false;
    const HostCall& x = s_.calls[a.call];
    const HostCall& y = s_.calls[b.call];
    return x.thread != y.thread ? x.thread < y.thread : x.start < y.start;
  }

  // Whether the store's own order of GPU ops (syncs left out) already is the
  // order attribution visits them in, with their calls and cpu_ops found by
  // merges (CallMerge, CpuOpMerge): then LinkInFileOrder links them without
  // the order and index vectors (16 bytes per op) OrderLaunches and
  // LinkLaunches hold, at the import's peak of memory.
  // One pass over the ops checks all of it (ByCorrelation, ByExternalId and
  // HasRealExternalIds of the ops, and the order; the merge's answers count
  // only where the ops come in correlation order). Sets real_ids_.
  bool InFileOrder() {
    if (!ByCorrelation(s_.calls)) return false;
    CallMerge calls(s_.calls);
    std::optional<Launch> before;
    std::uint64_t last_correlation = 0, last_external_id = 0;
    bool in_order = true, by_external_id = true;
    real_ids_ = false;
    for (std::uint32_t i = 0; i < s_.gpu_ops.size(); ++i) {
      const GpuOp& op = s_.gpu_ops[i];
      if (op.has_correlation) {
        if (op.correlation < last_correlation) return false;  // not ByCorrelation
        last_correlation = op.correlation;
      }
      if (op.has_external_id) {
        by_external_id = by_external_id && op.external_id >= last_external_id;
        last_external_id = op.external_id;
        real_ids_ = real_ids_ ||
                    (op.kind == GpuOpKind::kKernel && op.has_correlation && op.external_id != op.correlation);
      }
      if (op.kind == GpuOpKind::kSync || !in_order) continue;
      const Launch l{i, calls.Find(op)};
      in_order = !(before && CallBefore(l, *before));
      before = l;
    }
    if (real_ids_ && !(by_external_id && ByExternalId(s_.cpu_ops))) return false;
    return in_order;
  }

  // The store's GPU ops, linked in its own order (InFileOrder holds); the
  // pages of the ops and calls passed go back to the system on the way.
  std::vector<Linked> LinkInFileOrder() {  // after InFileOrder
    std::vector<Linked> linked;
    linked.reserve(s_.gpu_ops.size());
    CallMerge calls(s_.calls);
    std::optional<CpuOpMerge> cpu_ops;
    if (real_ids_) cpu_ops.emplace(s_.cpu_ops);
    ReleaseBehind<GpuOp> ops_passed(s_.gpu_ops, true);
    ReleaseBehind<HostCall> calls_passed(s_.calls, true);
    for (std::uint32_t i = 0; i < s_.gpu_ops.size(); ++i) {
      const GpuOp& op = s_.gpu_ops[i];
      if (op.kind == GpuOpKind::kSync) continue;
      const std::uint32_t call = calls.Find(op);
      linked.push_back(Link(op, call, cpu_ops ? cpu_ops->Find(op) : kNone));
      ops_passed.Passed(i);
      calls_passed.Passed(calls.position());
    }
    std::vector<GpuOp>().swap(s_.gpu_ops);
    std::vector<HostCall>().swap(s_.calls);
    return linked;
  }

  Linked Link(const GpuOp& op, std::uint32_t call, std::uint32_t op_by_id) const {
    Linked k;
    k.start = op.start, k.end = op.end;
    k.correlation = op.correlation, k.has_correlation = op.has_correlation;
    k.lane = op.lane;
    k.name = op.name, k.kind = op.kind;
    k.op_by_id = op_by_id;
    if (call != kNone) {
      const HostCall& c = s_.calls[call];
      k.has_call = true;
      k.call_start = c.start, k.call_end = c.end;
      k.call_name = c.name, k.thread = c.thread;
    }
    return k;
  }

  std::vector<Launch> OrderLaunches() const {
    std::vector<Launch> launches;
    {
      const std::vector<std::uint32_t> call_of = CallOfOps();
      launches.reserve(s_.gpu_ops.size());
      for (std::uint32_t i = 0; i < s_.gpu_ops.size(); ++i) {
        if (s_.gpu_ops[i].kind != GpuOpKind::kSync) launches.push_back({i, call_of[i]});
      }
    }
    // Launched ops by (thread, call start), as the sweeps need; the rest after.
    // A trace in launch order is only checked.
    const auto by_call = [&](const Launch& a, const Launch& b) { return CallBefore(a, b); };
    if (!std::is_sorted(launches.begin(), launches.end(), by_call)) {
      std::stable_sort(launches.begin(), launches.end(), by_call);
    }
    return launches;
  }

  // The launches of `order`, linked; the store's GPU ops and calls are
  // dropped on the way (behind the walk where it only goes forward, as in a
  // trace written in launch order), then whole.
  std::vector<Linked> LinkLaunches(std::vector<Launch> order) {
    const std::vector<std::uint32_t> cpu_op_of = CpuOpOfOps();
    std::vector<Linked> linked;
    linked.reserve(order.size());
    const bool ops_forward = std::is_sorted(order.begin(), order.end(),
                                            [](const Launch& a, const Launch& b) { return a.op < b.op; });
    const bool calls_forward = std::is_sorted(order.begin(), order.end(), [](const Launch& a, const Launch& b) {
      return a.call != kNone && b.call != kNone && a.call < b.call;
    });
    ReleaseBehind<GpuOp> ops(s_.gpu_ops, ops_forward);
    ReleaseBehind<HostCall> calls(s_.calls, calls_forward);
    for (const Launch& l : order) {
      linked.push_back(Link(s_.gpu_ops[l.op], l.call, cpu_op_of.empty() ? kNone : cpu_op_of[l.op]));
      if (l.call != kNone) calls.Passed(l.call);
      ops.Passed(l.op);
    }
    std::vector<GpuOp>().swap(s_.gpu_ops);
    std::vector<HostCall>().swap(s_.calls);
    return linked;
  }

  IdTable CpuOpsByExternalId() const {
    IdTable by_id(s_.cpu_ops.size());
    for (std::uint32_t i = 0; i < s_.cpu_ops.size(); ++i) {
      if (!s_.cpu_ops[i].has_external_id) continue;
      auto [index, inserted] = by_id.TryEmplace(s_.cpu_ops[i].external_id, i);
      if (!inserted) *index = kNone;  // shared: not an identity
    }
    return by_id;
  }

  // Fills `r` for `op`, reusing its strings' storage from the launch before
  // (one record is rebuilt per launch: no allocation per launch).
  void Fill(const Linked& op, model::LaunchRecord& r) const {
    r.kind = op.kind == GpuOpKind::kMemcpy   ? model::LaunchKind::kMemcpy
             : op.kind == GpuOpKind::kMemset ? model::LaunchKind::kMemset
                                             : model::LaunchKind::kKernel;
    r.kernel_name = s_.names[op.name];
    r.kernel_name_key = name_keys_ | (std::uint64_t{op.name} + 1);
    r.process = process_;
    const Lane& lane = s_.lanes[op.lane];
    r.device = lane.device >= 0 ? std::to_string(lane.device) : "";
    r.start_ns = op.start + base_;
    r.end_ns = op.end + base_;
    r.duration_ns = static_cast<double>(op.end - op.start);
    r.stream = lane.stream;
    r.correlation_id.reset();
    r.result_id.clear();
    if (op.has_correlation) {
      r.correlation_id = static_cast<std::int64_t>(op.correlation);
      r.result_id = std::to_string(op.correlation);
    }
    r.has_nvtx = !annotations_->empty();
    r.global_tid.reset();  // nvtx_stack: set by the caller, reusing the slot's frames
    r.launch_call_start_ns.reset();
    r.launch_call_end_ns.reset();
    r.launch_call_name.clear();
    r.launch_thread.clear();
    r.copy_memory.clear();
    if (op.kind == GpuOpKind::kMemcpy) {  // "Memcpy HtoD (Pageable -> Device)": the kinds in parentheses
      const std::string& name = s_.names[op.name];
      const auto open = name.rfind('('), close = name.rfind(')');
      if (open != std::string::npos && close != std::string::npos && close > open)
        r.copy_memory.assign(name, open + 1, close - open - 1);
    }
  }

  // CPU ops long enough to starve the GPU (cpu_op_starving), for the GPU
  // timeline: after the launches, as the sink has always had them.
  void EmitLongCpuOps() const {
    for (const CpuOp& op : long_cpu_ops_) {
      ctx_.sink.OnCpuOp({s_.names[op.name], process_, op.start + base_, op.end + base_});
    }
  }

  // All the reports take of the CPU ops, before a launch goes to the sink:
  // each op's GPU time (self: the kernels it is the innermost op of; total)
  // and CPU time, and the long ones. Then the store's ops are dropped, so
  // they are gone before the sink's own records grow.
  void CountCpuOps(const std::vector<Linked>& launches) {
    if (!s_.cpu_ops.empty()) {
      std::optional<SpanSweep<CpuOp>> ops;
      // Reserved to the count: grown by doubling it would hold up to twice
      // that, at the import's peak of memory.
      kernel_launches_.reserve(static_cast<std::size_t>(std::count_if(
          launches.begin(), launches.end(), [](const Linked& l) { return l.kind == GpuOpKind::kKernel && l.has_call; })));
      for (std::uint32_t i = 0; i < launches.size(); ++i) {
        const Linked& op = launches[i];
        if (op.kind != GpuOpKind::kKernel || !op.has_call) continue;
        // The op its External id names, else the innermost op open at the
        // call. The sweep is asked only then (in (thread, time) order still,
        // as it needs) and built on first use: a trace whose kernels all name
        // their op (2024 on) does without it.
        std::uint32_t innermost = op.op_by_id;
        if (innermost == kNone) {
          if (!ops) ops.emplace(s_.cpu_ops);
          const auto& open = ops->OpenAt(op.thread, op.call_start);
          innermost = open.empty() ? kNone : open.back();
        }
        CountSelf(innermost, i, static_cast<double>(op.end - op.start));
      }
      CountTotals(launches);
    }
    for (const CpuOp& op : s_.cpu_ops) {
      auto& t = OpTimes(op.name);
      ++t.calls;
      t.cpu_ns += static_cast<double>(op.end - op.start);
      if (op.end - op.start >= model::kCpuOpMinNs) long_cpu_ops_.push_back(op);
    }
    std::vector<CpuOp>().swap(s_.cpu_ops);
  }

  // The runtime / driver call that launched a kernel (launch overhead).
  void SetLaunchCall(const Linked& l, model::LaunchRecord& r) const {
    r.launch_call_start_ns = l.call_start + base_;
    r.launch_call_end_ns = l.call_end + base_;
    r.launch_call_name = s_.names[l.call_name];
    const std::string& thread = s_.threads[l.thread];  // "pid/tid"
    r.launch_thread = thread.substr(thread.find('/') + 1);
  }

  // Sets frame `depth` of the record's stack, reusing the storage of the frame
  // the launch before had there (no allocation per launch).
  static void SetFrame(std::vector<model::NvtxFrame>& stack, std::size_t depth, const std::string& name,
                       std::int64_t instance) {
    if (depth == stack.size()) stack.emplace_back();
    model::NvtxFrame& f = stack[depth];
    f.domain.clear();
    f.name = name;
    f.instance = instance;
  }

  // "Self CUDA": the launch's GPU time to its innermost CPU op. Its "CUDA
  // total" (every op open at the call) is summed per op in CountTotals.
  void CountSelf(std::uint32_t innermost, std::uint32_t launch, double ns) {
    if (innermost != kNone) {
      auto& t = OpTimes(s_.cpu_ops[innermost].name);
      t.gpu_self_ns += ns;
      ++t.kernels;
    }
    kernel_launches_.push_back(launch);  // called only when the trace has CPU ops
  }

  // Each CPU op's GPU total: the kernels whose launch call started on its
  // thread within [start, end], by prefix sums over those calls (visited in
  // (thread, start) order): O((ops + calls) log calls) however deep the ops
  // nest, not a walk of every open op per launch.
  void CountTotals(const std::vector<Linked>& launches) {
    using At = std::pair<std::uint32_t, std::int64_t>;  // (thread, time)
    const auto at = [&](std::uint32_t k) { return At(launches[k].thread, launches[k].call_start); };
    std::vector<double> prefix(kernel_launches_.size() + 1, 0.0);
    for (std::size_t i = 0; i < kernel_launches_.size(); ++i) {
      const Linked& op = launches[kernel_launches_[i]];
      prefix[i + 1] = prefix[i] + static_cast<double>(op.end - op.start);
    }
    // The bounds are searched out from where the thread's op before found
    // its first kernel: a thread's ops come mostly in time order.
    const std::size_t n = kernel_launches_.size();
    std::vector<std::size_t> near(s_.threads.size(), 0);  // by thread
    for (const CpuOp& op : s_.cpu_ops) {
      const At from(op.thread, op.start), to(op.thread, op.end);
      std::size_t& hint = near[op.thread];
      const std::size_t lo =
          PartitionPointNear(n, hint, [&](std::size_t i) { return at(kernel_launches_[i]) < from; });
      const std::size_t hi =
          PartitionPointNear(n, lo, [&](std::size_t i) { return !(to < at(kernel_launches_[i])); });
      hint = lo;
      if (hi <= lo) continue;
      OpTimes(op.name).gpu_total_ns += prefix[hi] - prefix[lo];
    }
    kernel_launches_ = {};
  }

  void AttributeAndEmit(const std::vector<Linked>& launches) {
    SpanSweep annotations(*annotations_);
    ReleaseBehind<Linked> passed(launches, true);
    batch_.resize(std::min(kBatch, launches.size()));
    for (std::uint32_t i = 0; i < launches.size(); ++i) {
      passed.Passed(i);
      const Linked& op = launches[i];
      model::LaunchRecord& record = NextRecord();
      Fill(op, record);
      if (!op.has_call) {
        record.nvtx_stack.clear();
        ctx_.diagnostics.AddLazy(model::Diag::kernel_without_launch_call, [&] {
          return fmt::format(
              "{}: GPU op '{}' (correlation {}) has no launch call in the trace (running before the "
              "window opened, or launched by an untraced thread); kept, outside every region",
              label_, model::Excerpt(record.kernel_name), record.result_id);
        });
        continue;
      }
      record.global_tid = op.thread;
      if (op.kind == GpuOpKind::kKernel) SetLaunchCall(op, record);
      const double ns = *record.duration_ns;
      std::size_t depth = 0;
      for (std::uint32_t a : annotations.OpenAt(op.thread, op.call_start)) {
        if (depth > model::kMaxNvtxDepth) break;  // folded into level 64 (nvtx_depth_folded)
        SetFrame(record.nvtx_stack, depth++, region_names_[(*annotations_)[a].name], a);
      }
      // A step's kernels: launched while it ran, from any thread (a training
      // step's backward kernels come from autograd's threads, not the one
      // that holds the ProfilerStep annotation).
      if (op.kind == GpuOpKind::kKernel) {
        if (model::StepTimes* step = StepAt(op.call_start)) {
          step->gpu_kernel_ns += ns;
          if (ClassOf(op.name) == KernelClass::kCommunication) *step->communication_kernel_ns += ns;
        }
      }
      record.nvtx_stack.resize(depth);
    }
    FlushBatch();
  }

  // Launches go to the sink in batches (each sink takes a batch in a row).
  // The records are reused from batch to batch, strings and frames
  // included: no allocation per launch.
  model::LaunchRecord& NextRecord() {
    if (batched_ == batch_.size()) FlushBatch();
    return batch_[batched_++];
  }
  void FlushBatch() {
    if (batched_ > 0) ctx_.sink.OnLaunches(std::span<const model::LaunchRecord>(batch_.data(), batched_));
    batched_ = 0;
  }

  // The step an op's launch call started in (kNoStep: none, or no call).
  std::uint32_t StepOf(const Linked& op) const { return op.has_call ? StepIndexAt(op.call_start) : kNoStep; }

  // Counts, launch statistics and the temporal breakdown per device, whole
  // and per step (step_breakdowns, with step indices for numbers until
  // EmitBreakdown); the steps' kernel times come later (attribution adds
  // them). Touches only the store, the step windows and class_of_.
  std::map<std::int32_t, model::DeviceBreakdown> ComputeBreakdown(const std::vector<Linked>& launches) {
    std::map<std::int32_t, StreamingBreakdown> by_device;
    std::map<std::int32_t, model::DeviceBreakdown> devices;
    for (const Linked& op : launches) {
      const std::int32_t device = s_.lanes[op.lane].device;
      by_device[device].Add({op.start, op.end}, ClassOf(op.name), StepOf(op));
      model::DeviceBreakdown& d = devices[device];
      if (op.kind == GpuOpKind::kKernel) {
        ++d.kernels;
        d.kernel_ns += static_cast<double>(op.end - op.start);
      } else {
        ++d.memory_ops;
      }
      if (op.has_call) AddLaunch(op, d.launch);
    }
    for (auto& [device, d] : devices) {
      std::vector<std::pair<std::uint32_t, model::StepBreakdown>> steps;
      if (!by_device[device].Finish(d, &steps)) {
        std::vector<std::uint32_t> step_of;
        std::vector<ClassifiedOp> ops = DeviceOps(launches, device, step_of);
        steps = StepBreakdowns(ops, step_of);
        FillTemporalBreakdown(std::move(ops), d);
      }
      for (auto& [index, b] : steps) {
        b.step = index;  // the step's index into steps_ until EmitBreakdown
        d.step_breakdowns.push_back(b);
      }
      FinishLaunch(d.launch);
    }
    return devices;
  }

  // One device's ops and the step of each, for a breakdown whose ops came
  // too far out of order to be folded as they arrived.
  std::vector<ClassifiedOp> DeviceOps(const std::vector<Linked>& launches, std::int32_t device,
                                      std::vector<std::uint32_t>& step_of) {
    std::vector<ClassifiedOp> ops;
    for (const Linked& op : launches) {
      if (s_.lanes[op.lane].device != device) continue;
      ops.push_back({{op.start, op.end}, ClassOf(op.name)});
      step_of.push_back(StepOf(op));
    }
    return ops;
  }

  void EmitBreakdown(std::map<std::int32_t, model::DeviceBreakdown> devices) {
    model::GpuBreakdown out;
    for (auto& [device, d] : devices) {
      d.source = label_;
      d.process = process_;
      d.device = device >= 0 ? std::to_string(device) : "";
      d.rank = s_.rank;
      d.world_size = s_.world_size;
      d.steps = steps_;
      for (model::StepBreakdown& b : d.step_breakdowns) b.step = steps_[static_cast<std::size_t>(b.step)].step;
      out.devices.push_back(std::move(d));
    }
    if (devices.empty() && s_.cut_short) {
      ctx_.diagnostics.Note(
          fmt::format("{}: no GPU kernels, copies or sets before the point where the trace is damaged or cut short "
                      "(kineto_json_error); the CPU ops and annotations before it are reported",
                      label_));
    } else if (devices.empty()) {
      ctx_.diagnostics.Note(
          fmt::format("{}: no GPU kernels, copies or sets in the trace (a CPU-only profile?); "
                      "CPU ops and annotations are still reported",
                      label_));
    }
    EmitCpuOps(out);
    ctx_.sink.OnGpuBreakdown(out);
  }

  // ClassifyKernelName once per name, not once per launch.
  KernelClass ClassOf(std::uint32_t name) {
    if (class_of_.size() <= name) class_of_.resize(s_.names.size());
    auto& known = class_of_[name];
    if (!known) known = ClassifyKernelName(s_.names[name]);
    return *known;
  }

  static void AddLaunch(const Linked& op, model::LaunchStats& s) {
    const double cpu = static_cast<double>(op.call_end - op.call_start);
    const double gpu = static_cast<double>(op.end - op.start);
    const double delay = static_cast<double>(std::max<std::int64_t>(0, op.start - op.call_end));
    ++s.launches;
    s.cpu_mean_ns += cpu;  // sums until FinishLaunch
    s.gpu_mean_ns += gpu;
    s.delay_mean_ns += delay;
    s.cpu_max_ns = std::max(s.cpu_max_ns, cpu);
    s.gpu_max_ns = std::max(s.gpu_max_ns, gpu);
    s.delay_max_ns = std::max(s.delay_max_ns, delay);
    if (gpu < cpu) ++s.gpu_shorter_than_call;
  }

  static void FinishLaunch(model::LaunchStats& s) {
    if (s.launches == 0) return;
    const auto n = static_cast<double>(s.launches);
    s.cpu_mean_ns /= n;
    s.gpu_mean_ns /= n;
    s.delay_mean_ns /= n;
  }

  void EmitCpuOps(model::GpuBreakdown& out) {
    for (std::uint32_t name = 0; name < op_slot_.size(); ++name) {
      if (op_slot_[name] == kNone) continue;
      model::CpuOpTimes& t = op_times_[op_slot_[name]];
      t.source = label_;
      t.process = process_;
      t.name = s_.names[name];
      out.cpu_ops.push_back(std::move(t));
    }
    std::sort(out.cpu_ops.begin(), out.cpu_ops.end(), [](const auto& a, const auto& b) {
      return a.gpu_total_ns != b.gpu_total_ns ? a.gpu_total_ns > b.gpu_total_ns : a.name < b.name;
    });
  }

  TraceStore& s_;  // its GPU ops and calls are dropped once linked (LinkLaunches)
  const std::string& label_;
  ImportContext& ctx_;
  model::ProcessId process_;
  std::int64_t base_;
  static constexpr std::size_t kBatch = 1024;
  std::vector<model::LaunchRecord> batch_;  // launches not yet given to the sink: batch_[0, batched_)
  std::size_t batched_ = 0;
  std::uint64_t name_keys_ = model::NewNameKeySpace() << 32;  // | (name id + 1): LaunchRecord::kernel_name_key
  std::vector<std::optional<KernelClass>> class_of_;  // by name id
  std::vector<std::string> region_names_;             // by name id: ProfilerStep#N -> ProfilerStep
  std::vector<model::StepTimes> steps_;
  // The annotations attribution uses: the store's, or, when some have no
  // recorded end, adjusted_: the cut ones open to the end they are given
  // (cut_), those without dur and not cut left out. FindCutAnnotations.
  const std::vector<CpuSpan>* annotations_ = &s_.annotations;
  std::vector<CpuSpan> adjusted_;
  std::vector<bool> cut_;  // by index into *annotations_; empty: none
  bool real_ids_ = false;  // HasRealExternalIds, as InFileOrder found
  struct StepWindow {
    std::int64_t start = 0, end = 0;
    std::size_t step = 0;  // index into steps_
    bool operator<(const StepWindow& o) const { return std::tie(start, end, step) < std::tie(o.start, o.end, o.step); }
  };
  std::vector<StepWindow> step_windows_;  // sorted by start
  // A CPU op name's times: op_times_[op_slot_[name id]], a slot given to
  // each name on its first op (kNone: none yet). A vector, not a hash map:
  // it is looked up for every CPU op and every kernel.
  model::CpuOpTimes& OpTimes(std::uint32_t name) {
    if (op_slot_.size() <= name) op_slot_.resize(s_.names.size() > name ? s_.names.size() : name + 1, kNone);
    std::uint32_t& slot = op_slot_[name];
    if (slot == kNone) {
      slot = static_cast<std::uint32_t>(op_times_.size());
      op_times_.emplace_back();
    }
    return op_times_[slot];
  }
  std::vector<std::uint32_t> op_slot_;
  std::vector<model::CpuOpTimes> op_times_;
  std::vector<std::uint32_t> kernel_launches_;  // kernels with a launch call, by index into the launches
  std::vector<CpuOp> long_cpu_ops_;             // at least model::kCpuOpMinNs long, for EmitLongCpuOps
};

}  // namespace

model::ProcessId ProcessOf(const TraceStore& store) {
  model::ProcessId process = model::ProcessFromPidText("", store.os_pid);
  process.rank = store.rank;
  return process;
}

void EmitTrace(TraceStore& store, const std::string& label, ImportContext& ctx) {
  Emitter(store, label, ctx).Run();
}

}  // namespace llmpo::ingest::kineto

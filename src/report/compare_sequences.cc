// Launch order: each region's launch sequence on both sides, aligned by
// Myers' difference on a launch signature (docs/compare.md), so that a kernel
// inserted, removed or moved does not shift every pair after it.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "src/analysis/sequence_alignment.h"
#include "src/report/compare_model.h"

namespace llmpo::report {
namespace {

// Past this many insertions and deletions two sequences are not aligned.
constexpr std::size_t kMaxEdits = 1024;

// A side's launch sequences from its timing inputs (TimingChoice): one
// input's as they are; over rank files, each rank's from its own input, in
// one table (`merged`, the signatures renumbered). Null when none has any.
const analysis::SourceSequences* TimedSequences(const ReportSet& set, analysis::SourceSequences& merged) {
  const TimingChoice timing = TimingChoice::Of(set.kernels);
  std::vector<const analysis::SourceSequences*> used;
  for (const auto& s : set.launch_sequences) {
    if (timing.Uses(s.source)) used.push_back(&s);
  }
  if (used.empty()) return nullptr;
  if (used.size() == 1 && timing.inputs().size() == 1) return used.front();
  merged.source = timing.label();
  for (const analysis::SourceSequences* s : used) {
    const auto offset = static_cast<std::uint32_t>(merged.signatures.size());
    merged.signatures.insert(merged.signatures.end(), s->signatures.begin(), s->signatures.end());
    merged.launches_not_recorded += s->launches_not_recorded;
    for (const analysis::LaunchSequence& seq : s->sequences) {
      if (!timing.Times(s->source, seq.process.rank)) continue;
      analysis::LaunchSequence& copy = merged.sequences.emplace_back(seq);
      for (analysis::SequenceStep& step : copy.steps) step.signature += offset;
    }
  }
  return &merged;
}

// How sequences of two sides are paired: the rank where the process has one,
// else the device, else the process as reports name it.
std::string RoleOf(const analysis::LaunchSequence& s) {
  if (s.process.rank) return fmt::format("rank {}", *s.process.rank);
  if (!s.device.empty()) return fmt::format("device {}", s.device);
  return s.process.Label();
}

std::string PathOf(const analysis::LaunchSequence& s) {
  return s.path.empty() ? "(outside NVTX regions)" : ComparePath(s.path, nullptr);
}

// Sequences by region path, then by role.
using ByPath = std::map<std::string, std::map<std::string, const analysis::LaunchSequence*>>;

ByPath Index(const analysis::SourceSequences& side) {
  ByPath out;
  for (const auto& s : side.sequences) out[PathOf(s)].emplace(RoleOf(s), &s);
  return out;
}

struct Pair {
  std::string path, scope;
  const analysis::LaunchSequence *base = nullptr, *next = nullptr;
};

// Scopes of one path paired by role; when one scope of each side is left
// (one process on each, named differently by two formats), those two.
std::vector<Pair> PairScopes(const ByPath& base, const ByPath& next, std::size_t& unpaired) {
  std::vector<Pair> out;
  for (const auto& [path, roles] : base) {
    const auto it = next.find(path);
    if (it == next.end()) {
      unpaired += roles.size();
      continue;
    }
    std::vector<std::pair<std::string, const analysis::LaunchSequence*>> left_base, left_next;
    for (const auto& [role, s] : roles) {
      const auto match = it->second.find(role);
      if (match == it->second.end()) {
        left_base.emplace_back(role, s);
      } else {
        out.push_back({path, role, s, match->second});
      }
    }
    for (const auto& [role, s] : it->second) {
      if (!roles.count(role)) left_next.emplace_back(role, s);
    }
    if (left_base.size() == 1 && left_next.size() == 1) {
      out.push_back({path, fmt::format("{} / {}", left_base[0].first, left_next[0].first), left_base[0].second,
                     left_next[0].second});
    } else {
      unpaired += left_base.size() + left_next.size();
    }
  }
  for (const auto& [path, roles] : next) {
    if (!base.count(path)) unpaired += roles.size();
  }
  return out;
}

bool HasShapes(const analysis::SourceSequences& side, const analysis::LaunchSequence& s) {
  return std::all_of(s.steps.begin(), s.steps.end(), [&](const analysis::SequenceStep& st) {
    const auto& sig = side.signatures[st.signature];
    return !sig.grid.empty() && !sig.block.empty();
  });
}

// Both sides' steps as ids of one signature table, with or without grid and block.
struct Encoded {
  std::vector<std::uint32_t> base, next;
};

Encoded Encode(const analysis::SourceSequences& bs, const analysis::LaunchSequence& b,
               const analysis::SourceSequences& ns, const analysis::LaunchSequence& n, bool shapes) {
  std::map<std::string, std::uint32_t> ids;
  auto id = [&](const analysis::KernelSignature& sig) {
    const std::string key = shapes ? sig.name + '\n' + sig.grid + '\n' + sig.block : sig.name;
    return ids.emplace(key, static_cast<std::uint32_t>(ids.size())).first->second;
  };
  Encoded e;
  for (const auto& st : b.steps) e.base.push_back(id(bs.signatures[st.signature]));
  for (const auto& st : n.steps) e.next.push_back(id(ns.signatures[st.signature]));
  return e;
}

analysis::Samples SamplesOf(const analysis::SequenceStep& s) { return {s.samples, s.mean_ns, s.sum_sq_dev_ns2}; }

std::optional<double> MeanOf(const analysis::SequenceStep& s) {
  return s.samples ? std::optional(s.mean_ns) : std::nullopt;
}

SequenceRow RowOf(const analysis::Edit& e, const analysis::SourceSequences& bs, const analysis::LaunchSequence& b,
                  const analysis::SourceSequences& ns, const analysis::LaunchSequence& n,
                  const CompareOptions& options) {
  SequenceRow row;
  const analysis::SequenceStep* bst = e.op == analysis::EditOp::kInsert ? nullptr : &b.steps[e.base];
  const analysis::SequenceStep* nst = e.op == analysis::EditOp::kDelete ? nullptr : &n.steps[e.next];
  row.op = bst && nst ? "same" : (nst ? "new" : "gone");
  if (bst) row.base_position = e.base, row.base_mean_ns = MeanOf(*bst), row.name = bs.signatures[bst->signature].name;
  if (nst) row.new_position = e.next, row.new_mean_ns = MeanOf(*nst), row.name = ns.signatures[nst->signature].name;
  const std::optional<double> before = bst ? row.base_mean_ns : std::optional(0.0);
  const std::optional<double> after = nst ? row.new_mean_ns : std::optional(0.0);
  if (before && after) row.delta_ns = *after - *before;
  if (bst && nst && bst->samples && nst->samples) {
    row.test = analysis::TestChange(SamplesOf(*bst), SamplesOf(*nst), options.significance);
  }
  return row;
}

std::optional<double> InstanceNs(const analysis::LaunchSequence& s) {
  double sum = 0;
  for (const auto& st : s.steps) {
    if (!st.samples) return std::nullopt;
    sum += st.mean_ns;
  }
  return sum;
}

// The positions are many tests of one question: their p-values are
// adjusted together (Holm), and a position stays slower or faster only
// when its adjusted p is below alpha.
void AdjustForPositions(SequenceDelta& d, const CompareOptions& options) {
  std::vector<analysis::ChangeTest*> tested;
  std::vector<double> p;
  for (auto& r : d.rows) {
    if (r.test && r.test->tested) tested.push_back(&*r.test), p.push_back(*r.test->p_value);
  }
  const std::vector<double> adjusted = analysis::HolmAdjusted(p);
  for (std::size_t i = 0; i < tested.size(); ++i) {
    tested[i]->p_value = adjusted[i];
    if (adjusted[i] >= options.significance.alpha) tested[i]->verdict = analysis::Verdict::kWithinNoise;
  }
}

void Count(SequenceDelta& d) {
  std::optional<double> sum = 0.0;
  for (const auto& r : d.rows) {
    d.same += r.op == "same", d.inserted += r.op == "new", d.removed += r.op == "gone";
    if (r.test && r.test->verdict == analysis::Verdict::kSlower) ++d.slower;
    if (r.test && r.test->verdict == analysis::Verdict::kFaster) ++d.faster;
    if (sum && r.delta_ns) {
      *sum += *r.delta_ns;
    } else {
      sum.reset();
    }
  }
  d.delta_instance_ns = sum;
}

// What keeps a pair's positions from meaning the same launch: said per pair.
std::optional<std::string> Unalignable(const std::string& where, const analysis::LaunchSequence& b,
                                       const analysis::LaunchSequence& n) {
  if (!b.ordered || !n.ordered) {
    return fmt::format("{}: launch order not aligned: the {} side's launches are not in start-time order", where,
                       b.ordered ? "new" : "base");
  }
  return std::nullopt;
}

void PairNotes(const std::string& where, const analysis::LaunchSequence& b, const analysis::LaunchSequence& n,
               std::vector<std::string>& notes) {
  for (const auto* s : {&b, &n}) {
    const char* side = s == &b ? "base" : "new";
    if (s->diverged) {
      notes.push_back(fmt::format("{}: {} of {} instance(s) on the {} side launched a different sequence than the "
                                  "first; each position's mean is over the instances that agreed up to it",
                                  where, s->diverged, s->instances, side));
    }
    if (s->beyond_cap) {
      notes.push_back(fmt::format("{}: the {} side's first instance has {} more launch(es) than the {} aligned",
                                  where, side, s->beyond_cap, analysis::kMaxSequenceSteps));
    }
  }
}

std::optional<SequenceDelta> Align(const std::string& path, const std::string& role,
                                   const analysis::SourceSequences& bs, const analysis::LaunchSequence& b,
                                   const analysis::SourceSequences& ns, const analysis::LaunchSequence& n,
                                   const CompareOptions& options, std::vector<std::string>& notes) {
  const std::string where = fmt::format("launch order of {} ({})", path, role);
  if (auto why = Unalignable(where, b, n)) {
    notes.push_back(std::move(*why));
    return std::nullopt;
  }
  const bool shapes = HasShapes(bs, b) && HasShapes(ns, n);
  const Encoded e = Encode(bs, b, ns, n, shapes);
  const auto edits = analysis::AlignSequences(e.base, e.next, kMaxEdits);
  if (!edits) {
    notes.push_back(fmt::format("{}: not aligned: the sequences differ by more than {} launches", where, kMaxEdits));
    return std::nullopt;
  }
  SequenceDelta d;
  d.path = path, d.scope = role, d.signature = shapes ? "name, grid, block" : "name";
  d.base_instances = b.instances, d.new_instances = n.instances;
  d.base_length = b.steps.size(), d.new_length = n.steps.size();
  d.base_instance_ns = InstanceNs(b), d.new_instance_ns = InstanceNs(n);
  for (const auto& edit : *edits) d.rows.push_back(RowOf(edit, bs, b, ns, n, options));
  AdjustForPositions(d, options);
  Count(d);
  PairNotes(where, b, n, notes);
  return d;
}

}  // namespace

std::vector<SequenceDelta> SequenceDeltas(const ReportSet& base, const ReportSet& next, const CompareOptions& options,
                                          std::vector<std::string>& notes) {
  analysis::SourceSequences base_merged, new_merged;
  const analysis::SourceSequences* bs = TimedSequences(base, base_merged);
  const analysis::SourceSequences* ns = TimedSequences(next, new_merged);
  if (!bs || !ns) {
    notes.push_back(fmt::format(
        "launch order is not aligned: the {} side has no launch sequence (a summary input, or a report_set.json "
        "written before schema 1.2.0); kernels are matched by name only",
        bs ? "new" : "base"));
    return {};
  }
  std::size_t unpaired = 0;
  std::vector<SequenceDelta> out;
  for (const Pair& p : PairScopes(Index(*bs), Index(*ns), unpaired)) {
    if (auto d = Align(p.path, p.scope, *bs, *p.base, *ns, *p.next, options, notes)) out.push_back(std::move(*d));
  }
  if (unpaired) {
    notes.push_back(fmt::format("{} launch sequence(s) (a region in one scope) have no counterpart on the other side "
                                "and are not aligned",
                                unpaired));
  }
  for (const auto* side : {bs, ns}) {
    if (side->launches_not_recorded) {
      notes.push_back(fmt::format("the {} side has {} launch(es) in regions beyond the {} sequences kept per input",
                                  side == bs ? "base" : "new", side->launches_not_recorded, analysis::kMaxSequences));
    }
  }
  // The largest change first: per instance, times the new side's instances.
  std::stable_sort(out.begin(), out.end(), [](const SequenceDelta& a, const SequenceDelta& b) {
    return std::fabs(a.delta_instance_ns.value_or(0) * static_cast<double>(a.new_instances)) >
           std::fabs(b.delta_instance_ns.value_or(0) * static_cast<double>(b.new_instances));
  });
  return out;
}

}  // namespace llmpo::report

#include "src/analysis/kernel_findings.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace llmpo::analysis {
namespace {

bool SameKey(const KernelFinding& k, const model::Finding& f, std::size_t occurrence) {
  return k.occurrence == occurrence && k.finding.rule == f.rule && k.finding.section == f.section &&
         k.finding.type == f.type && k.finding.speedup_kind == f.speedup_kind;
}

KernelFinding& Slot(std::vector<KernelFinding>& into, const model::Finding& f, std::size_t occurrence) {
  for (auto& k : into) {
    if (SameKey(k, f, occurrence)) return k;
  }
  KernelFinding fresh;
  fresh.finding = f;
  fresh.occurrence = occurrence;
  return into.emplace_back(std::move(fresh));
}

// Keeps the message of the larger speedup.
void TakeMessage(KernelFinding& k, const model::Finding& f) {
  if (f.speedup_pct && (!k.finding.speedup_pct || *f.speedup_pct > *k.finding.speedup_pct)) k.finding = f;
}

}  // namespace

std::optional<double> KernelFinding::MeanSpeedupPct() const {
  if (speedup_values == 0) return std::nullopt;
  if (speedup_unweighted == 0 && speedup_weight_ns > 0) return speedup_weighted_sum / speedup_weight_ns;
  return speedup_sum / static_cast<double>(speedup_values);
}

void AddFindings(std::vector<KernelFinding>& into, const std::vector<model::Finding>& launch_findings,
                 std::optional<double> duration_ns) {
  std::map<std::tuple<std::string, std::string, model::FindingType, std::optional<model::SpeedupKind>>, std::size_t>
      seen;
  for (const auto& f : launch_findings) {
    const std::size_t occurrence = seen[{f.rule, f.section, f.type, f.speedup_kind}]++;
    const bool fresh = std::none_of(into.begin(), into.end(), [&](const auto& k) { return SameKey(k, f, occurrence); });
    KernelFinding& k = Slot(into, f, occurrence);
    if (!fresh) TakeMessage(k, f);
    ++k.launches;
    if (!f.speedup_pct) continue;
    ++k.speedup_values;
    k.speedup_sum += *f.speedup_pct;
    if (duration_ns && *duration_ns > 0) {
      k.speedup_weighted_sum += *f.speedup_pct * *duration_ns;
      k.speedup_weight_ns += *duration_ns;
    } else {
      ++k.speedup_unweighted;
    }
  }
}

void MergeFindings(std::vector<KernelFinding>& into, const std::vector<KernelFinding>& other) {
  for (const auto& o : other) {
    const bool fresh =
        std::none_of(into.begin(), into.end(), [&](const auto& k) { return SameKey(k, o.finding, o.occurrence); });
    KernelFinding& k = Slot(into, o.finding, o.occurrence);
    if (fresh) {
      k = o;
      continue;
    }
    TakeMessage(k, o.finding);
    k.launches += o.launches;
    k.speedup_values += o.speedup_values;
    k.speedup_sum += o.speedup_sum;
    k.speedup_weighted_sum += o.speedup_weighted_sum;
    k.speedup_weight_ns += o.speedup_weight_ns;
    k.speedup_unweighted += o.speedup_unweighted;
  }
}

const KernelFinding* TopGlobalFinding(const std::vector<KernelFinding>& findings) {
  const KernelFinding* best = nullptr;
  std::optional<double> best_pct;
  for (const auto& k : findings) {
    if (k.finding.speedup_kind != model::SpeedupKind::kGlobal) continue;
    const auto pct = k.MeanSpeedupPct();
    if (pct && (!best_pct || *pct > *best_pct)) best = &k, best_pct = pct;
  }
  return best;
}

}  // namespace llmpo::analysis

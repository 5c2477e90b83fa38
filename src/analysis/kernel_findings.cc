#include "src/analysis/kernel_findings.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <tuple>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace llmpo::analysis {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// The first ASCII digit in text[i, n), or n.
std::size_t NextDigit(const char* text, std::size_t i, std::size_t n) {
#if defined(__SSE2__)
  const __m128i below = _mm_set1_epi8('0' - 1);
  const __m128i above = _mm_set1_epi8('9' + 1);
  for (; i + 16 <= n; i += 16) {
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text + i));
    // Signed compares: bytes of 0x80 and up are negative, so never digits.
    const __m128i digits = _mm_and_si128(_mm_cmpgt_epi8(bytes, below), _mm_cmplt_epi8(bytes, above));
    const int mask = _mm_movemask_epi8(digits);
    if (mask != 0) return i + static_cast<std::size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
  }
#endif
  while (i < n && !IsDigit(text[i])) ++i;
  return i;
}

// What makes two findings one: rule, section, type, speedup kind, message
// shape and occurrence (the n-th finding of that key in a launch).
using FindingKey = std::tuple<std::string, std::string, model::FindingType, std::optional<model::SpeedupKind>,
                              std::string, std::size_t>;

FindingKey KeyOf(const model::Finding& f, const std::string& shape, std::size_t occurrence) {
  return {f.rule, f.section, f.type, f.speedup_kind, shape, occurrence};
}

bool SameKey(const model::Finding& a, const std::string& a_shape, const model::Finding& b,
             const std::string& b_shape) {
  return a.type == b.type && a.speedup_kind == b.speedup_kind && a.rule == b.rule && a.section == b.section &&
         a_shape == b_shape;
}

// Up to this many findings a linear search beats building a map of copied
// keys (the common case: a kernel has a few rule results per launch).
constexpr std::size_t kLinearFindings = 64;

// The kernel's findings by key (index into `into`): a walk while they are
// few, a map of keys once they are many (a result with 100,000 rule messages
// costs a lookup each, not a walk of all). Either way the first finding of a
// key is the one found.
class FindingIndex {
 public:
  explicit FindingIndex(std::vector<KernelFinding>& into) : into_(into) {}
  KernelFinding* Existing(const model::Finding& f, const std::string& shape, std::size_t occurrence) {
    if (!indexed_ && into_.size() > kLinearFindings) Build();
    if (!indexed_) {
      for (KernelFinding& k : into_) {
        if (k.occurrence == occurrence && SameKey(k.finding, k.shape, f, shape)) return &k;
      }
      return nullptr;
    }
    const auto it = index_.find(KeyOf(f, shape, occurrence));
    return it == index_.end() ? nullptr : &into_[it->second];
  }
  KernelFinding& Add(KernelFinding k) {
    if (indexed_) index_.try_emplace(KeyOf(k.finding, k.shape, k.occurrence), into_.size());
    return into_.emplace_back(std::move(k));
  }

 private:
  void Build() {
    for (std::size_t i = 0; i < into_.size(); ++i) {
      index_.try_emplace(KeyOf(into_[i].finding, into_[i].shape, into_[i].occurrence), i);
    }
    indexed_ = true;
  }
  std::vector<KernelFinding>& into_;
  std::map<FindingKey, std::size_t> index_;
  bool indexed_ = false;
};

// Keeps the message of the larger speedup.
void TakeMessage(KernelFinding& k, const model::Finding& f) {
  if (f.speedup_pct && (!k.finding.speedup_pct || *f.speedup_pct > *k.finding.speedup_pct)) k.finding = f;
}

}  // namespace

std::string MessageShape(std::string_view message) {
  // Written through a pointer into a buffer of the message's size (the shape
  // is never longer): rule messages are long, and this runs per launch. The
  // text between numbers is found 16 bytes at a time and copied in one go.
  std::string out(message.size(), '\0');
  char* o = out.data();
  const char* text = message.data();
  const std::size_t n = message.size();
  for (std::size_t i = 0; i < n;) {
    const std::size_t digit = NextDigit(text, i, n);
    std::memcpy(o, text + i, digit - i);
    o += digit - i;
    i = digit;
    if (i == n) break;
    // Digits, with '.' or ',' between digits ("6.334", "1,024"): one number.
    while (i < n && (IsDigit(text[i]) || ((text[i] == '.' || text[i] == ',') && i + 1 < n && IsDigit(text[i + 1])))) {
      ++i;
    }
    *o++ = '#';
  }
  out.resize(static_cast<std::size_t>(o - out.data()));
  return out;
}

std::optional<double> KernelFinding::MeanSpeedupPct() const {
  if (speedup_values == 0) return std::nullopt;
  if (speedup_unweighted == 0 && speedup_weight_ns > 0) return speedup_weighted_sum / speedup_weight_ns;
  return speedup_sum / static_cast<double>(speedup_values);
}

void AddFindings(std::vector<KernelFinding>& into, const std::vector<model::Finding>& launch_findings,
                 std::optional<double> duration_ns) {
  std::vector<std::string> shapes;
  shapes.reserve(launch_findings.size());
  std::map<std::tuple<std::string, std::string, model::FindingType, std::optional<model::SpeedupKind>, std::string>,
           std::size_t>
      seen;  // only for launches with many findings
  const bool few = launch_findings.size() <= kLinearFindings;
  FindingIndex index(into);
  for (std::size_t i = 0; i < launch_findings.size(); ++i) {
    const model::Finding& f = launch_findings[i];
    const std::string& shape = shapes.emplace_back(MessageShape(f.message));
    std::size_t occurrence = 0;  // earlier findings of this launch with the same key
    if (few) {
      for (std::size_t j = 0; j < i; ++j) occurrence += SameKey(launch_findings[j], shapes[j], f, shape) ? 1 : 0;
    } else {
      occurrence = seen[{f.rule, f.section, f.type, f.speedup_kind, shape}]++;
    }
    KernelFinding* existing = index.Existing(f, shape, occurrence);
    if (existing != nullptr) TakeMessage(*existing, f);
    KernelFinding& k = existing != nullptr ? *existing : index.Add(KernelFinding{f, shape, occurrence});
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
  FindingIndex index(into);
  for (const auto& o : other) {
    KernelFinding* existing = index.Existing(o.finding, o.shape, o.occurrence);
    if (existing == nullptr) {
      index.Add(o);
      continue;
    }
    KernelFinding& k = *existing;
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

#include "src/analysis/significance.h"

#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <algorithm>
#include <cmath>

namespace llmpo::analysis {

std::string_view ToString(Verdict v) {
  switch (v) {
    case Verdict::kSlower:
      return "slower";
    case Verdict::kFaster:
      return "faster";
    case Verdict::kWithinNoise:
      break;
  }
  return "within noise";
}

std::optional<double> WelchP(const Samples& a, const Samples& b) {
  if (a.n < 2 || b.n < 2 || !a.sum_sq_dev || !b.sum_sq_dev) return std::nullopt;
  const double na = static_cast<double>(a.n), nb = static_cast<double>(b.n);
  const double va = *a.sum_sq_dev / (na - 1) / na;  // squared standard error of each mean
  const double vb = *b.sum_sq_dev / (nb - 1) / nb;
  const double se2 = va + vb;
  if (!(se2 > 0)) return a.mean == b.mean ? 1.0 : 0.0;  // no spread at all: any difference is exact
  const double t = std::fabs(a.mean - b.mean) / std::sqrt(se2);
  const double df = se2 * se2 / (va * va / (na - 1) + vb * vb / (nb - 1));
  const boost::math::students_t dist(df);
  return 2 * boost::math::cdf(boost::math::complement(dist, t));
}

std::optional<double> TotalVariance(std::uint64_t n, std::optional<double> sum_sq_dev) {
  if (n < 2) return 0.0;
  if (!sum_sq_dev) return std::nullopt;
  return static_cast<double>(n) * *sum_sq_dev / static_cast<double>(n - 1);
}

namespace {

ChangeTest Decide(ChangeTest out, double base, double next, const SignificanceOptions& options) {
  if (base != 0) out.change_pct = (next - base) / base * 100;
  out.tested = out.p_value.has_value();
  // Without a base value any growth is a change; equal zeros are none.
  const bool large = out.change_pct ? std::fabs(*out.change_pct) >= options.min_effect_pct : next != base;
  const bool significant = !out.tested || *out.p_value < options.alpha;
  if (large && significant) out.verdict = next > base ? Verdict::kSlower : Verdict::kFaster;
  return out;
}

}  // namespace

ChangeTest TestTotal(double base, std::optional<double> base_var, double next, std::optional<double> next_var,
                     const SignificanceOptions& options) {
  ChangeTest out;
  if (base_var && next_var) {
    const double var = *base_var + *next_var;
    if (var > 0) {
      const boost::math::normal standard;
      out.p_value = 2 * boost::math::cdf(boost::math::complement(standard, std::fabs(next - base) / std::sqrt(var)));
    } else {
      out.p_value = next == base ? 1.0 : 0.0;
    }
  }
  return Decide(out, base, next, options);
}

std::vector<double> HolmAdjusted(const std::vector<double>& p) {
  std::vector<std::size_t> order(p.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return p[a] < p[b]; });
  std::vector<double> out(p.size());
  double running = 0;
  for (std::size_t rank = 0; rank < order.size(); ++rank) {
    const double scaled = p[order[rank]] * static_cast<double>(order.size() - rank);
    running = std::min(1.0, std::max(running, scaled));
    out[order[rank]] = running;
  }
  return out;
}

ChangeTest TestChange(const Samples& base, const Samples& next, const SignificanceOptions& options) {
  ChangeTest out;
  out.p_value = WelchP(base, next);
  return Decide(out, base.mean, next.mean, options);
}

}  // namespace llmpo::analysis

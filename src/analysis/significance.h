// Is a change in a duration real or run-to-run noise? Each side is
// summarised by its sample count, mean and spread (sum of squared
// deviations, as KernelAggregate keeps it), and the two means are compared
// with Welch's two-sided t-test (unequal variances, Welch-Satterthwaite
// degrees of freedom; Boost.Math's Student t). A change is called slower
// or faster only when it is both significant (p < alpha) and at least
// `min_effect_pct` of the base; a side with fewer than two samples or no
// known spread is not tested, and the call rests on the effect size alone,
// which the verdict says (docs/compare.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace llmpo::analysis {

struct Samples {
  std::uint64_t n = 0;
  double mean = 0;
  std::optional<double> sum_sq_dev;  // sum of squared deviations from the mean; null: unknown
};

enum class Verdict {
  kSlower,       // larger, beyond the effect threshold and noise
  kFaster,       // smaller, beyond both
  kWithinNoise,  // smaller than the effect threshold, or not significant
};
std::string_view ToString(Verdict v);  // "slower", "faster", "within noise"

struct ChangeTest {
  Verdict verdict = Verdict::kWithinNoise;
  bool tested = false;               // false: no noise data on a side; decided by the effect size alone
  std::optional<double> p_value;     // Welch's two-sided p; null when not tested
  std::optional<double> change_pct;  // (new - base) / base * 100; null when base is 0
};

struct SignificanceOptions {
  double alpha = 0.01;          // significance level
  double min_effect_pct = 2.0;  // smallest relative change of the mean that counts (--threshold)
};

ChangeTest TestChange(const Samples& base, const Samples& next, const SignificanceOptions& options);

// A change of a total (a sum of launch durations: a region's or the run's
// GPU kernel time), each side with the variance of its total (the sum over
// its kernels of launches x sample variance); a two-sided z-test (normal
// approximation: a sum of many launches). Untested when a variance is unknown.
ChangeTest TestTotal(double base, std::optional<double> base_var, double next, std::optional<double> next_var,
                     const SignificanceOptions& options);

// The variance of a kernel's total GPU time from its launches: n s^2, with
// s^2 = spread / (n - 1); one launch adds none; null when the spread is unknown.
std::optional<double> TotalVariance(std::uint64_t n, std::optional<double> sum_sq_dev);

// Holm's step-down adjustment of a family of p-values (each compared with
// alpha after it): p_(i) times (m - i + 1), made monotone, capped at 1; in
// the order given. Keeps the chance of any false "slower" in the family at
// alpha, where testing each alone would call about alpha x m of them.
std::vector<double> HolmAdjusted(const std::vector<double>& p);

// Welch's two-sided p-value for the difference of two means; null when
// either side has fewer than two samples or no known spread.
std::optional<double> WelchP(const Samples& a, const Samples& b);

}  // namespace llmpo::analysis

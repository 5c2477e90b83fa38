// ScopeCopy (one scope's rows copied) gives compare the same side as a whole
// copy narrowed by SelectScope: the compare report of every pair of ranks
// is the same JSON either way. Over the shared 8-rank DLRM archive (skipped
// when ../shared/fixtures is absent) and the project's own rank-3 trace
// beside an unranked one.
#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <vector>

#include "src/report/compare_model.h"
#include "tests/unit/import_for_test.h"
#include "tests/unit/temp_dir.h"

namespace llmpo::report {
namespace {

namespace fs = std::filesystem;

std::optional<ReportSet> NarrowedWhole(const ReportSet& set, const ScopeFilter& filter) {
  ReportSet copy = set;
  if (SelectScope(copy, filter)) return std::nullopt;
  return copy;
}

std::string CompareOf(const ReportSet& base, const ReportSet& next) {
  return CompareJson(BuildCompareReport({{"base", &base}, {"new", &next}}, CompareOptions{}));
}

// Every ordered pair of the ranks 0..max_rank (absent ranks included: both
// ways refuse them).
void ExpectSameSides(const ReportSet& set, int max_rank) {
  struct Sides {
    std::optional<ReportSet> whole, copied;
  };
  std::vector<Sides> by_rank;
  for (int r = 0; r <= max_rank; ++r) {
    const ScopeFilter filter{"rank", std::to_string(r)};
    by_rank.push_back({NarrowedWhole(set, filter), ScopeCopy(set, filter)});
    EXPECT_EQ(by_rank.back().whole.has_value(), by_rank.back().copied.has_value()) << "rank " << r;
  }
  int compared = 0;
  for (std::size_t b = 0; b < by_rank.size(); ++b) {
    for (std::size_t n = 0; n < by_rank.size(); ++n) {
      const Sides &base = by_rank[b], &next = by_rank[n];
      if (!base.whole || !base.copied || !next.whole || !next.copied) continue;
      EXPECT_EQ(CompareOf(*base.whole, *next.whole), CompareOf(*base.copied, *next.copied))
          << "ranks " << b << " and " << n;
      ++compared;
    }
  }
  EXPECT_GT(compared, 0);
}

TEST(ScopeCopy, EveryRankPairOfTheDlrmArchiveComparesAsTheNarrowedWholeSet) {
  const fs::path tar =
      fs::path(LLMPO_SOURCE_DIR) / ".." / "shared" / "fixtures" / "kineto" / "param-dlrm-8ranks.tar.gz";
  if (!fs::exists(tar)) GTEST_SKIP() << "no shared fixtures at " << tar;
  testing::TempDir scratch;
  const auto built = testing::ImportForTest({tar}, scratch.path());
  ExpectSameSides(built.set, 8);
}

TEST(ScopeCopy, ARankedTraceBesideAnUnrankedOneComparesAsTheNarrowedWholeSet) {
  const fs::path dir = fs::path(LLMPO_SOURCE_DIR) / "tests" / "fixtures" / "handmade";
  testing::TempDir scratch;
  const auto built = testing::ImportForTest({dir / "kineto_rank3.json", dir / "kineto_pairing.json"}, scratch.path());
  ExpectSameSides(built.set, 3);
  EXPECT_FALSE(ScopeCopy(built.set, ScopeFilter{"rank", "1"}).has_value());  // no kernel ran there
}

}  // namespace
}  // namespace llmpo::report

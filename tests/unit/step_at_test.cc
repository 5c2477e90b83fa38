// phase_detail::StepAt with a hint (the streaming phase pass) must answer as
// the plain search does, for times in call order and out of it, over steps
// that nest, share starts, leave gaps and sit in two scopes.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "src/analysis/phase_graphs.h"
#include "src/analysis/phase_internal.h"

namespace llmpo::analysis::phase_detail {
namespace {

Steps MakeSteps() {
  Steps steps;
  steps.by_scope.resize(2);
  auto add = [&](std::uint32_t scope, std::int64_t start, std::int64_t end) {
    PhaseStep s;
    s.cpu_start_ns = start, s.cpu_end_ns = end;
    steps.by_scope[scope].push_back(static_cast<std::uint32_t>(steps.steps.size()));
    steps.steps.push_back(s);
  };
  // Scope 0, by start: back to back, a gap, a step nested in its parent, two with one start.
  for (std::int64_t i = 0; i < 20; ++i) add(0, i * 100, i * 100 + 99);
  add(0, 2500, 2900);
  add(0, 2600, 2700);
  add(0, 3000, 3050);
  add(0, 3000, 3200);
  // Scope 1: a few long steps.
  for (std::int64_t i = 0; i < 5; ++i) add(1, i * 1000, i * 1000 + 500);
  return steps;
}

TEST(StepAt, TheHintGivesThePlainSearchsAnswers) {
  const Steps steps = MakeSteps();
  std::vector<std::int64_t> times;
  for (std::int64_t t = -10; t < 5200; t += 7) times.push_back(t);  // in order
  for (std::int64_t t = 5200; t > -10; t -= 13) times.push_back(t);  // backwards
  for (std::int64_t t : {2650, 2550, 2650, 3025, 3100, 3025, 99, 100, 2899, 2900, 2901}) times.push_back(t);
  std::size_t hinted_found = 0;
  for (std::uint32_t scope = 0; scope < 2; ++scope) {
    StepHint hint;
    for (std::int64_t t : times) {
      const std::uint32_t plain = StepAt(steps, scope, t);
      EXPECT_EQ(StepAt(steps, scope, t, hint), plain) << "scope " << scope << ", t " << t;
      hinted_found += plain != kNoPhaseStep;
    }
  }
  EXPECT_GT(hinted_found, 500u);
  StepHint hint;
  EXPECT_EQ(StepAt(steps, 0, 2650, hint), 21u);  // the nested step, not its parent
  EXPECT_EQ(StepAt(steps, 0, 2800, hint), 20u);  // the parent again once the nested one ended
  EXPECT_EQ(StepAt(steps, 0, 3100, hint), 23u);  // of two with one start, the one still open
  EXPECT_EQ(StepAt(steps, 1, 2800, hint), kNoPhaseStep);  // between scope 1's steps
}

}  // namespace
}  // namespace llmpo::analysis::phase_detail

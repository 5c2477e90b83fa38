// Partial results written a member at a time and read with their per-rank
// arrays taken element by element (src/report/partial_set.h): the same
// bytes and the same set as the whole-document path.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "src/report/partial_set.h"

namespace llmpo::report {
namespace {

// Two of each per-rank array's elements, and something in the rest.
PartialSet TwoRanks() {
  PartialSet p;
  p.job = "j";
  for (int rank = 0; rank < 2; ++rank) {
    RegionInputPart part;
    part.source = "rank" + std::to_string(rank) + ".json";
    part.launches = 10 + rank;
    p.regions.push_back(part);
    analysis::SourceSequences sequences;
    sequences.source = part.source;
    sequences.launches_not_recorded = rank;
    p.launch_sequences.push_back(sequences);
    model::DeviceBreakdown device;
    device.source = part.source;
    device.rank = rank;
    device.world_size = 2;
    device.kernel_ns = 1.5e6 * (rank + 1);
    p.gpu_breakdown.devices.push_back(device);
    analysis::PhaseInput::Range range;
    range.name = "ProfilerStep#" + std::to_string(rank);
    range.start = 100 * rank;
    range.end = 100 * rank + 50;
    range.scope = static_cast<std::uint32_t>(rank);
    p.phases.ranges.push_back(range);
    analysis::PhaseInput::StepKernels step;
    step.scope = static_cast<std::uint32_t>(rank);
    step.gpu_ns = 40.0 + rank;
    step.names.push_back({40.0 + rank, 1, 2});
    p.phases.digest.steps.push_back(step);
  }
  p.phases.scopes = {"rank0.json", "rank1.json"};
  p.phases.names.push_back("gemm");
  p.phases.digest.outside = 3;
  p.unused_kernel_patterns = {"nccl"};
  return p;
}

// nlohmann's own dump(2) of the text's document: the layout the partial
// written a piece at a time must have.
std::string Dump2(const std::string& text) { return nlohmann::ordered_json::parse(text).dump(2) + "\n"; }

TEST(PartialSetJson, WrittenInPiecesItIsTheDocumentsDump) {
  const std::string text = PartialSetJson(TwoRanks());
  EXPECT_EQ(text, Dump2(text));
  const auto doc = nlohmann::ordered_json::parse(text);
  EXPECT_EQ(doc.at("regions").size(), 2U);
  EXPECT_EQ(doc.at("launch_sequences").size(), 2U);
  EXPECT_EQ(doc.at("gpu_breakdown").at("devices").size(), 2U);
  EXPECT_EQ(doc.at("phases").at("ranges").size(), 2U);
  EXPECT_EQ(doc.at("phases").at("digest").at("steps").size(), 2U);
  EXPECT_EQ(doc.at("phases").at("digest").at("outside"), 3);
  EXPECT_EQ(doc.at("phases").at("ranges").at(1).at("name"), "ProfilerStep#1");
  const std::string empty = PartialSetJson(PartialSet{});
  EXPECT_EQ(empty, Dump2(empty));
}

TEST(PartialSetJson, TheStreamGetsTheSameBytes) {
  std::ostringstream out;
  WritePartialSetJson(TwoRanks(), out);
  EXPECT_EQ(out.str(), PartialSetJson(TwoRanks()));
}

TEST(PartialSetJson, ReadElementByElementGivesTheSameSet) {
  const std::string text = PartialSetJson(TwoRanks());
  const auto read = ReadPartialSetJson(text, "p.json");
  ASSERT_TRUE(read.ok()) << read.error().message;
  EXPECT_EQ(read->regions.size(), 2U);
  EXPECT_EQ(read->phases.ranges.size(), 2U);
  EXPECT_EQ(read->phases.digest.steps.size(), 2U);
  EXPECT_EQ(read->gpu_breakdown.devices.size(), 2U);
  EXPECT_EQ(read->launch_sequences.size(), 2U);
  EXPECT_EQ(PartialSetJson(*read), text);
}

TEST(PartialSetJson, SchemaAfterTheOtherMembersStillReads) {
  std::string text = PartialSetJson(TwoRanks());
  // Move "schema" to the end: the reader then keeps the whole document.
  const std::string schema_line = "  \"schema\": \"llm-perf-opt.partial\",\n";
  const std::size_t at = text.find(schema_line);
  ASSERT_NE(at, std::string::npos);
  text.erase(at, schema_line.size());
  text.insert(text.rfind("\n}"), ",\n  \"schema\": \"llm-perf-opt.partial\"");
  const auto read = ReadPartialSetJson(text, "p.json");
  ASSERT_TRUE(read.ok()) << read.error().message;
  EXPECT_EQ(PartialSetJson(*read), PartialSetJson(TwoRanks()));
}

TEST(PartialSetJson, ABadElementIsNamedByItsArray) {
  std::string text = PartialSetJson(TwoRanks());
  const std::size_t at = text.find("\"name\": \"ProfilerStep#1\"");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, std::string("\"name\": \"ProfilerStep#1\"").size(), "\"name\": 7");
  const auto read = ReadPartialSetJson(text, "p.json");
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.error().kind, ExitStatus::kInput);
  EXPECT_NE(read.error().message.find("p.json: not a partial result this build can read: an element of "
                                      "phases.ranges: "),
            std::string::npos)
      << read.error().message;
}

TEST(PartialSetJson, AReportSetIsStillRefusedAsNoPartial) {
  const auto read = ReadPartialSetJson(R"({"schema_version": "1.2.0", "kernels": {}, "page": {}})", "r.json");
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.error().message.find("it is a report_set.json"), std::string::npos) << read.error().message;
}

}  // namespace
}  // namespace llmpo::report

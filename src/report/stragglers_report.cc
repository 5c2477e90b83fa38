#include "src/report/stragglers_report.h"

#include <fmt/format.h>

#include "src/report/json_writer.h"
#include "src/report/text_format.h"

namespace llmpo::report {
namespace {

std::string QuantityText(const std::string& q) { return q == "total" ? "GPU time" : "CPU range time"; }

void TableMd(std::string& out, const std::vector<analysis::StragglerRow>& rows, std::string_view first) {
  out += fmt::format("| {} | measured | ranks | slowest rank | slowest ms | median ms | fastest rank | fastest ms | "
                     "slowest - median ms | over median % |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n",
                     first);
  for (const auto& r : rows) {
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", MdCell(r.region),
                       QuantityText(r.quantity), r.ranks, r.slowest_rank, MsText(r.slowest_ns), MsText(r.median_ns),
                       r.fastest_rank, MsText(r.fastest_ns), MsText(r.excess_ns),
                       r.excess_pct ? fmt::format("{:.1f}", *r.excess_pct) : "n/a");
  }
}

void RowsJson(JsonWriter& w, std::string_view key, const std::vector<analysis::StragglerRow>& rows) {
  w.Key(key);
  w.BeginArray();
  for (const auto& r : rows) {
    w.BeginObject();
    w.Member("region", r.region);
    w.Member("quantity", r.quantity);
    w.Member("ranks", r.ranks);
    w.Member("slowest_rank", r.slowest_rank);
    w.Member("slowest_ms", r.slowest_ns / 1e6);
    w.Member("median_ms", r.median_ns / 1e6);
    w.Member("fastest_rank", r.fastest_rank);
    w.Member("fastest_ms", r.fastest_ns / 1e6);
    w.Member("excess_ms", r.excess_ns / 1e6);
    w.Member("excess_pct", r.excess_pct);
    w.EndObject();
  }
  w.EndArray();
}

}  // namespace

std::string StragglersMarkdown(const analysis::Stragglers& s) {
  std::string out = fmt::format(
      "# Stragglers across {} ranks\n\nPer region that several ranks ran: the slowest rank, and how far it is above "
      "the median rank (a rank's devices added; GPU time where every rank has it, else CPU range time).\n\n",
      s.ranks);
  out += "## Steps\n\n";
  if (s.steps.empty()) {
    out += "No top-level step region (ProfilerStep#N, \"step N\") was run by two or more ranks.\n\n";
  } else {
    TableMd(out, s.steps, "step");
    out += "\n";
  }
  out += "## Regions with the largest excess over the median rank\n\n";
  if (s.regions.empty()) {
    out += "No other region was run by two or more ranks.\n";
  } else {
    TableMd(out, s.regions, "region");
  }
  return out;
}

std::string StragglersJson(const analysis::Stragglers& s) {
  std::string out;
  JsonWriter w(out);
  w.BeginObject();
  w.Member("schema_version", "1.0.0");
  w.Member("ranks", s.ranks);
  RowsJson(w, "steps", s.steps);
  RowsJson(w, "regions", s.regions);
  w.EndObject();
  out += '\n';
  return out;
}

}  // namespace llmpo::report

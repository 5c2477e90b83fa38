#include "src/report/stragglers_report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

#include "src/report/json_writer.h"
#include "src/report/text_format.h"

namespace llmpo::report {
namespace {

constexpr std::size_t kMdStepRows = 32;

std::string QuantityText(const std::string& q) { return q == "total" ? "GPU time" : "CPU range time"; }

void TableMd(std::string& out, const std::vector<analysis::StragglerRow>& rows, std::string_view first) {
  out += fmt::format(
      "| {} | measured | ranks | slowest rank | slowest ms | median ms | fastest rank | fastest ms | "
      "slowest - median ms | over median % |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n",
      first);
  for (const auto& r : rows) {
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", MdPathCell(r.region),
                       QuantityText(r.quantity), r.ranks, r.slowest_rank, MsText(r.slowest_ns), MsText(r.median_ns),
                       r.fastest_rank, MsText(r.fastest_ns), MsText(r.excess_ns),
                       r.excess_pct ? fmt::format("{:.1f}", *r.excess_pct) : "n/a");
  }
}

void CollectivesJson(JsonWriter& w, std::string_view key, const std::vector<analysis::RankCollectives>& rows) {
  w.Key(key);
  w.BeginArray();
  for (const auto& r : rows) {
    w.BeginObject();
    w.Member("rank", r.rank);
    w.Member("communication_ms", r.communication_ns / 1e6);
    w.Member("beyond_least_ms", r.beyond_least_ns / 1e6);
    w.EndObject();
  }
  w.EndArray();
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
    if (!r.per_rank_ns.empty()) {
      w.Key("per_rank_ms");
      w.BeginObject();
      for (const auto& [rank, ns] : r.per_rank_ns) w.Member(std::to_string(rank), ns / 1e6);
      w.EndObject();
    }
    if (!r.collectives.empty()) CollectivesJson(w, "collectives", r.collectives);
    w.EndObject();
  }
  w.EndArray();
}

// Per step shown, the rank that waited longest in collectives beyond the
// rank with the least (which arrived last), when two ranks communicated.
void StepCollectivesMd(std::string& out, const std::vector<analysis::StragglerRow>& rows) {
  std::string table;
  for (const auto& r : rows) {
    const auto wait = analysis::LongestWait(r);
    if (!wait) continue;
    const auto& [most, least] = *wait;
    table +=
        fmt::format("| {} | {} | {} | {} | {} | {} |\n", MdPathCell(r.region), most.rank, MsText(most.communication_ns),
                    MsText(most.beyond_least_ns), least.rank, MsText(least.communication_ns));
  }
  if (table.empty()) return;
  out +=
      "### Collective wait per step\n\nPer step, the communication kernels each rank launched in it (the sum of "
      "their durations): the rank whose time exceeds the least by most waited longest for the others; the rank "
      "with the least arrived last (every rank: stragglers.json). The step's GPU time includes these kernels: "
      "where its slowest rank is the one that waited longest, the excess is waiting for the rank that arrived "
      "last, not that rank's own work.\n\n"
      "| step | waited longest: rank | its communication ms | beyond the least ms | least: rank | least ms "
      "|\n|---|---:|---:|---:|---:|---:|\n" +
      table + "\n";
}

std::string_view ClockText(analysis::StartClock c) {
  return c == analysis::StartClock::kOneHost
             ? "one clock: every rank ran on one host"
             : "Unix time as each rank's host gave it (tracer clock pairs, PyTorch's timestamps, nsys' session "
               "start), as close as the hosts' clocks agree (NTP, PTP); no offset between hosts was measured";
}

// Per step shown whose every rank's start is known: when the first and the
// last rank began it.
void LateStartsMd(std::string& out, const analysis::Stragglers& s, const std::vector<analysis::StragglerRow>& rows) {
  std::string table;
  for (const auto& r : rows) {
    const auto late = std::find_if(s.late_starts.begin(), s.late_starts.end(),
                                   [&](const analysis::LateStart& l) { return l.step == r.region; });
    if (late == s.late_starts.end()) continue;
    table += fmt::format("| {} | {} | {} | {} | {} |\n", MdCell(late->step), late->ranks, late->first_rank,
                         late->latest_rank, MsText(late->latest_after_first_ns));
  }
  if (table.empty()) return;
  out += fmt::format(
      "### Late start per step\n\nPer step, the rank that began it first, the one that began it last, and how much "
      "later (every rank: stragglers.json). A blocking collective ends at about the same time on every rank, so a "
      "rank that begins a step late was held up before it: in the step before, or between steps. Clock: {}.\n\n"
      "| step | ranks | first: rank | last: rank | last began after the first ms |\n|---|---:|---:|---:|---:|\n",
      ClockText(s.start_clock));
  out += table + "\n";
}

// The steps table: every step when few, else the ones furthest over their median.
void StepsMd(std::string& out, const analysis::Stragglers& s) {
  out += "## Steps\n\n";
  if (s.steps.empty()) {
    out +=
        "No top-level step region (ProfilerStep#N, \"step N\", or numbered steps folded into \"step N\") was run by "
        "two or more ranks.\n\n";
    return;
  }
  std::vector<analysis::StragglerRow> rows = s.steps;
  const std::size_t all = rows.size() + s.steps_omitted;
  if (rows.size() > kMdStepRows) {
    std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.excess_ns > b.excess_ns; });
    rows.resize(kMdStepRows);
    out += fmt::format(
        "{} steps; the {} with the largest excess over the median rank (every step: stragglers.json, "
        "report.html's heatmap).\n\n",
        all, kMdStepRows);
  }
  TableMd(out, rows, "step");
  if (s.steps_omitted > 0) {
    out += fmt::format("\n{} later steps are not compared (at most {} steps are kept).\n", s.steps_omitted,
                       analysis::kMaxStepRows);
  }
  out += "\n";
  LateStartsMd(out, s, rows);
  StepCollectivesMd(out, rows);
}

void CollectivesMd(std::string& out, const std::vector<analysis::RankCollectives>& rows) {
  if (rows.empty()) return;
  out +=
      "\n## Time in collectives\n\nPer rank, its communication kernel time (NCCL and the like; the union of their "
      "intervals, devices added) and how much it exceeds the rank with the least. Ranks move the same bytes in a "
      "collective, so the excess is mostly time spent waiting for later ranks (an upper bound: unequal "
      "communication work shows here too). The rank with the least waited least: it arrived last.\n\n"
      "| rank | communication ms | beyond the least ms |\n|---:|---:|---:|\n";
  for (const auto& r : rows) {
    out += fmt::format("| {} | {} | {} |\n", r.rank, MsText(r.communication_ns), MsText(r.beyond_least_ns));
  }
}

// Whether some rank's identity comes from a launcher's rank records.
bool LaunchedRun(const analysis::Stragglers& s) {
  return std::any_of(s.who.begin(), s.who.end(), [](const analysis::RankWho& w) { return !w.ended.empty(); });
}

std::string ListText(const std::vector<std::string>& items) {
  return items.empty() ? "?" : fmt::format("{}", fmt::join(items, ", "));
}

// Who each rank is, so that a rank named above can be found on the cluster.
void WhoMd(std::string& out, const analysis::Stragglers& s) {
  const std::vector<const analysis::RankWho*> shown = WhoShown(s);
  if (shown.empty()) return;
  const bool launched = LaunchedRun(s);
  out += fmt::format(
      "\n## Ranks\n\nWho each rank is, as its inputs said (? where none said): the host it ran on, {}its process, "
      "its devices, the world size it was launched in, {}and the files its numbers come from{}.\n\n",
      launched ? "its node and local rank as the launcher set them, " : "",
      launched ? "how it ended (the launcher's rank records, ranks/), " : "",
      shown.size() < s.who.size()
          ? fmt::format("; {} of {} ranks, those the tables above name (every rank: stragglers.json)", shown.size(),
                        s.who.size())
          : "");
  out += launched
             ? "| rank | host | node | local rank | process | devices | CUDA_VISIBLE_DEVICES | world size | ended | "
               "inputs |\n|---:|---|---|---:|---|---|---|---:|---|---|\n"
             : "| rank | host | process | devices | world size | inputs |\n|---:|---|---|---|---:|---|\n";
  for (const auto* wp : shown) {
    const analysis::RankWho& w = *wp;
    const std::string world = w.world_size ? std::to_string(*w.world_size) : "?";
    if (launched) {
      out += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", w.rank, MdCell(ListText(w.hosts), 60),
                         MdCell(w.node.empty() ? "?" : w.node, 40), w.local_rank ? std::to_string(*w.local_rank) : "?",
                         MdCell(ListText(w.processes), 60), MdCell(ListText(w.devices), 40),
                         MdCell(w.visible_devices.empty() ? "unset" : w.visible_devices, 40), world,
                         MdCell(w.ended.empty() ? "?" : w.ended, 40), MdCell(ListText(w.inputs), 120));
    } else {
      out += fmt::format("| {} | {} | {} | {} | {} | {} |\n", w.rank, MdCell(ListText(w.hosts), 60),
                         MdCell(ListText(w.processes), 60), MdCell(ListText(w.devices), 40), world,
                         MdCell(ListText(w.inputs), 120));
    }
  }
}

std::optional<std::string> TextOrNull(const std::string& text) {
  return text.empty() ? std::nullopt : std::optional<std::string>(text);
}

void StringsJson(JsonWriter& w, std::string_view key, const std::vector<std::string>& items) {
  w.Key(key);
  w.BeginArray();
  for (const auto& item : items) w.String(item);
  w.EndArray();
}

void WhoJson(JsonWriter& w, const std::vector<analysis::RankWho>& who) {
  w.Key("rank_identities");
  w.BeginArray();
  for (const auto& r : who) {
    w.BeginObject();
    w.Member("rank", r.rank);
    StringsJson(w, "hosts", r.hosts);
    StringsJson(w, "processes", r.processes);
    StringsJson(w, "devices", r.devices);
    w.Member("world_size", r.world_size);
    StringsJson(w, "inputs", r.inputs);
    w.Member("local_rank", r.local_rank);
    w.Member("node", TextOrNull(r.node));
    w.Member("cuda_visible_devices", TextOrNull(r.visible_devices));
    w.Member("ended", TextOrNull(r.ended));
    w.EndObject();
  }
  w.EndArray();
}

}  // namespace

std::vector<const analysis::RankWho*> WhoShown(const analysis::Stragglers& s) {
  std::vector<const analysis::RankWho*> out;
  if (s.who.size() <= kWhoRows) {
    for (const auto& w : s.who) out.push_back(&w);
    return out;
  }
  std::set<std::int64_t> named;
  for (const auto* rows : {&s.steps, &s.regions}) {
    for (const auto& r : *rows) named.insert({r.slowest_rank, r.fastest_rank});
  }
  for (const auto& l : s.late_starts) named.insert({l.first_rank, l.latest_rank});
  if (!s.collectives.empty()) {
    const auto [least, most] =
        std::minmax_element(s.collectives.begin(), s.collectives.end(),
                            [](const auto& a, const auto& b) { return a.communication_ns < b.communication_ns; });
    named.insert({least->rank, most->rank});
  }
  for (const auto& w : s.who) {
    if (out.size() == kWhoRows) break;
    if (named.contains(w.rank)) out.push_back(&w);
  }
  return out;
}

std::string StragglersMarkdown(const analysis::Stragglers& s) {
  std::string out = fmt::format(
      "# Stragglers across {} ranks\n\nPer region that several ranks ran: the slowest rank, and how far it is above "
      "the median rank (a rank's devices added; GPU time where every rank has it and some rank ran GPU work in the "
      "region, else CPU range time).\n\n",
      s.ranks);
  StepsMd(out, s);
  out += "## Regions with the largest excess over the median rank\n\n";
  if (s.regions.empty()) {
    out += "No other region was run by two or more ranks.\n";
  } else {
    TableMd(out, s.regions, "region");
  }
  CollectivesMd(out, s.collectives);
  WhoMd(out, s);
  return out;
}

void WriteStragglersJson(const analysis::Stragglers& s, std::ostream& sink) {
  std::string out;
  JsonWriter w(out, sink);
  w.BeginObject();
  w.Member("schema_version", "1.4.0");  // 1.2: a step's collectives; 1.3: late starts; 1.4: rank identities
  w.Member("ranks", s.ranks);
  RowsJson(w, "steps", s.steps);
  w.Member("steps_omitted", s.steps_omitted);
  RowsJson(w, "regions", s.regions);
  CollectivesJson(w, "collectives", s.collectives);
  w.Member("start_clock", std::string(analysis::ToString(s.start_clock)));
  w.Key("late_starts");
  w.BeginArray();
  for (const auto& l : s.late_starts) {
    w.BeginObject();
    w.Member("step", l.step);
    w.Member("ranks", l.ranks);
    w.Member("first_rank", l.first_rank);
    w.Member("latest_rank", l.latest_rank);
    w.Member("latest_after_first_ms", l.latest_after_first_ns / 1e6);
    w.Key("after_first_ms");
    w.BeginObject();
    for (const auto& [rank, ns] : l.after_first_ns) w.Member(std::to_string(rank), ns / 1e6);
    w.EndObject();
    w.EndObject();
  }
  w.EndArray();
  WhoJson(w, s.who);
  w.EndObject();
  out += '\n';
  w.Flush();
}

}  // namespace llmpo::report

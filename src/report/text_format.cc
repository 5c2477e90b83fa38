#include "src/report/text_format.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace llmpo::report {

std::string MdCell(std::string_view text, std::size_t width) {
  std::string out;
  for (char c : text) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n' || c == '\r') {
      out += ' ';
    } else {
      out += c;
    }
  }
  if (out.size() > width) {
    std::size_t cut = width > 3 ? width - 3 : 0;
    // Not inside a UTF-8 character (continuation bytes are 10xxxxxx).
    while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) --cut;
    out = out.substr(0, cut) + "...";
  }
  return out;
}

std::string MdPathCell(std::string_view path, std::size_t width) {
  static constexpr std::string_view kSep = " > ", kGap = " > ... > ";
  const std::string whole = MdCell(path, std::string::npos);
  if (whole.size() <= width) return whole;
  const std::size_t first_end = path.find(kSep);
  if (first_end == std::string_view::npos) return MdCell(path, width);
  const std::string first = MdCell(path.substr(0, first_end), std::string::npos);
  // The last parts, one more at a time while they fit beside the first.
  std::size_t tail_start = std::string_view::npos;
  for (std::size_t at = path.rfind(kSep); at != std::string_view::npos && at > first_end;
       at = path.rfind(kSep, at - 1)) {
    const std::size_t candidate = at + kSep.size();
    if (first.size() + kGap.size() + MdCell(path.substr(candidate), std::string::npos).size() > width) break;
    tail_start = candidate;
  }
  if (tail_start == std::string_view::npos) return MdCell(path, width);
  return first + std::string(kGap) + MdCell(path.substr(tail_start), std::string::npos);
}

std::string OneLine(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return out;
}

// A metric value for a table: four significant digits, but whole numbers
// and values from 10^4 up to 10^12 in plain digits (a grid of 16384 reads
// 16384, not 1.638e+04).
std::string MetricText(double v) {
  const double magnitude = std::fabs(v);
  if (std::isfinite(v) && magnitude >= 1e4 && magnitude < 1e12) return fmt::format("{:.0f}", v);
  if (std::isfinite(v) && v == std::floor(v) && magnitude < 1e4) return fmt::format("{:.0f}", v);
  return fmt::format("{:.4g}", v);
}

std::string CountText(const std::optional<std::uint64_t>& n) { return n ? fmt::format("{}", *n) : "n/a"; }

std::string MsText(double ns) {
  const double ms = ns / 1e6;
  const double magnitude = std::fabs(ms);
  if (magnitude >= 0.1 || magnitude == 0 || !std::isfinite(ms)) return fmt::format("{:.4f}", ms);
  // Decimals for three significant digits: 0.0123 -> 4, 0.00291 -> 5.
  const int decimals = 2 - static_cast<int>(std::floor(std::log10(magnitude)));
  return fmt::format("{:.{}f}", ms, std::min(decimals, 9));
}

std::string MsText(const std::optional<double>& ns) { return ns ? MsText(*ns) : "n/a"; }

std::optional<double> OptionalMs(const std::optional<double>& ns) {
  if (!ns) return std::nullopt;
  return *ns / 1e6;
}

std::string JoinPath(const std::vector<std::string>& path) {
  std::string out;
  for (const auto& p : path) out += (out.empty() ? "" : " > ") + p;
  return out;
}

double OutValue(const analysis::MetricAggregate& m, double v) { return m.dimension == Dimension::kTime ? v / 1e6 : v; }
std::string OutUnit(const analysis::MetricAggregate& m) { return m.dimension == Dimension::kTime ? "ms" : m.unit; }

std::string CsvField(std::string_view text) {
  if (text.find_first_of(",\"\n\r") == std::string_view::npos) return std::string(text);
  std::string out = "\"";
  for (char c : text) out += (c == '"') ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

void KernelTableMd(std::string& out, const std::map<std::string, analysis::KernelAggregate>& kernels,
                   const std::vector<std::string>& order,
                   const std::vector<std::pair<std::string, std::string>>& columns) {
  out += "| Kernel | Calls | Total (ms) | Mean (ms) |";
  for (const auto& c : columns) out += fmt::format(" {} |", MdCell(c.second, 40));
  out += "\n|---|---:|---:|---:|";
  for (std::size_t i = 0; i < columns.size(); ++i) out += "---:|";
  out += "\n";
  for (const std::string& key : order) {
    const analysis::KernelAggregate* k = &kernels.at(key);
    out += fmt::format("| {} | {} | {} | {} |", MdCell(k->name), k->calls, MsText(k->total_ns),
                       k->timed_calls ? MsText(k->MeanNs()) : "n/a");
    for (const auto& c : columns) {
      const auto* m = k->FindMetric(c.first, c.second);
      if (m == nullptr || m->values == 0) {
        out += " n/a |";
        continue;
      }
      const std::string unit(OutUnit(*m));
      out += fmt::format(" {}{}{} |", MetricText(OutValue(*m, m->Value())), unit.empty() ? "" : " ", unit);
    }
    out += "\n";
  }
}

void DataQualityMd(std::string& out, const model::Diagnostics& d) {
  out += fmt::format("\n## Data quality\n\nRows read: {}. Rows skipped: {}.\n", d.rows_read(), d.rows_skipped());
  if (!d.entries().empty()) {
    out += "\n| Check | Severity | Count | First case |\n|---|---|---:|---|\n";
    for (const auto& [code, e] : d.entries()) {
      out += fmt::format("| {} | {} | {} | {} |\n", code, model::ToString(e.severity), e.count,
                         MdCell(e.first_example, 200));
    }
  }
  if (!d.notes().empty()) {
    out += "\n";
    for (const auto& note : d.notes()) out += fmt::format("- {}\n", note);
  }
}

}  // namespace llmpo::report

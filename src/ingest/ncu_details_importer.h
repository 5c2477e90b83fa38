// The details page's importer: one row per (result, section, metric),
// results in ID order. Rows of one result are gathered and handed on as one
// launch when the ID changes, so memory holds one result at a time. Used by
// ImportDetails on one thread, and by DetailsParts on parts of a large file
// read side by side.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "src/core/assign_if_changed.h"
#include "src/core/units.h"
#include "src/ingest/ncu_csv_internal.h"
#include "src/ingest/text_lines.h"

namespace llmpo::ingest::ncu {

// Where finished launches go. The record is the importer's working copy:
// a taker may change it (set its name key) but not keep it.
class LaunchOutput {
 public:
  virtual ~LaunchOutput() = default;
  virtual void Take(model::LaunchRecord& launch) = 0;
};

// Kernel names interned (LaunchRecord::kernel_name_key): the sinks then find
// a name they saw before by its key instead of hashing it again. One table
// per import, used by the thread that feeds the sink.
class NameKeys {
 public:
  std::uint64_t Key(const std::string& name) {
    auto it = ids_.find(name);
    if (it == ids_.end()) {
      if (ids_.size() >= 0xffffffffu) return 0;  // out of keys: the name decides
      it = ids_.emplace(name, static_cast<std::uint32_t>(ids_.size())).first;
    }
    return space_ | (std::uint64_t{it->second} + 1);
  }

 private:
  std::unordered_map<std::string, std::uint32_t> ids_;
  std::uint64_t space_ = model::NewNameKeySpace() << 32;
};

// Launches straight to the sink, each with its name key.
class SinkOutput final : public LaunchOutput {
 public:
  SinkOutput(NameKeys& keys, model::RecordSink& sink) : keys_(keys), sink_(sink) {}
  void Take(model::LaunchRecord& launch) override {
    launch.kernel_name_key = keys_.Key(launch.kernel_name);
    sink_.OnLaunch(launch);
  }

 private:
  NameKeys& keys_;
  model::RecordSink& sink_;
};

struct MetricColumns {
  std::size_t section, name, unit, value;
  std::optional<std::size_t> rule_name, rule_type, rule_description, speedup_type, speedup;
  // --print-details all: a section's chart items ("Single Precision
  // Roofline") repeat metric names, so the label is part of the section.
  std::optional<std::size_t> body_item_label;
};

class DetailsImporter {
 public:
  // Launches go to `output`; diagnostics to ctx.diagnostics (ctx.sink is
  // not used). Call SetReader before the first Row.
  DetailsImporter(const std::vector<std::string>& header, ImportContext& ctx, LaunchOutput& output)
      : header_(header), ctx_(ctx), output_(&output), identity_(LocateIdentity(header)) {
    metric_ = {*FindColumn(header, "Section Name"),     *FindColumn(header, "Metric Name"),
               *FindColumn(header, "Metric Unit"),      *FindColumn(header, "Metric Value"),
               FindColumn(header, "Rule Name"),         FindColumn(header, "Rule Type"),
               FindColumn(header, "Rule Description"),  FindColumn(header, "Estimated Speedup Type"),
               FindColumn(header, "Estimated Speedup"), FindColumn(header, "Body Item Label")};
  }

  void Row(const std::vector<std::string_view>& fields) {
    ctx_.diagnostics.CountRow();
    if (reader_->last_record_truncated()) return Loss(model::Diag::truncated_record, "the file ends inside a quoted field");
    if (fields.size() == 1 && fields[0].starts_with("==")) {
      ctx_.diagnostics.AddLazy(model::Diag::tool_output_lines, [&] { return fmt::format("{}: {}", Where(ctx_, *reader_), model::Excerpt(fields[0])); });
      return;
    }
    if (fields.size() != header_.size()) {
      if (ragged_rows_ != nullptr) {
        ++ragged_rows_->count;  // ncu's own rows are ragged: this fires on most rows
      } else {
        ragged_rows_ = &ctx_.diagnostics.AddLazy(model::Diag::ragged_rows_padded, [&] {
          return fmt::format("{}: {} fields for {} columns; missing trailing fields read as empty",
                             Where(ctx_, *reader_), fields.size(), header_.size());
        });
      }
    }
    const std::string_view id = Cell(fields, identity_.id);
    if (id.empty() || id != current_.result_id) {  // checked once per result, not per row
      if (id.empty() || !std::all_of(id.begin(), id.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        return Loss(model::Diag::bad_result_id, fmt::format("ID '{}' is not a result number; row skipped", model::Excerpt(id)));
      }
      StartResult(id, fields);
    }
    if (skipping_) return Loss(model::Diag::result_not_contiguous, "rows of an earlier result reappear; skipped");
    if (fields.size() <= metric_.name) return Loss(model::Diag::short_row, "the row ends before its metric columns");
    const std::string_view name = fields[metric_.name];
    if (name.empty()) return RuleRow(fields);
    // Metric objects are reused from launch to launch, so their strings keep
    // their buffers: no allocation per row in the common case.
    if (metric_count_ == current_.metrics.size()) {
      current_.metrics.emplace_back();
      slots_.emplace_back();
    }
    SlotFacts& facts = slots_[metric_count_];
    model::Metric& metric = current_.metrics[metric_count_++];
    // A name or section that changes from the launch before changes the layout.
    if (AssignIfChanged(metric.name, name)) {
      layout_changed_ = true;
      facts.duration = name == "gpu__time_duration.sum" || name == "Duration";
    }
    layout_changed_ |= AssignIfChanged(metric.section, SectionOf(fields));
    TakeValue(metric.value, facts, Cell(fields, metric_.value), Cell(fields, metric_.unit));
    if (metric.value.unparsable || !metric.value.unit_known) CheckValue(metric, ctx_, *reader_);  // nothing to say otherwise
    if (facts.duration) TakeDuration(metric, current_, duration_from_raw_, ctx_, *reader_);
  }

  void Finish() { Flush(); }

  void SetReader(CsvReader& reader) { reader_ = &reader; }
  void SetOutput(LaunchOutput& output) { output_ = &output; }

  // What a part of a file read by an importer that started fresh needs to
  // say for the importer of the part before to be able to hand over to it
  // (DetailsParts): whether and with which ID it started its first result.
  bool started() const { return first_start_.has_value(); }
  const std::string& first_result_id() const { return first_start_->id; }
  std::uint64_t first_result_number() const { return first_start_->number; }
  // The state a next row would meet: the result being gathered (its ID, ""
  // when none), whether any result started, and the highest ID taken.
  const std::string& pending_result_id() const { return current_.result_id; }
  bool any_result() const { return any_result_; }
  std::uint64_t max_id() const { return max_id_; }

  // The identity columns come before the metric columns and repeat on each
  // row of a result: the reader's repeated-prefix hint.
  std::size_t FirstMetricColumn() const {
    return std::min({metric_.section, metric_.name, metric_.unit, metric_.value});
  }

 private:
  // What a metric position of the launch before knew, for a row at the same
  // position: launches of a kernel repeat their rows in one order.
  struct SlotFacts {
    bool duration = false;  // the name is one TakeDuration reads
    bool unit_scale_known = false;
    double unit_scale = 1;  // LookupUnit(value.raw_unit).scale, when known
  };

  // ParseValueInto, without the unit lookup when the unit text is the one
  // this position had before (the unit fields of `value` are then right).
  void TakeValue(ParsedValue& value, SlotFacts& facts, std::string_view text, std::string_view unit) {
    if (facts.unit_scale_known && value.raw_unit == unit) return ParseNumberInto(value, text, facts.unit_scale);
    ParseValueInto(value, text, unit);
    facts.unit_scale = LookupUnit(unit).scale;
    facts.unit_scale_known = true;
  }

  // "GPU Speed Of Light Roofline Chart / Single Precision Roofline" for a
  // chart item's metric; the section name alone otherwise.
  std::string_view SectionOf(const std::vector<std::string_view>& fields) {
    const std::string_view section = Cell(fields, metric_.section);
    const std::string_view label = Cell(fields, metric_.body_item_label);
    if (label.empty()) return section;
    labelled_section_.assign(section);
    labelled_section_ += model::kChartItemSeparator;
    labelled_section_ += label;
    return labelled_section_;
  }

  // ncu numbers results in order, so an ID at or below the highest one seen
  // means rows of an earlier result reappear; tracking the maximum keeps this
  // check O(1) in memory.
  void StartResult(std::string_view id, const std::vector<std::string_view>& fields) {
    Flush();
    current_.duration_ns.reset();
    current_.findings.clear();
    metric_count_ = 0;
    FillIdentity(identity_, fields, current_);
    RepairNames(current_, ctx_, *reader_);
    duration_from_raw_ = false;
    std::uint64_t number = 0;
    std::from_chars(id.data(), id.data() + id.size(), number);
    if (!first_start_) first_start_ = FirstStart{std::string(id), number};
    skipping_ = any_result_ && number <= max_id_;
    if (!skipping_) max_id_ = number;
    any_result_ = true;
  }

  void Flush() {
    if (!current_.result_id.empty() && !skipping_) {
      current_.metrics.resize(metric_count_);
      slots_.resize(metric_count_);
      if (layout_changed_ || metric_count_ != layout_count_) {
        layout_ = model::NewMetricLayout();
        layout_count_ = metric_count_;
      }
      current_.metric_layout = layout_;
      layout_changed_ = false;
      output_->Take(current_);
    }
    current_.result_id.clear();
  }

  // A rule row: the section cell holds the section identifier.
  void RuleRow(const std::vector<std::string_view>& fields) {
    const std::string_view rule = Cell(fields, metric_.rule_name);
    const std::string_view type_text = Cell(fields, metric_.rule_type);
    if (rule.empty() && type_text.empty()) return Loss(model::Diag::row_without_metric, "no metric name and no rule; skipped");
    const auto type = model::ParseFindingType(type_text);
    if (rule.empty() || !type) {
      return Loss(model::Diag::bad_rule_row, fmt::format("rule '{}' of type '{}': needs a rule name and a type OPT, WRN, INF or "
                                              "ERR; skipped",
                                              model::Excerpt(rule), model::Excerpt(type_text)));
    }
    model::Finding finding{std::string(rule),
                           std::string(Cell(fields, metric_.section)),
                           *type,
                           std::string(Cell(fields, metric_.rule_description)),
                           std::nullopt,
                           std::nullopt};
    TakeSpeedup(fields, finding);
    current_.findings.push_back(std::move(finding));
  }

  // The estimated speedup, a percentage written without '%'; an unreadable
  // one is left unknown and counted.
  void TakeSpeedup(const std::vector<std::string_view>& fields, model::Finding& finding) {
    const std::string_view kind_text = Cell(fields, metric_.speedup_type);
    const std::string_view value_text = Cell(fields, metric_.speedup);
    if (kind_text.empty() && value_text.empty()) return;
    const auto kind = model::ParseSpeedupKind(kind_text);
    double value = 0;
    const auto [end, ec] = std::from_chars(value_text.data(), value_text.data() + value_text.size(), value);
    if (!kind || ec != std::errc() || end != value_text.data() + value_text.size() || !std::isfinite(value) ||
        value < 0) {
      ctx_.diagnostics.Add(model::Diag::bad_rule_speedup, fmt::format("{}: rule {}: estimated speedup '{}' of type '{}' is not a percentage of type "
                      "local or global; the finding is kept without a speedup",
                      Where(ctx_, *reader_), finding.rule, model::Excerpt(value_text), model::Excerpt(kind_text)));
      return;
    }
    finding.speedup_pct = value;
    finding.speedup_kind = kind;
  }

  void Loss(model::Diag code, std::string detail) {
    ctx_.diagnostics.Add(code, fmt::format("{}: {}", Where(ctx_, *reader_), detail));
  }

  const std::vector<std::string>& header_;
  ImportContext& ctx_;
  CsvReader* reader_ = nullptr;
  LaunchOutput* output_;
  IdentityColumns identity_;
  MetricColumns metric_;
  model::LaunchRecord current_;
  std::vector<SlotFacts> slots_;  // one per element of current_.metrics
  model::DiagnosticEntry* ragged_rows_ = nullptr;
  std::string labelled_section_;
  std::size_t metric_count_ = 0;  // metrics of current_ in use
  // The metric layout of the launch before, and whether this one differs.
  std::uint64_t layout_ = 0;
  std::size_t layout_count_ = 0;
  bool layout_changed_ = false;
  bool duration_from_raw_ = false;
  bool skipping_ = false;
  bool any_result_ = false;
  std::uint64_t max_id_ = 0;
  struct FirstStart {
    std::string id;
    std::uint64_t number;
  };
  std::optional<FirstStart> first_start_;
};


}  // namespace llmpo::ingest::ncu

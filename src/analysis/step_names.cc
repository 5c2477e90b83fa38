#include "src/analysis/step_names.h"

#include <cmath>
#include <cstring>

#include "src/core/varint.h"

namespace llmpo::analysis {
namespace {

constexpr double kExactIntegers = 9007199254740992.0;  // 2^53: every integer below is a double

// An entry: its name, its launches, then its time: a whole number of ns
// below 2^53 as twice the number, anything else (a fraction, -0, NaN) as
// 1 and the double's 8 bytes.
void PutName(std::vector<std::uint8_t>& out, const StepNames::Name& n) {
  PutVarint(out, n.name);
  PutVarint(out, n.launches);
  const double t = n.gpu_ns;
  if (t >= 0 && t < kExactIntegers && std::floor(t) == t && !std::signbit(t)) {
    PutVarint(out, static_cast<std::uint64_t>(t) << 1);
    return;
  }
  out.push_back(1);
  std::uint8_t raw[sizeof t];
  std::memcpy(raw, &t, sizeof t);
  out.insert(out.end(), raw, raw + sizeof t);
}

StepNames::Name GetName(const std::uint8_t* bytes, std::size_t& pos) {
  StepNames::Name n;
  n.name = static_cast<std::uint32_t>(GetVarint(bytes, pos));
  n.launches = static_cast<std::uint32_t>(GetVarint(bytes, pos));
  const std::uint64_t t = GetVarint(bytes, pos);
  if ((t & 1) == 0) {
    n.gpu_ns = static_cast<double>(t >> 1);
  } else {
    std::memcpy(&n.gpu_ns, bytes + pos, sizeof n.gpu_ns);
    pos += sizeof n.gpu_ns;
  }
  return n;
}

}  // namespace

std::vector<StepNames::Name>& StepNames::Open() {
  if (packed()) {
    open_ = ToVector();
    bytes_ = std::vector<std::uint8_t>();
    packed_count_ = 0;
  }
  return open_;
}

void StepNames::Pack() {
  if (packed() || open_.empty()) return;
  bytes_.reserve(open_.size() * 6);
  for (const Name& n : open_) PutName(bytes_, n);
  bytes_.shrink_to_fit();  // no more than it needs
  packed_count_ = static_cast<std::uint32_t>(open_.size());
  open_ = std::vector<Name>();
}

std::vector<StepNames::Name> StepNames::ToVector() const {
  if (!packed()) return open_;
  std::vector<Name> out;
  out.reserve(packed_count_);
  for (const Name& n : *this) out.push_back(n);
  return out;
}

void StepNames::const_iterator::Load() {
  if (index_ >= names_->size()) return;
  if (names_->packed()) {
    current_ = GetName(names_->bytes_.data(), pos_);
  } else {
    current_ = names_->open_[index_];
  }
}

}  // namespace llmpo::analysis

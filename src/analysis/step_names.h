// The GPU kernel time and launches per kernel name of one LLM step (a
// phase digest, analysis/phases.h). A run keeps one entry per step and name
// it ran until the report is built: 20,000 steps of 160 names are 3.2M
// entries, 51 MB at 16 bytes each. While kernels still come to a step the
// entries are a plain vector; once they stop, Pack() keeps them as varints
// (about 5 bytes an entry: the time in ns, exact, is an integer almost
// always). Reading goes through begin()/end() (or ForEach) in either form,
// in the order the entries were added.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <vector>

namespace llmpo::analysis {

class StepNames {
 public:
  struct Name {  // one kernel name's share of the step
    double gpu_ns = 0;
    std::uint32_t name = 0;
    std::uint32_t launches = 0;
    bool operator==(const Name&) const = default;
  };

  // The vector form, to change entries (unpacks a packed one).
  std::vector<Name>& Open();
  // Into the packed form; what Open() returned is gone.
  void Pack();
  bool packed() const { return !bytes_.empty(); }

  void push_back(const Name& n) { Open().push_back(n); }
  std::size_t size() const { return packed() ? packed_count_ : open_.size(); }
  bool empty() const { return size() == 0; }
  std::vector<Name> ToVector() const;
  // Bytes held beyond the object, for tests and benchmarks.
  std::size_t heap_bytes() const { return open_.capacity() * sizeof(Name) + bytes_.capacity(); }
  bool operator==(const StepNames& o) const { return ToVector() == o.ToVector(); }

  class const_iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = Name;
    using difference_type = std::ptrdiff_t;
    using pointer = const Name*;
    using reference = Name;
    Name operator*() const { return current_; }
    const_iterator& operator++() {
      Advance();
      return *this;
    }
    bool operator==(const const_iterator& o) const { return index_ == o.index_; }

   private:
    friend class StepNames;
    const_iterator(const StepNames* names, std::size_t index) : names_(names), index_(index) { Load(); }
    void Load();
    void Advance() {
      ++index_;
      Load();
    }
    const StepNames* names_;
    std::size_t index_;
    std::size_t pos_ = 0;  // the next entry's first byte, in the packed form
    Name current_;
  };
  const_iterator begin() const { return const_iterator(this, 0); }
  const_iterator end() const { return const_iterator(this, size()); }

 private:
  std::vector<Name> open_;
  std::vector<std::uint8_t> bytes_;  // the packed form: non-empty exactly when packed
  std::uint32_t packed_count_ = 0;
};

}  // namespace llmpo::analysis

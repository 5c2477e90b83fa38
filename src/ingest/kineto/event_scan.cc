#include "src/ingest/kineto/event_scan.h"

#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "src/ingest/kineto/json_pull.h"
#include "src/ingest/kineto/swar.h"

namespace llmpo::ingest::kineto {
namespace {

// Equality with a literal whose length the compiler knows: a few integer
// compares instead of a call to memcmp.
template <std::size_t N>
bool Is(std::string_view text, const char (&literal)[N]) {
  return text.size() == N - 1 && std::memcmp(text.data(), literal, N - 1) == 0;
}

// The event and args keys this reader keeps (any other is skipped).
enum class Field { kOther, kPh, kCat, kName, kPid, kTid, kTs, kDur, kArgs, kCorrelation, kExternalId, kDevice, kStream };

// A key's text and its closing quote (at most 16 bytes) as two
// little-endian words and the masks of their bytes, made at compile time.
template <std::size_t N>
struct KeyWords {
  static constexpr std::size_t kBytes = N - 1;
  static_assert(kBytes >= 2 && kBytes <= 16);
  std::uint64_t head = 0, head_mask = 0, tail = 0, tail_mask = 0;
  constexpr KeyWords(const char (&key)[N]) {  // NOLINT: implicit, for Spells<"...">
    for (std::size_t i = 0; i < kBytes; ++i) {
      const std::uint64_t byte = static_cast<unsigned char>(key[i]);
      (i < 8 ? head : tail) |= byte << (8 * (i % 8));
      (i < 8 ? head_mask : tail_mask) |= std::uint64_t{0xFF} << (8 * (i % 8));
    }
  }
};

// Whether the bytes at q spell key K: one or two word compares. q must be
// readable for 16 bytes.
template <KeyWords K>
bool Spells(const char* q) {
  if ((swar::Load8(q) & K.head_mask) != K.head) return false;
  if constexpr (K.kBytes > 8) return (swar::Load8(q + 8) & K.tail_mask) == K.tail;
  return true;
}

// The key whose text starts at q (just past its opening quote), when q
// spells one of the keys kept and its closing quote: that quote is not
// escaped (a letter precedes it) and no escape lies before it, so it ends
// the key as the index would find. False for any other key. This is the
// only place that knows the kept keys' spelling: a key without escapes
// that it does not match is not kept (Key).
[[gnu::always_inline]] inline bool QuickKey(const char* q, Field& field, std::size_t& length) {
  const auto set = [&](Field f, std::size_t n) {
    field = f;
    length = n;
    return true;
  };
  switch (q[0]) {
    case 'p':
      if (Spells<"ph\"">(q)) return set(Field::kPh, 2);
      if (Spells<"pid\"">(q)) return set(Field::kPid, 3);
      return false;
    case 't':
      if (Spells<"ts\"">(q)) return set(Field::kTs, 2);
      if (Spells<"tid\"">(q)) return set(Field::kTid, 3);
      return false;
    case 'c':
      if (Spells<"cat\"">(q)) return set(Field::kCat, 3);
      if (Spells<"correlation\"">(q)) return set(Field::kCorrelation, 11);
      return false;
    case 'd':
      if (Spells<"dur\"">(q)) return set(Field::kDur, 3);
      if (Spells<"device\"">(q)) return set(Field::kDevice, 6);
      return false;
    case 'n':
      return Spells<"name\"">(q) && set(Field::kName, 4);
    case 'a':
      return Spells<"args\"">(q) && set(Field::kArgs, 4);
    case 's':
      return Spells<"stream\"">(q) && set(Field::kStream, 6);
    case 'E':
      return Spells<"External id\"">(q) && set(Field::kExternalId, 11);
    case 'e':
      return Spells<"external id\"">(q) && set(Field::kExternalId, 11);
    default:
      return false;
  }
}

#if defined(__SSE2__)
constexpr std::size_t kDigitStep = 16;
// The number of leading bytes of the 16 at p that are digits or '.', the
// bytes of nearly every number in a trace: one compare for any number up to
// 16 bytes, no loop and no branch per byte.
std::size_t LeadingDigitsOrDots(const char* p) {
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const __m128i x = _mm_sub_epi8(v, _mm_set1_epi8('0'));  // digits become 0..9, unsigned
  const __m128i digit = _mm_cmpeq_epi8(_mm_min_epu8(x, _mm_set1_epi8(9)), x);
  const __m128i dot = _mm_cmpeq_epi8(v, _mm_set1_epi8('.'));
  const auto taken = static_cast<unsigned>(_mm_movemask_epi8(_mm_or_si128(digit, dot)));
  return static_cast<std::size_t>(__builtin_ctz(~taken));  // bit 16 of ~taken is set: at most 16
}
#else
constexpr std::size_t kDigitStep = 8;
// The same for 8 bytes at a time in a 64-bit word.
std::size_t LeadingDigitsOrDots(const char* p) {
  using namespace swar;
  const std::uint64_t w = Load8(p);
  const std::uint64_t x = w ^ Repeat('0');  // digits become 0..9
  // High bit set where x >= 10 (as a byte); no carry crosses bytes.
  const std::uint64_t not_digit = (x | ((x & kLow7) + Repeat(128 - 10))) & kHigh;
  const std::uint64_t stop = not_digit & ~ZeroBytes(w ^ Repeat('.'));
  return stop == 0 ? 8 : FirstByte(stop);
}
#endif

// Each step returns true to go on, or false with the result set. A position
// at the end of the indexed bytes means the event is cut by the buffer's end.
class EventScanner {
 public:
  // Past limit() (a backslash outside strings) the index is not trusted:
  // reaching it hands the event to the byte-by-byte path.
  EventScanner(const char* text, const StructuralIndex& index, std::size_t& backslash)
      : t_(text),
        index_(index),
        backslash_(backslash),
        n_(index.limit()),
        cut_(n_ < index.size() ? ScanResult::kOther : ScanResult::kIncomplete) {}

  ScanResult Event(std::size_t p, EventFields& f, std::size_t& end) {
    f = EventFields{};
    ++p;  // the '{'
    if (!SkipSpace(p)) return result_;
    if (t_[p] == '}') {
      end = p + 1;
      return ScanResult::kDone;
    }
    for (bool more = true; more;) {
      Field field = Field::kOther;
      if (!Key(p, field)) return result_;
      bool ok = true;
      switch (field) {
        case Field::kPh:
          ok = Scalar(p, f.ph);
          // Metadata, flows, instants: nothing to keep.
          if (ok && !Is(f.ph, "X")) return SkipRest(p, f, end);
          break;
        case Field::kTs:
          f.has_ts = true;
          ok = Scalar(p, f.ts);
          break;
        case Field::kCat:
          ok = Scalar(p, f.cat);
          if (ok && IsIgnoredCategory(f.cat)) return SkipRest(p, f, end);
          break;
        case Field::kPid:
          ok = Scalar(p, f.pid);
          break;
        case Field::kTid:
          ok = Scalar(p, f.tid);
          break;
        case Field::kDur:
          f.has_dur = true;
          ok = Scalar(p, f.dur);
          break;
        case Field::kName:
          ok = Scalar(p, f.name);
          break;
        case Field::kArgs:
          ok = Args(p, f);
          break;
        default:
          ok = Skip(p);
      }
      if (!ok || !Next(p, more)) return result_;
    }
    end = p;
    return ScanResult::kDone;
  }

 private:
  bool Stop(ScanResult r) {
    result_ = r;
    return false;
  }

  // Most gaps between tokens are empty or one space: those without the
  // index. A byte above ' ' is not white space; the buffer's padding makes
  // t_[n_] and t_[n_ + 1] readable.
  bool SkipSpace(std::size_t& p) {
    if (p < n_) {
      const auto c = static_cast<unsigned char>(t_[p]);
      if (c > ' ') return true;
      if (c == ' ' && p + 1 < n_ && static_cast<unsigned char>(t_[p + 1]) > ' ') return (++p, true);
    }
    p = index_.NextNonSpace(p);
    return p < n_ || Stop(cut_);
  }

  // A string at t_[p]: its content, p just past its closing quote.
  bool String(std::size_t& p, std::string_view& out) {
    const std::size_t close = index_.NextQuote(p + 1);
    if (close >= n_) return Stop(cut_);
    if (BackslashIn(p + 1, close)) return Stop(ScanResult::kOther);  // escapes: decoded by the slow path
    out = std::string_view(t_ + p + 1, close - p - 1);
    p = close + 1;
    return true;
  }

  // Whether a backslash lies in [from, to). Events are scanned forward
  // through an index, so the first backslash at or after the last position
  // asked about is kept from event to event (one index lookup per index
  // where there is none).
  bool BackslashIn(std::size_t from, std::size_t to) {
    if (backslash_ < from) backslash_ = index_.NextBackslash(from);
    return backslash_ < to;
  }

  // A key (the field it names) and its ':'; p ends at the value's first byte.
  [[gnu::always_inline]] bool Key(std::size_t& p, Field& field) {
    if (t_[p] != '"') return Stop(ScanResult::kOther);
    std::size_t length = 0;
    if (QuickKey(t_ + p + 1, field, length) && p + 1 + length < n_) {
      p += length + 2;
    } else {
      // Not a kept key as written; one with escapes is read by the slow path.
      std::string_view key;
      if (!String(p, key)) return false;
      field = Field::kOther;
    }
    if (Separator(p, ':')) return true;
    if (!SkipSpace(p)) return false;
    if (t_[p] != ':') return Stop(ScanResult::kOther);
    ++p;
    return SkipSpace(p);
  }

  // The usual separators, ":" or "," and at most one space before the next
  // token: p moves to that token, as SkipSpace, the separator and SkipSpace
  // would move it. False (p unchanged) for anything else.
  bool Separator(std::size_t& p, char separator) {
    std::uint16_t two;  // the separator and the byte after it, in one load (little endian, as swar.h)
    std::memcpy(&two, t_ + p, 2);
    if (two == static_cast<std::uint16_t>(static_cast<unsigned char>(separator) | (' ' << 8))) {
      if (static_cast<unsigned char>(t_[p + 2]) > ' ' && p + 2 < n_) return (p += 2, true);
      return false;
    }
    if ((two & 0xFF) != static_cast<unsigned char>(separator)) return false;
    if ((two >> 8) > ' ' && p + 1 < n_) return (p += 1, true);
    return false;
  }

  bool Bare(std::size_t& p, std::string_view& out) {
    std::size_t q = p;
    // The buffer's padding keeps 16 bytes readable past n_; bytes past it are not taken.
    for (std::size_t k = kDigitStep; k == kDigitStep && q < n_;) q += (k = LeadingDigitsOrDots(t_ + q));
    if (q > n_) q = n_;
    while (q < n_ && IsBareByte(t_[q])) ++q;
    if (q == n_) return Stop(cut_);
    if (q == p) return Stop(ScanResult::kOther);
    out = std::string_view(t_ + p, q - p);
    p = q;
    return true;
  }

  // p just past an opening bracket, `depth` open: to just past the
  // bracket that closes them. Brackets inside strings are not in the index.
  bool SkipBrackets(std::size_t& p, int depth) {
    for (;;) {
      const std::size_t b = index_.NextBracket(p);
      if (b >= n_) return Stop(cut_);
      p = b + 1;
      if (t_[b] == '{' || t_[b] == '[') {
        ++depth;
      } else if (--depth == 0) {
        return true;
      }
    }
  }

  bool Skip(std::size_t& p) {
    const char c = t_[p];
    if (c == '"') {
      const std::size_t close = index_.NextQuote(p + 1);
      if (close >= n_) return Stop(cut_);
      p = close + 1;
      return true;
    }
    if (c == '{' || c == '[') {
      ++p;
      return SkipBrackets(p, 1);
    }
    std::string_view ignored;
    return Bare(p, ignored);
  }

  // As the slow path's ReadScalarInto: a string's content, a number's or
  // literal's text, or empty for an object or array (skipped).
  [[gnu::always_inline]] bool Scalar(std::size_t& p, std::string_view& out) {
    const char c = t_[p];
    if (c == '"') return String(p, out);
    if (c == '{' || c == '[') {
      out = {};
      ++p;
      return SkipBrackets(p, 1);
    }
    return Bare(p, out);
  }

  // After a member: ',' (p at the next key, more) or '}' (p past it, done).
  bool Next(std::size_t& p, bool& more) {
    if (Separator(p, ',')) return (more = true);
    if (!SkipSpace(p)) return false;
    if (t_[p] == ',') {
      more = true;
      ++p;
      return SkipSpace(p);
    }
    if (t_[p] == '}') {
      more = false;
      ++p;
      return true;
    }
    return Stop(ScanResult::kOther);
  }

  bool Args(std::size_t& p, EventFields& f) {
    if (t_[p] != '{') return Skip(p);
    ++p;
    if (!SkipSpace(p)) return false;
    if (t_[p] == '}') {
      ++p;
      return true;
    }
    for (bool more = true; more;) {
      Field field = Field::kOther;
      if (!Key(p, field)) return false;
      std::string_view* target = nullptr;
      switch (field) {
        case Field::kCorrelation:
          target = &f.correlation;
          break;
        case Field::kExternalId:
          target = &f.external_id;
          break;
        case Field::kDevice:
          target = &f.device;
          break;
        case Field::kStream:
          target = &f.stream;
          break;
        default:
          break;
      }
      if (!(target ? Scalar(p, *target) : Skip(p))) return false;
      if (!Next(p, more)) return false;
    }
    return true;
  }

  ScanResult SkipRest(std::size_t p, EventFields& f, std::size_t& end) {
    f.skipped = true;
    if (!SkipBrackets(p, 1)) return result_;
    end = p;
    return ScanResult::kDone;
  }

  const char* t_;
  const StructuralIndex& index_;
  std::size_t& backslash_;  // the first backslash at or after the last position asked about
  std::size_t n_;
  ScanResult cut_;  // what reaching n_ means
  ScanResult result_ = ScanResult::kOther;
};

}  // namespace

bool IsIgnoredCategory(std::string_view c) {
  // By length first: one or two compares for the categories of every event.
  switch (c.size()) {
    case 4:
      return Is(c, "ac2g");
    case 5:
      return Is(c, "async") || Is(c, "Trace");
    case 6:
      return Is(c, "fwdbwd") || Is(c, "Python") || Is(c, "Memory");
    case 7:
      return Is(c, "gpu_mem");
    case 8:
      return Is(c, "overhead") || Is(c, "[memory]");
    case 9:
      return Is(c, "async_gpu");
    case 15:
      return Is(c, "python_function");
    case 16:
      return Is(c, "async_cpu_to_gpu");
    case 17:
      return Is(c, "cpu_instant_event");
    case 19:
      return Is(c, "cuda_profiler_range");
    default:
      return false;
  }
}

ScanResult ScanEvent(const char* text, const StructuralIndex& index, std::size_t start, EventFields& fields,
                     std::size_t& end, std::size_t& backslash) {
  return EventScanner(text, index, backslash).Event(start, fields, end);
}

}  // namespace llmpo::ingest::kineto

// JsonWriter must write exactly what nlohmann's dump(2) writes.
#include "src/report/json_writer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

namespace llmpo::report {
namespace {

using Json = nlohmann::ordered_json;

// Writes `j` through JsonWriter, recursively.
void Write(JsonWriter& w, const Json& j) {
  if (j.is_object()) {
    w.BeginObject();
    for (const auto& [k, v] : j.items()) {
      w.Key(k);
      Write(w, v);
    }
    w.EndObject();
  } else if (j.is_array()) {
    w.BeginArray();
    for (const auto& v : j) Write(w, v);
    w.EndArray();
  } else if (j.is_string()) {
    w.String(j.get<std::string>());
  } else if (j.is_number_unsigned()) {
    w.Uint(j.get<std::uint64_t>());
  } else if (j.is_number_integer()) {
    w.Int(j.get<std::int64_t>());
  } else if (j.is_number_float()) {
    w.Double(j.get<double>());
  } else if (j.is_boolean()) {
    w.Bool(j.get<bool>());
  } else {
    w.Null();
  }
}

TEST(JsonWriterTest, MatchesNlohmannDump2) {
  Json doc = {{"name", "gemm \"tiled\"\t\\ kernel"},
              {"utf8", "r\xC3\xA9gion"},
              {"bad_utf8", std::string("x\xFFy")},
              {"empty_obj", Json::object()},
              {"empty_arr", Json::array()},
              {"numbers", {0.0, 1.0, 0.0043, 1e-05, 123456.789, 1e+16, -2.5, std::nan("")}},
              {"ints", {0, -3, 42}},
              {"flags", {true, false, nullptr}},
              {"nested", {{"a", {{"b", Json::array({Json::object(), Json::array({1})})}}}}}};
  doc["uint"] = std::uint64_t{18446744073709551615ull};
  std::string out;
  JsonWriter w(out);
  Write(w, doc);
  EXPECT_EQ(out, doc.dump(2, ' ', false, Json::error_handler_t::replace));
}

TEST(JsonWriterTest, StartsAtADepth) {
  Json doc = {{"k", {1, 2}}};
  std::string out;
  JsonWriter w(out, 2);
  Write(w, doc);
  EXPECT_EQ(out, "{\n      \"k\": [\n        1,\n        2\n      ]\n    }");
}

// The plain-text check reads 16 bytes at a time, then the tail byte by
// byte: a byte to escape is found wherever it sits, and the check agrees
// with nlohmann (plain text is dumped as itself between quotes).
TEST(JsonWriterTest, PlainTextIsFoundWhereverTheFirstByteToEscapeSits) {
  const std::string plain = "ampere_sgemm_128x64_nn void<float>(int, int) ~!@#$%^&*()_+={}[]|:;'<>,.?/";
  EXPECT_TRUE(IsPlainJsonText(plain));
  EXPECT_TRUE(IsPlainJsonText(""));
  EXPECT_EQ(Json(plain).dump(), "\"" + plain + "\"");
  for (const char bad : {'\x01', '\x1f', '\x7f', '\x80', '\xff', '"', '\\', '\n'}) {
    for (std::size_t at = 0; at < 40; ++at) {
      std::string text = plain.substr(0, 40);
      text[at] = bad;
      EXPECT_FALSE(IsPlainJsonText(text))
          << "byte " << static_cast<int>(static_cast<unsigned char>(bad)) << " at " << at;
      EXPECT_FALSE(IsPlainJsonText(std::string_view(text).substr(at))) << "first byte, length " << 40 - at;
    }
  }
}

}  // namespace
}  // namespace llmpo::report

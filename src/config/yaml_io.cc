#include "src/config/yaml_io.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "src/config/scalar.h"
#include "src/core/utf8.h"

namespace llmpo::config {
namespace {

Error YamlError(const std::string& source, const YAML::Mark& mark, std::string_view what) {
  return MakeError(ExitStatus::kInput, fmt::format("{}:{}:{}: {}", source, mark.line + 1, mark.column + 1, what));
}

Result<Node> Convert(const YAML::Node& y, const std::string& source);

Result<Node> ConvertMap(const YAML::Node& y, const std::string& source) {
  Node out = Node::object();
  for (const auto& kv : y) {
    if (!kv.first.IsScalar()) {
      return YamlError(source, kv.first.Mark(), "mapping keys must be plain strings");
    }
    const std::string key = kv.first.Scalar();
    if (out.contains(key)) {
      return YamlError(source, kv.first.Mark(), fmt::format("duplicate key '{}'", key));
    }
    ASSIGN_OR_RETURN(Node value, Convert(kv.second, source));
    out[key] = std::move(value);
  }
  return out;
}

Result<Node> ConvertSeq(const YAML::Node& y, const std::string& source) {
  Node out = Node::array();
  for (const auto& item : y) {
    ASSIGN_OR_RETURN(Node value, Convert(item, source));
    out.push_back(std::move(value));
  }
  return out;
}

Result<Node> Convert(const YAML::Node& y, const std::string& source) {
  switch (y.Type()) {
    case YAML::NodeType::Map:
      return ConvertMap(y, source);
    case YAML::NodeType::Sequence:
      return ConvertSeq(y, source);
    case YAML::NodeType::Scalar:
      // yaml-cpp tags quoted scalars "!" and plain ones "?".
      if (y.Tag() == "!" || y.Tag() == "tag:yaml.org,2002:str") return Node(y.Scalar());
      return TypePlainScalar(y.Scalar());
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return Node(nullptr);
  }
  return Node(nullptr);
}

void EmitScalar(YAML::Emitter& out, const Node& node) {
  if (node.is_null()) {
    out << YAML::Null;
  } else if (node.is_string()) {
    const auto& s = node.get_ref<const std::string&>();
    if (s.empty() || NeedsQuotesToStayString(s)) {
      out << YAML::SingleQuoted << s;
    } else {
      out << s;
    }
  } else {
    out << ScalarToText(node);
  }
}

void Emit(YAML::Emitter& out, const Node& node) {
  if (node.is_object()) {
    if (node.empty()) {
      out << YAML::Flow << YAML::BeginMap << YAML::EndMap;
      return;
    }
    out << YAML::BeginMap;
    for (const auto& [key, value] : node.items()) {
      out << YAML::Key;
      EmitScalar(out, Node(key));
      out << YAML::Value;
      Emit(out, value);
    }
    out << YAML::EndMap;
  } else if (node.is_array()) {
    if (node.empty()) {
      out << YAML::Flow << YAML::BeginSeq << YAML::EndSeq;
      return;
    }
    out << YAML::BeginSeq;
    for (const auto& item : node) Emit(out, item);
    out << YAML::EndSeq;
  } else {
    EmitScalar(out, node);
  }
}

Error BadText(std::string_view text, const std::string& source, std::size_t offset, std::string_view what) {
  YAML::Mark mark;
  for (std::size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++mark.line;
      mark.column = 0;
    } else {
      ++mark.column;
    }
  }
  return YamlError(source, mark, what);
}

}  // namespace

Result<Node> LoadYaml(std::string_view text, const std::string& source) {
  if (auto bad = FirstInvalidUtf8(text)) {
    return BadText(text, source, *bad, "the file is not valid UTF-8 text").WithNote("save it as UTF-8");
  }
  if (auto bad = FirstControlCharacter(text)) {
    return BadText(
               text, source, *bad,
               fmt::format("control character 0x{:02X} is not allowed in YAML", static_cast<unsigned char>(text[*bad])))
        .WithNote("remove it, or write it as an escape inside a double-quoted string");
  }
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    return YamlError(source, e.mark, e.msg);
  }
  try {
    ASSIGN_OR_RETURN(Node converted, Convert(root, source));
    if (converted.is_null()) return Node::object();  // an empty (or null) document
    return converted;
  } catch (const YAML::Exception& e) {
    return YamlError(source, e.mark, e.msg);
  }
}

std::string EmitYaml(const Node& node) {
  YAML::Emitter out;
  out.SetNullFormat(YAML::LowerNull);
  out.SetIndent(2);
  Emit(out, node);
  std::string text = out.c_str();
  text += '\n';
  return text;
}

}  // namespace llmpo::config

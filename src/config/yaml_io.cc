#include "src/config/yaml_io.h"

#include <fmt/format.h>
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <map>
#include <sstream>

#include "src/config/limits.h"
#include "src/config/scalar.h"
#include "src/core/utf8.h"

namespace llmpo::config {
namespace {

Error YamlError(const std::string& source, const YAML::Mark& mark, std::string_view what) {
  return MakeError(ExitStatus::kInput, fmt::format("{}:{}:{}: {}", source, mark.line + 1, mark.column + 1, what));
}

// A limit of limits.h crossed while checking the document's events.
struct LimitExceeded {
  Error error;
};

Error DepthError(const std::string& source, const YAML::Mark& mark) {
  return YamlError(source, mark, fmt::format("nested deeper than {} levels", kMaxYamlDepth))
      .WithNote(fmt::format("a configuration may nest at most {} mappings and lists, aliases expanded "
                            "(docs/security.md)",
                            kMaxYamlDepth))
      .WithNote("fix: flatten the structure, or use fewer levels of aliases");
}

// Walks the parser's events once, before the document is built, and adds up
// what it would be with every alias expanded, without expanding anything: an
// anchored value's size is recorded once, and an alias adds that size. A
// document of nested aliases ("billion laughs") is refused here, at the
// alias that crosses a limit, in time proportional to the text.
class ExpansionCheck : public YAML::EventHandler {
 public:
  explicit ExpansionCheck(const std::string& source) : source_(source) {}

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override { Leaf(mark, anchor, 0); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor, const std::string& value) override {
    Leaf(mark, anchor, value.size());
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    auto it = anchors_.find(anchor);
    if (it != anchors_.end()) return Add(mark, it->second.size, &it->second.name);
    // An alias inside the value it names would make the tree infinite.
    for (const auto& frame : stack_) {
      if (frame.anchor == anchor) {
        throw LimitExceeded{
            YamlError(source_, mark, fmt::format("the alias *{} is inside the value it names", frame.name))
                .WithNote("a configuration is a tree: an alias may only name a value that ends "
                          "before it")};
      }
    }
    // An unknown alias: yaml-cpp refuses it itself.
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    Open(mark, anchor);
  }
  void OnSequenceEnd() override { Close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    Open(mark, anchor);
  }
  void OnMapEnd() override { Close(); }
  void OnAnchor(const YAML::Mark&, const std::string& name) override { pending_name_ = name; }

 private:
  // A subtree with its aliases expanded. Every size is at most the running
  // total, which stops at the limit, so nothing overflows.
  struct Size {
    std::uint64_t nodes = 0;
    std::uint64_t bytes = 0;
    int depth = 0;  // levels of mappings and lists: 0 for a scalar
  };
  struct Anchored {
    std::string name;
    Size size;
  };
  struct Frame {
    YAML::anchor_t anchor;
    std::string name;
    Size size;
  };

  void Leaf(const YAML::Mark& mark, YAML::anchor_t anchor, std::size_t bytes) {
    const Size size{1, bytes, 0};
    Remember(anchor, std::move(pending_name_), size);
    Add(mark, size, nullptr);
  }

  void Open(const YAML::Mark& mark, YAML::anchor_t anchor) {
    if (stack_.size() + 1 > static_cast<std::size_t>(kMaxYamlDepth)) throw LimitExceeded{DepthError(source_, mark)};
    Count(mark, Size{1, 0, 0}, nullptr);
    stack_.push_back(Frame{anchor, std::move(pending_name_), Size{1, 0, 1}});
    pending_name_.clear();
  }

  void Close() {
    Frame frame = std::move(stack_.back());
    stack_.pop_back();
    Remember(frame.anchor, std::move(frame.name), frame.size);
    if (!stack_.empty()) Nest(frame.size);
  }

  void Remember(YAML::anchor_t anchor, std::string name, const Size& size) {
    pending_name_.clear();
    if (anchor != YAML::NullAnchor) anchors_[anchor] = Anchored{std::move(name), size};
  }

  // A value (a scalar, or an alias's whole anchored subtree) at this point.
  void Add(const YAML::Mark& mark, const Size& size, const std::string* alias) {
    if (alias != nullptr &&
        stack_.size() + static_cast<std::size_t>(size.depth) > static_cast<std::size_t>(kMaxYamlDepth)) {
      throw LimitExceeded{DepthError(source_, mark)};
    }
    Count(mark, size, alias);
    if (!stack_.empty()) Nest(size);
  }

  void Nest(const Size& child) {
    Size& parent = stack_.back().size;
    parent.nodes += child.nodes;
    parent.bytes += child.bytes;
    parent.depth = std::max(parent.depth, child.depth + 1);
  }

  void Count(const YAML::Mark& mark, const Size& size, const std::string* alias) {
    total_nodes_ += size.nodes;
    total_bytes_ += size.bytes;
    if (total_nodes_ <= kMaxYamlNodes && total_bytes_ <= kMaxYamlScalarBytes) return;
    const bool nodes = total_nodes_ > kMaxYamlNodes;
    Error e = YamlError(source_, mark,
                        nodes ? fmt::format("the document grows past {} nodes{}", kMaxYamlNodes,
                                            alias ? " when its aliases are expanded" : "")
                              : fmt::format("the document grows past {} MiB of text{}", kMaxYamlScalarBytes >> 20,
                                            alias ? " when its aliases are expanded" : ""));
    if (alias != nullptr) {
      std::move(e).WithNote(fmt::format(
          "the alias {} copies the whole value anchored there, and aliases of aliases multiply (a \"billion laughs\" "
          "document)",
          alias->empty() ? std::string("here") : "*" + *alias));
    }
    std::move(e)
        .WithNote(fmt::format("a YAML file may hold at most {} nodes and {} MiB of text, aliases expanded, nested at "
                              "most {} levels deep (docs/security.md)",
                              kMaxYamlNodes, kMaxYamlScalarBytes >> 20, kMaxYamlDepth))
        .WithNote(alias ? "fix: write the repeated values out, or use fewer levels of aliases"
                        : "fix: a configuration this large is not supported; split it or shorten it");
    throw LimitExceeded{std::move(e)};
  }

  const std::string& source_;
  std::vector<Frame> stack_;
  std::map<YAML::anchor_t, Anchored> anchors_;
  std::string pending_name_;
  std::uint64_t total_nodes_ = 0;
  std::uint64_t total_bytes_ = 0;
};

// Runs ExpansionCheck over the first document, as YAML::Load reads it.
Status CheckExpansion(std::string_view text, const std::string& source) {
  std::istringstream stream{std::string(text)};
  try {
    YAML::Parser parser(stream);
    ExpansionCheck check(source);
    parser.HandleNextDocument(check);
  } catch (LimitExceeded& e) {
    return std::move(e.error);
  } catch (const YAML::DeepRecursion& e) {  // the parser's own guard; ours is lower, but to be sure
    return DepthError(source, e.mark);
  } catch (const YAML::Exception& e) {
    return YamlError(source, e.mark, e.msg);
  }
  return OkStatus();
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
  RETURN_IF_ERROR(CheckExpansion(text, source));
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

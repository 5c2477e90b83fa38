#include "src/config/interpolation.h"

#include <fmt/format.h>

#include <cstdlib>
#include <set>

#include "src/config/limits.h"
#include "src/config/node_path.h"
#include "src/config/scalar.h"
#include "src/core/spellcheck.h"

namespace llmpo::config {
namespace {

struct Piece {
  bool is_interpolation = false;
  std::string text;  // literal text, or the inside of ${...}
};

// Splits "a${b}c" into pieces; nested ${} inside an interpolation is kept
// in its text and resolved when that text is evaluated.
Result<std::vector<Piece>> SplitPieces(const std::string& s) {
  std::vector<Piece> pieces;
  std::string literal;
  std::size_t i = 0;
  while (i < s.size()) {
    if (s.compare(i, 3, "\\${") == 0) {
      literal += "${";
      i += 3;
      continue;
    }
    if (s.compare(i, 2, "${") != 0) {
      literal += s[i++];
      continue;
    }
    int depth = 1;
    std::size_t j = i + 2;
    for (; j < s.size() && depth > 0; ++j) {
      if (s[j] == '{') ++depth;
      if (s[j] == '}') --depth;
    }
    if (depth > 0) return MakeError(ExitStatus::kUsage, fmt::format("'${{' without a closing '}}' in '{}'", s));
    if (!literal.empty()) pieces.push_back({false, std::move(literal)});
    literal.clear();
    pieces.push_back({true, s.substr(i + 2, j - i - 3)});
    i = j;
  }
  if (!literal.empty()) pieces.push_back({false, std::move(literal)});
  return pieces;
}

bool HasInterpolation(const Node& node) {
  return node.is_string() && node.get_ref<const std::string&>().find("${") != std::string::npos;
}

class Resolver {
 public:
  Resolver(Node& root, const ResolveContext& context) : root_(root), context_(context) {}

  Status ResolveSubtree(const KeyPath& path) {
    Node* node = FindPath(root_, path);
    if (node == nullptr) return OkStatus();
    if (node->is_object() || node->is_array()) {
      std::vector<std::string> children;
      if (node->is_object()) {
        for (const auto& [key, _] : node->items()) children.push_back(key);
      } else {
        for (std::size_t i = 0; i < node->size(); ++i) children.push_back(std::to_string(i));
      }
      for (const auto& child : children) {
        KeyPath child_path = path;
        child_path.push_back(child);
        RETURN_IF_ERROR(ResolveSubtree(child_path));
      }
      return OkStatus();
    }
    if (!HasInterpolation(*node)) return OkStatus();
    const std::string where = JoinKey(path);
    if (!in_progress_.insert(where).second) {
      return MakeError(ExitStatus::kUsage, fmt::format("interpolation cycle through '{}'", where));
    }
    auto value = Evaluate(node->get<std::string>(), path);
    in_progress_.erase(where);
    if (!value.ok()) return std::move(value).error().WithContext(fmt::format("resolving '{}'", where));
    *FindPath(root_, path) = std::move(value).value();
    return OkStatus();
  }

 private:
  Result<Node> Evaluate(const std::string& text, const KeyPath& at) {
    ASSIGN_OR_RETURN(std::vector<Piece> pieces, SplitPieces(text));
    if (pieces.size() == 1 && pieces[0].is_interpolation) return EvaluateOne(pieces[0].text, at);
    std::string out;
    for (const auto& piece : pieces) {
      if (!piece.is_interpolation) {
        out += piece.text;
        continue;
      }
      ASSIGN_OR_RETURN(Node value, EvaluateOne(piece.text, at));
      if (value.is_structured()) {
        return MakeError(ExitStatus::kUsage,
                         fmt::format("'${{{}}}' is a mapping or list and cannot be part of a string", piece.text));
      }
      out += ScalarToText(value);
      if (out.size() > kMaxInterpolatedStringBytes) {
        return LimitError(fmt::format("'${{{}}}' makes the string longer than {} MiB", piece.text,
                                      kMaxInterpolatedStringBytes >> 20));
      }
    }
    RETURN_IF_ERROR(Charge(1, out.size()));
    return Node(out);
  }

  Result<Node> EvaluateOne(const std::string& inner, const KeyPath& at) {
    // Nested interpolations in the inner text resolve first.
    std::string expr = inner;
    if (expr.find("${") != std::string::npos) {
      ASSIGN_OR_RETURN(Node expanded, Evaluate(expr, at));
      expr = ScalarToText(expanded);
    }
    const auto colon = expr.find(':');
    if (colon != std::string::npos && expr.find_first_of(".", 0) != 0 &&
        expr.substr(0, colon).find_first_of("/[]") == std::string::npos) {
      return CallResolver(expr.substr(0, colon), expr.substr(colon + 1));
    }
    return Lookup(expr, at);
  }

  Result<Node> Lookup(const std::string& expr, const KeyPath& at) {
    KeyPath target;
    if (expr.starts_with('.')) {
      std::size_t dots = expr.find_first_not_of('.');
      if (dots == std::string::npos) dots = expr.size();
      target.assign(at.begin(), at.end() - static_cast<std::ptrdiff_t>(std::min(at.size(), dots)));
      for (auto& part : SplitKey(expr.substr(dots))) target.push_back(std::move(part));
    } else {
      target = SplitKey(expr);
    }
    if (FindPath(root_, target) == nullptr) {
      const std::string key = JoinKey(target);
      Error e = MakeError(ExitStatus::kUsage, fmt::format("'${{{}}}': key '{}' is not in the config", expr, key));
      const auto paths = AllKeyPaths(root_);
      if (auto near = ClosestMatch(key, paths)) std::move(e).WithNote(fmt::format("did you mean '{}'?", *near));
      return e;
    }
    RETURN_IF_ERROR(ResolveSubtree(target));
    const Node& found = *FindPath(root_, target);
    RETURN_IF_ERROR(ChargeCopy(found, expr, at.size()));
    return found;
  }

  // ${...} copies values; nested copies multiply like YAML aliases do. Every
  // copy is charged to one budget per composition (limits.h), so a few lines
  // cannot ask for gigabytes.
  Status ChargeCopy(const Node& value, const std::string& expr, std::size_t at_depth) {
    std::uint64_t nodes = 0, bytes = 0;
    int depth = 0;
    const std::uint64_t node_room = kMaxInterpolationNodes - std::min(kMaxInterpolationNodes, copied_nodes_);
    Measure(value, 0, node_room, nodes, bytes, depth);
    if (at_depth + static_cast<std::size_t>(depth) > static_cast<std::size_t>(kMaxYamlDepth)) {
      return LimitError(fmt::format("'${{{}}}' nests the config deeper than {} levels", expr, kMaxYamlDepth));
    }
    return Charge(nodes, bytes);
  }

  // Nodes, scalar bytes and levels of `value`; stops counting past `room` nodes.
  static void Measure(const Node& value, int level, std::uint64_t room, std::uint64_t& nodes, std::uint64_t& bytes,
                      int& depth) {
    ++nodes;
    if (value.is_string()) bytes += value.get_ref<const std::string&>().size();
    if (!value.is_structured()) return;
    depth = std::max(depth, level + 1);
    for (const auto& [key, child] : value.items()) {
      if (nodes > room) return;
      if (value.is_object()) bytes += key.size();
      Measure(child, level + 1, room, nodes, bytes, depth);
    }
  }

  Status Charge(std::uint64_t nodes, std::uint64_t bytes) {
    copied_nodes_ += nodes;
    copied_bytes_ += bytes;
    if (copied_nodes_ > kMaxInterpolationNodes) {
      return LimitError(fmt::format("interpolations copy more than {} nodes", kMaxInterpolationNodes));
    }
    if (copied_bytes_ > kMaxInterpolationBytes) {
      return LimitError(fmt::format("interpolations copy more than {} MiB", kMaxInterpolationBytes >> 20));
    }
    return OkStatus();
  }

  static Error LimitError(std::string what) {
    return MakeError(ExitStatus::kInput, std::move(what))
        .WithNote(fmt::format(
            "${{...}} copies the value it names, and copies of copies multiply; one composition may "
            "copy at most {} nodes and {} MiB, make strings of at most {} MiB, nest at most {} levels "
            "(docs/security.md)",
            kMaxInterpolationNodes, kMaxInterpolationBytes >> 20, kMaxInterpolatedStringBytes >> 20, kMaxYamlDepth))
        .WithNote("fix: write the value out, or use fewer levels of interpolation");
  }

  Result<Node> CallResolver(const std::string& name, const std::string& args) {
    if (name == "now") return Node(FormatNow(args));
    if (name == "oc.env") return EnvValue(args);
    if (name == "hydra") {
      if (args == "runtime.cwd") return Node(context_.cwd.string());
      KeyPath path = SplitKey("hydra." + args);
      return Lookup(JoinKey(path), {});
    }
    return MakeError(ExitStatus::kUsage, fmt::format("unknown resolver '{}' in '${{{}:{}}}'", name, name, args))
        .WithNote("supported resolvers: now, oc.env, hydra");
  }

  std::string FormatNow(const std::string& format) const {
    std::tm tm{};
    localtime_r(&context_.now, &tm);
    char buffer[256];
    const std::size_t n = std::strftime(buffer, sizeof buffer, format.c_str(), &tm);
    return std::string(buffer, n);
  }

  static Result<Node> EnvValue(const std::string& args) {
    const auto comma = args.find(',');
    const std::string name = args.substr(0, comma);
    if (const char* value = std::getenv(name.c_str())) return Node(std::string(value));
    if (comma != std::string::npos) {
      std::string fallback = args.substr(comma + 1);
      const auto first = fallback.find_first_not_of(' ');
      fallback = first == std::string::npos ? "" : fallback.substr(first);
      return fallback == "null" ? Node(nullptr) : Node(fallback);
    }
    return MakeError(ExitStatus::kUsage, fmt::format("environment variable '{}' is not set", name))
        .WithNote(fmt::format("set it, or give a default: ${{oc.env:{},DEFAULT}}", name));
  }

  Node& root_;
  const ResolveContext& context_;
  std::set<std::string> in_progress_;
  std::uint64_t copied_nodes_ = 0;
  std::uint64_t copied_bytes_ = 0;
};

}  // namespace

Status ResolveInterpolations(Node& root, const ResolveContext& context) {
  Resolver resolver(root, context);
  return resolver.ResolveSubtree({});
}

}  // namespace llmpo::config

// Minimal command-line flags for the bundled workloads: `--name VALUE`,
// `--name=VALUE` and boolean `--name`; `--help` prints the flags and exits 0;
// anything else is a usage error (exit 2).
#pragma once

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cuda_check.h"

namespace wl {

class Flags {
 public:
  Flags(const char* program, const char* summary) : program_(program), summary_(summary) {}

  // An integer flag in [min, max]; *value holds the default.
  void Int(const char* name, int* value, int min, int max, const char* help) {
    flags_.push_back({name, help, value, nullptr, min, max});
  }
  // A switch: present means true.
  void Bool(const char* name, bool* value, const char* help) { flags_.push_back({name, help, nullptr, value, 0, 0}); }

  void Parse(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
      std::string arg = argv[i];
      if (arg == "--help" || arg == "-h") {
        PrintHelp(stdout);
        std::exit(kExitOk);
      }
      std::string value;
      bool has_value = false;
      if (const auto eq = arg.find('='); eq != std::string::npos) {
        value = arg.substr(eq + 1);
        arg.resize(eq);
        has_value = true;
      }
      const Flag* f = Find(arg);
      if (f == nullptr) Usage("unknown flag '" + arg + "'");
      if (f->boolean != nullptr) {
        if (has_value) Usage("flag " + arg + " takes no value");
        *f->boolean = true;
        continue;
      }
      if (!has_value) {
        if (i + 1 >= argc) Usage("flag " + arg + " needs a value");
        value = argv[++i];
      }
      *f->integer = ParseInt(arg, value, f->min, f->max);
    }
  }

  [[noreturn]] void Usage(const std::string& why) const {
    std::fprintf(stderr, "%s: %s\n", program_, why.c_str());
    std::fprintf(stderr, "run '%s --help' for the flags\n", program_);
    std::exit(kExitUsage);
  }

 private:
  struct Flag {
    const char* name;
    const char* help;
    int* integer;
    bool* boolean;
    int min, max;
  };

  const Flag* Find(const std::string& arg) const {
    for (const auto& f : flags_) {
      if (arg == std::string("--") + f.name) return &f;
    }
    return nullptr;
  }

  int ParseInt(const std::string& flag, const std::string& text, int min, int max) const {
    errno = 0;
    char* end = nullptr;
    const long v = std::strtol(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || errno == ERANGE) Usage(flag + " needs an integer, got '" + text + "'");
    if (v < min || v > max) {
      Usage(flag + "=" + text + " is out of range [" + std::to_string(min) + ", " + std::to_string(max) + "]");
    }
    return static_cast<int>(v);
  }

  void PrintHelp(std::FILE* out) const {
    std::fprintf(out, "usage: %s [FLAGS]\n%s\n\nflags:\n", program_, summary_);
    for (const auto& f : flags_) {
      if (f.boolean != nullptr) {
        std::fprintf(out, "  --%-12s %s\n", f.name, f.help);
      } else {
        std::fprintf(out, "  --%-12s %s (default %d)\n", (std::string(f.name) + " N").c_str(), f.help, *f.integer);
      }
    }
    std::fprintf(out, "\nexit codes: 0 ok, 1 result mismatch, 2 usage, 69 no usable CUDA device, 70 CUDA error\n");
  }

  const char* program_;
  const char* summary_;
  std::vector<Flag> flags_;
};

}  // namespace wl

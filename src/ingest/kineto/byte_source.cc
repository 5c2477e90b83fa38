#include "src/ingest/kineto/byte_source.h"

#include <zlib.h>

#include <climits>

namespace llmpo::ingest::kineto {
namespace {

class GzFileSource : public ByteSource {
 public:
  explicit GzFileSource(gzFile file) : file_(file) { gzbuffer(file_, 1 << 20); }
  ~GzFileSource() override { gzclose(file_); }
  GzFileSource(const GzFileSource&) = delete;
  GzFileSource& operator=(const GzFileSource&) = delete;

  std::size_t Read(char* buffer, std::size_t size) override {
    if (done_) return 0;
    const int got = gzread(file_, buffer, static_cast<unsigned>(size > INT_MAX ? INT_MAX : size));
    if (got > 0) return static_cast<std::size_t>(got);
    done_ = true;
    int code = Z_OK;
    const char* message = gzerror(file_, &code);
    if (code != Z_OK && code != Z_STREAM_END) {
      error_ = code == Z_BUF_ERROR ? "the gzip stream is cut short (unexpected end of file)"
                                   : std::string("gzip: ") + (message ? message : "read error");
    } else if (got < 0) {
      error_ = "read error";
    }
    return 0;
  }

 private:
  gzFile file_;
  bool done_ = false;
};

}  // namespace

bool IsGzip(const char* bytes, std::size_t size) {
  return size >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f && static_cast<unsigned char>(bytes[1]) == 0x8b;
}

std::unique_ptr<ByteSource> OpenFileSource(const std::string& path, std::string& why) {
  gzFile file = gzopen(path.c_str(), "rb");
  if (file == nullptr) {
    why = "cannot be opened for reading";
    return nullptr;
  }
  return std::make_unique<GzFileSource>(file);
}

}  // namespace llmpo::ingest::kineto

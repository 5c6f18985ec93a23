#include "frontend/trace/line_source.h"

#include <lzma.h>
#include <zlib.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "common/error.h"

namespace warpsim {
namespace {

class GzipSource : public ByteSource {
 public:
  GzipSource(const std::string& path) : path_(path) {
    file_ = gzopen(path.c_str(), "rb");
    if (!file_) throw InputError(SourceLocation{path, 0, 0}, std::string("cannot open trace: ") + std::strerror(errno));
    gzbuffer(file_, 1 << 17);
  }
  ~GzipSource() override { gzclose(file_); }
  size_t read(char* buffer, size_t capacity) override {
    int n = gzread(file_, buffer, static_cast<unsigned>(capacity));
    int err = Z_OK;
    const char* msg = gzerror(file_, &err);
    if (n < 0 || (err != Z_OK && err != Z_STREAM_END)) {
      throw InputError(SourceLocation{path_, 0, 0}, std::string("cannot read trace (truncated or corrupt gzip?): ") + msg);
    }
    return static_cast<size_t>(n);
  }

 private:
  std::string path_;
  gzFile file_ = nullptr;
};

class XzSource : public ByteSource {
 public:
  XzSource(const std::string& path) : path_(path) {
    file_ = std::fopen(path.c_str(), "rb");
    if (!file_) throw InputError(SourceLocation{path, 0, 0}, std::string("cannot open trace: ") + std::strerror(errno));
    if (lzma_stream_decoder(&stream_, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK) {
      std::fclose(file_);
      throw InputError(SourceLocation{path, 0, 0}, "cannot start the xz decoder");
    }
  }
  ~XzSource() override {
    lzma_end(&stream_);
    std::fclose(file_);
  }
  size_t read(char* buffer, size_t capacity) override {
    stream_.next_out = reinterpret_cast<uint8_t*>(buffer);
    stream_.avail_out = capacity;
    while (stream_.avail_out == capacity && !finished_) {
      lzma_action action = LZMA_RUN;
      if (stream_.avail_in == 0) {
        size_t n = std::fread(input_, 1, sizeof input_, file_);
        stream_.next_in = input_;
        stream_.avail_in = n;
        if (n == 0) action = LZMA_FINISH;
      }
      lzma_ret r = lzma_code(&stream_, action);
      if (r == LZMA_STREAM_END) {
        finished_ = true;
      } else if (r != LZMA_OK) {
        throw InputError(SourceLocation{path_, 0, 0}, "cannot read trace: corrupt or truncated xz data (lzma error " + std::to_string(r) + ")");
      }
    }
    return capacity - stream_.avail_out;
  }

 private:
  std::string path_;
  std::FILE* file_ = nullptr;
  lzma_stream stream_ = LZMA_STREAM_INIT;
  uint8_t input_[1 << 16];
  bool finished_ = false;
};

bool is_xz(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  unsigned char magic[6] = {};
  size_t n = std::fread(magic, 1, sizeof magic, f);
  std::fclose(f);
  static const unsigned char kXz[6] = {0xFD, '7', 'z', 'X', 'Z', 0x00};
  return n == 6 && std::memcmp(magic, kXz, 6) == 0;
}

}  // namespace

LineSource::LineSource(const std::string& path) : path_(path) {
  if (is_xz(path)) {
    bytes_ = std::make_unique<XzSource>(path);
  } else {
    bytes_ = std::make_unique<GzipSource>(path);  // zlib reads plain files too
  }
}

LineSource::~LineSource() = default;

bool LineSource::fill() {
  if (eof_) return false;
  buffer_.erase(0, position_);
  position_ = 0;
  size_t old = buffer_.size();
  buffer_.resize(old + (1 << 17));
  size_t n = bytes_->read(buffer_.data() + old, 1 << 17);
  buffer_.resize(old + n);
  if (n == 0) eof_ = true;
  return n > 0;
}

bool LineSource::next(std::string& line) {
  if (has_pushed_back_) {
    has_pushed_back_ = false;
    line.swap(pushed_back_);
    ++line_number_;
    return true;
  }
  while (true) {
    size_t nl = buffer_.find('\n', position_);
    if (nl != std::string::npos) {
      line.assign(buffer_, position_, nl - position_);
      position_ = nl + 1;
      break;
    }
    if (buffer_.size() - position_ > (1u << 20)) {
      throw InputError(SourceLocation{path_, line_number_ + 1, 1}, "line longer than 1 MiB; expected one instruction per line");
    }
    if (!fill()) {
      if (position_ >= buffer_.size()) return false;
      line.assign(buffer_, position_, std::string::npos);  // last line without a newline
      position_ = buffer_.size();
      break;
    }
  }
  if (!line.empty() && line.back() == '\r') line.pop_back();
  ++line_number_;
  return true;
}

void LineSource::unread(std::string line) {
  pushed_back_ = std::move(line);
  has_pushed_back_ = true;
  --line_number_;
}

}  // namespace warpsim

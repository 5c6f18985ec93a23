#pragma once
// Reads a text file line by line, whether plain, gzip- or xz-compressed (detected from the
// file's first bytes), with the current line number for messages.
#include <cstdint>
#include <memory>
#include <string>

namespace warpsim {

// A decompressing byte source (gzip/plain through zlib, xz through liblzma).
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Fills up to `capacity` bytes; returns the count, 0 at end. Throws InputError on corruption.
  virtual size_t read(char* buffer, size_t capacity) = 0;
};

class LineSource {
 public:
  explicit LineSource(const std::string& path);  // throws InputError if it cannot be opened
  ~LineSource();
  LineSource(const LineSource&) = delete;
  LineSource& operator=(const LineSource&) = delete;

  // Reads the next line (without the newline) into `line`; false at end of file.
  bool next(std::string& line);
  // Puts `line` (the one just read) back so the next call returns it again.
  void unread(std::string line);
  uint32_t line_number() const { return line_number_; }
  const std::string& path() const { return path_; }

 private:
  bool fill();

  std::string path_;
  std::unique_ptr<ByteSource> bytes_;
  std::string buffer_;
  size_t position_ = 0;
  bool eof_ = false;
  std::string pushed_back_;
  bool has_pushed_back_ = false;
  uint32_t line_number_ = 0;
};

}  // namespace warpsim

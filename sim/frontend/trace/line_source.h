#pragma once
// Reads a text file line by line through zlib, so plain and gzip-compressed traces are read the
// same way, with the current line number for messages.
#include <cstdint>
#include <string>

namespace warpsim {

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
  std::string path_;
  void* file_ = nullptr;  // gzFile
  std::string pushed_back_;
  bool has_pushed_back_ = false;
  uint32_t line_number_ = 0;
};

}  // namespace warpsim

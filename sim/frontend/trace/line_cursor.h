#pragma once
// A cursor over one line of text, for hand-written parsers that report file:line:col.
#include <cstdint>
#include <string>
#include <string_view>

#include "common/error.h"

namespace warpsim {

// std::isspace in the "C" locale (space, \t \n \v \f \r), inline: the libc call, made for
// every character a trace line holds, took 16% of a trace replay's time (perf, sgemm 256 trace).
inline bool is_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

class LineCursor {
 public:
  LineCursor(std::string_view text, const std::string& file, uint32_t line) : text_(text), file_(file), line_(line) {}

  void skip_space() {
    while (pos_ < text_.size() && is_space(text_[pos_])) ++pos_;
  }
  bool at_end() const { return pos_ >= text_.size(); }
  char peek() const { return at_end() ? '\0' : text_[pos_]; }
  void advance(size_t n = 1) { pos_ += n; }
  size_t pos() const { return pos_; }
  void set_pos(size_t p) { pos_ = p; }
  std::string_view rest() const { return text_.substr(pos_); }
  std::string_view text() const { return text_; }
  uint32_t line_number() const { return line_; }

  // The next run of non-space characters (after skipping space).
  std::string_view word() {
    skip_space();
    size_t start = pos_;
    while (pos_ < text_.size() && !is_space(text_[pos_])) ++pos_;
    return text_.substr(start, pos_ - start);
  }

  SourceLocation location(size_t column_index) const {
    return SourceLocation{file_, line_, static_cast<uint32_t>(column_index + 1)};
  }
  SourceLocation here() const { return location(pos_); }
  [[noreturn]] void fail_at(size_t column_index, const std::string& message) const {
    throw InputError(location(column_index), message);
  }
  [[noreturn]] void fail(const std::string& message) const { fail_at(pos_, message); }

 private:
  std::string_view text_;
  const std::string& file_;
  uint32_t line_;
  size_t pos_ = 0;
};

// Parses an unsigned integer in decimal or 0x-hex; false if `s` is not one.
bool parse_u64(std::string_view s, uint64_t& out);

}  // namespace warpsim

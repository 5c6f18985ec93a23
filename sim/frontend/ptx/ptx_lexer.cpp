#include "frontend/ptx/ptx_lexer.h"

#include <cctype>

#include "common/error.h"

namespace warpsim::ptx {

namespace {
bool word_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '%' || c == '.'; }
bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.'; }
}  // namespace

std::string describe(const Token& t) { return t.kind == Token::Kind::kEnd ? "end of file" : "'" + t.text + "'"; }

std::vector<Token> tokenize_ptx(const std::string& s, const std::string& file) {
  std::vector<Token> out;
  uint32_t line = 1;
  size_t line_start = 0;
  size_t i = 0;
  auto column = [&](size_t at) { return static_cast<uint32_t>(at - line_start + 1); };
  while (i < s.size()) {
    char c = s[i];
    if (c == '\n') {
      ++line;
      line_start = ++i;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
      while (i < s.size() && s[i] != '\n') ++i;
      continue;
    }
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      size_t end = s.find("*/", i + 2);
      if (end == std::string::npos) throw InputError(SourceLocation{file, line, column(i)}, "unterminated /* comment");
      for (size_t k = i; k < end; ++k)
        if (s[k] == '\n') ++line, line_start = k + 1;
      i = end + 2;
      continue;
    }
    Token t;
    t.line = line;
    t.column = column(i);
    size_t start = i;
    if (c == '"') {
      ++i;
      while (i < s.size() && s[i] != '"' && s[i] != '\n') ++i;
      if (i >= s.size() || s[i] != '"') throw InputError(SourceLocation{file, line, t.column}, "unterminated string");
      t.kind = Token::Kind::kString;
      t.text = s.substr(start + 1, i - start - 1);
      ++i;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      // 123, 123U, 0x1F, 0f3F800000, 0d3FF0000000000000, 1.5, 1e-3
      ++i;
      while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '.' ||
                              ((s[i] == '+' || s[i] == '-') && (s[i - 1] == 'e' || s[i - 1] == 'E') && s[start] != '0'))) {
        ++i;
      }
      t.kind = Token::Kind::kNumber;
      t.text = s.substr(start, i - start);
    } else if (word_start(c)) {
      ++i;
      // A directive or type is one dotted word, so `.reg.b16` (as cuda_fp16.hpp's inline
      // assembly spells it) is two tokens; an opcode keeps its modifiers (`ld.global.f32`).
      const bool directive = c == '.';
      while (i < s.size()) {
        if (directive && s[i] == '.') {
          break;
        } else if (word_char(s[i])) {
          ++i;
        } else if (s[i] == ':' && i + 1 < s.size() && s[i + 1] == ':') {
          i += 2;  // state spaces such as .shared::cta
        } else {
          break;
        }
      }
      t.kind = Token::Kind::kWord;
      t.text = s.substr(start, i - start);
    } else if (std::string_view(",;{}[]()+-@!<>=|:").find(c) != std::string_view::npos) {
      t.kind = Token::Kind::kPunct;
      t.text = std::string(1, c);
      ++i;
    } else {
      throw InputError(SourceLocation{file, line, t.column}, std::string("unexpected character '") + c + "'");
    }
    out.push_back(std::move(t));
  }
  Token end;
  end.kind = Token::Kind::kEnd;
  end.line = line;
  end.column = column(i);
  out.push_back(end);
  return out;
}

}  // namespace warpsim::ptx

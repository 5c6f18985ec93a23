#include "frontend/trace/line_source.h"

#include <zlib.h>

#include <cerrno>
#include <cstring>

#include "common/error.h"

namespace warpsim {

LineSource::LineSource(const std::string& path) : path_(path) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) throw InputError(SourceLocation{path, 0, 0}, std::string("cannot open trace: ") + std::strerror(errno));
  gzbuffer(f, 1 << 17);
  file_ = f;
}

LineSource::~LineSource() {
  if (file_) gzclose(static_cast<gzFile>(file_));
}

bool LineSource::next(std::string& line) {
  if (has_pushed_back_) {
    has_pushed_back_ = false;
    line.swap(pushed_back_);
    ++line_number_;
    return true;
  }
  line.clear();
  char buffer[4096];
  gzFile f = static_cast<gzFile>(file_);
  bool any = false;
  while (gzgets(f, buffer, sizeof buffer)) {
    any = true;
    size_t n = std::strlen(buffer);
    if (n > 0 && buffer[n - 1] == '\n') {
      line.append(buffer, n - 1);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      break;
    }
    line.append(buffer, n);
    if (line.size() > (1u << 20)) {
      throw InputError(SourceLocation{path_, line_number_ + 1, 1}, "line longer than 1 MiB; expected one instruction per line");
    }
  }
  int err = 0;
  const char* msg = gzerror(f, &err);
  if (err != Z_OK && err != Z_STREAM_END) {
    throw InputError(SourceLocation{path_, line_number_ + 1, 1}, std::string("cannot read trace: ") + msg);
  }
  if (!any) return false;
  ++line_number_;
  return true;
}

void LineSource::unread(std::string line) {
  pushed_back_ = std::move(line);
  has_pushed_back_ = true;
  --line_number_;
}

}  // namespace warpsim

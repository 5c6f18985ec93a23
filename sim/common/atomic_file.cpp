#include "common/atomic_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

namespace warpsim {

void write_file_atomically(const std::string& path, const std::string& content) {
  namespace fs = std::filesystem;
  fs::path target(path);
  fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::string tmpl = (dir / ("." + target.filename().string() + ".tmpXXXXXX")).string();
  int fd = mkstemp(tmpl.data());
  if (fd < 0) {
    throw std::runtime_error(path + ": cannot create output file: " + std::strerror(errno));
  }
  size_t written = 0;
  while (written < content.size()) {
    ssize_t n = ::write(fd, content.data() + written, content.size() - written);
    if (n < 0) {
      int err = errno;
      ::close(fd);
      ::unlink(tmpl.c_str());
      throw std::runtime_error(path + ": write failed: " + std::strerror(err));
    }
    written += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    int err = errno;
    ::unlink(tmpl.c_str());
    throw std::runtime_error(path + ": write failed: " + std::strerror(err));
  }
  ::chmod(tmpl.c_str(), 0644);
  if (std::rename(tmpl.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmpl.c_str());
    throw std::runtime_error(path + ": cannot move output into place: " + std::strerror(err));
  }
}

void make_output_directory(const std::string& dir) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) throw std::runtime_error(dir + ": cannot create output directory: " + error.message());
  if (!std::filesystem::is_directory(dir)) throw std::runtime_error(dir + ": cannot create output directory: a file of that name is in the way");
}

}  // namespace warpsim

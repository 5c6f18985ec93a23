#pragma once
// Writes a whole output file or nothing: content goes to a temporary file in the same folder,
// which is renamed over the target only after a successful write and flush.
#include <string>

namespace warpsim {

// Throws IoError-like std::runtime_error (with the path) on failure; leaves no partial file.
void write_file_atomically(const std::string& path, const std::string& content);

// Makes `dir` and its missing parents, as `mkdir -p` does; throws std::runtime_error naming it
// when that fails (a file in the way, no permission).
void make_output_directory(const std::string& dir);

}  // namespace warpsim

#pragma once
// Writes a whole output file or nothing: content goes to a temporary file in the same folder,
// which is renamed over the target only after a successful write and flush.
#include <string>

namespace warpsim {

// Throws IoError-like std::runtime_error (with the path) on failure; leaves no partial file.
void write_file_atomically(const std::string& path, const std::string& content);

}  // namespace warpsim

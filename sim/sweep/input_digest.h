#pragma once
// What a sweep point's run reads, digested, so that a result whose files have changed since it
// was made is run again on resume (a point's id hashes its input's path, not its contents).
#include <string>
#include <vector>

namespace warpsim {

// The files a run of `input` reads: the input; for a launch file also the PTX (or CUDA) files
// and the buffer and reference files it names (every `{sm}` variant of a PTX path); for an
// Accel-Sim command list also its kernel traces. Sorted, without repeats; missing ones included.
std::vector<std::string> files_read_by(const std::string& input);

// FNV-1a (64 bits, hex) over each file's path and bytes (a missing file digests as missing).
std::string digest_files(const std::vector<std::string>& files);

}  // namespace warpsim

#include "cli/sweep_run.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "cli/cli_common.h"
#include "common/atomic_file.h"
#include "sweep/input_digest.h"

extern char** environ;

namespace warpsim::cli {
namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

enum class Previous { kNone, kDone, kStale };

// A result that says "ok" and was made from files with this digest is done; one made from other
// files (or before results kept a digest) is stale.
Previous previous_result(const std::string& result_path, const std::string& digest) {
  std::error_code ec;
  if (!fs::exists(result_path, ec)) return Previous::kNone;
  try {
    const auto result = nlohmann::json::parse(slurp(result_path));
    if (result.value("status", "") != "ok") return Previous::kNone;
    return result.value("input_digest", "") == digest ? Previous::kDone : Previous::kStale;
  } catch (const nlohmann::json::exception&) {
    return Previous::kNone;  // unreadable: run it again
  }
}

struct Child {
  SweepPoint point;
  std::string digest;  // of the files the run reads, taken before it starts
  std::string json_path, err_path;
  Clock::time_point started;
};

// Starts `warpsim run` for the point with stdout discarded and stderr kept for the result.
pid_t spawn(const std::string& self, const Child& c) {
  std::vector<std::string> args{self};
  for (auto& a : c.point.run_arguments(c.json_path)) args.push_back(a);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, c.err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, self.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw std::runtime_error(self + ": cannot start a run for a sweep point");
  return pid;
}

// Writes the point's result from what its run left behind, and removes those files.
bool finish(const Child& c, int wait_status, const std::string& result_path) {
  const double seconds = std::chrono::duration<double>(Clock::now() - c.started).count();
  int exit_code = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : 128 + WTERMSIG(wait_status);
  std::string error = slurp(c.err_path);
  if (!WIFEXITED(wait_status)) error += "killed by signal " + std::to_string(WTERMSIG(wait_status)) + "\n";
  if (error.size() > 4000) error = "..." + error.substr(error.size() - 4000);
  nlohmann::ordered_json run = nullptr;
  std::error_code ec;
  if (fs::exists(c.json_path, ec)) {
    try {
      run = nlohmann::ordered_json::parse(slurp(c.json_path));
    } catch (const nlohmann::json::exception&) {
      error += "the run's JSON could not be read\n";
      exit_code = exit_code ? exit_code : 1;
    }
  }
  const bool ok = exit_code == 0 && !run.is_null();
  nlohmann::ordered_json result{{"point", c.point.to_json()},   {"status", ok ? "ok" : "failed"},
                                {"exit_code", exit_code},       {"error", error},
                                {"wall_seconds", seconds},      {"warpsim_version", kVersion},
                                {"input_digest", c.digest},     {"run", run}};
  write_file_atomically(result_path, result.dump(1) + "\n");
  fs::remove(c.json_path, ec);
  fs::remove(c.err_path, ec);
  return ok;
}

std::string describe(const SweepPoint& p) {
  std::string s = p.arch;
  for (const auto& [axis, value] : p.axes) s += " " + axis + "=" + value;
  return s + " " + fs::path(p.input).filename().string();
}

}  // namespace

std::vector<SweepPoint> select_chunk(const std::vector<SweepPoint>& points, const SweepRunOptions& options) {
  if (!options.index) return points;
  if (options.chunk == 0) throw UsageError{"--chunk must be at least 1"};
  const uint64_t chunks = (points.size() + options.chunk - 1) / options.chunk;
  if (*options.index >= chunks)
    throw UsageError{"--index " + std::to_string(*options.index) + " is past the last chunk: " + std::to_string(points.size()) +
                     " points in chunks of " + std::to_string(options.chunk) + " make indices 0-" + std::to_string(chunks - 1)};
  const auto first = points.begin() + static_cast<std::ptrdiff_t>(*options.index * options.chunk);
  const auto last = points.begin() + static_cast<std::ptrdiff_t>(std::min<uint64_t>(points.size(), (*options.index + 1) * options.chunk));
  return {first, last};
}

SweepRunTally run_sweep(const std::vector<SweepPoint>& all, const SweepRunOptions& options, std::ostream& progress) {
  if (options.jobs == 0) throw UsageError{"-j must be at least 1"};
  const std::vector<SweepPoint> points = select_chunk(all, options);
  fs::create_directories(options.results_dir);
  const std::string self = fs::read_symlink("/proc/self/exe").string();
  SweepRunTally tally;
  std::vector<std::pair<SweepPoint, std::string>> todo;  // with its files' digest
  std::set<std::string> seen;  // points with the same id are one simulation
  std::map<std::string, std::string> digests;  // by input: each input's files are read once
  for (const auto& p : points) {
    if (!seen.insert(p.id).second) continue;
    auto [at, fresh] = digests.try_emplace(p.input);
    if (fresh) at->second = digest_files(files_read_by(p.input));
    const std::string result = (fs::path(options.results_dir) / (p.id + ".json")).string();
    const Previous previous = options.force ? Previous::kNone : previous_result(result, at->second);
    if (previous == Previous::kDone) {
      ++tally.skipped;
      continue;
    }
    if (previous == Previous::kStale) ++tally.stale;
    todo.emplace_back(p, at->second);
  }
  // Temporary names carry this process's id: array tasks sharing a results folder never clash.
  const std::string tag = "." + std::to_string(::getpid());
  std::map<pid_t, Child> running;
  size_t next = 0, finished = 0;
  while (next < todo.size() || !running.empty()) {
    while (next < todo.size() && running.size() < options.jobs) {
      const auto& [p, digest] = todo[next++];
      const std::string base = (fs::path(options.results_dir) / ("." + p.id + tag)).string();
      Child c{p, digest, base + ".run.json", base + ".err", Clock::now()};
      running.emplace(spawn(self, c), std::move(c));
    }
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, 0);
    if (pid < 0) throw std::runtime_error("waiting for sweep runs failed");
    auto it = running.find(pid);
    if (it == running.end()) continue;
    const bool ok = finish(it->second, status, (fs::path(options.results_dir) / (it->second.point.id + ".json")).string());
    ++tally.ran;
    if (!ok) ++tally.failed;
    progress << "[" << ++finished << "/" << todo.size() << "] point " << it->second.point.index << " " << it->second.point.id << " "
             << describe(it->second.point) << ": " << (ok ? "ok" : "FAILED") << "\n"
             << std::flush;
    running.erase(it);
  }
  return tally;
}

}  // namespace warpsim::cli

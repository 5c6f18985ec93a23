#include "frontend/ptx/initial_values.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <random>

#include "common/error.h"
#include "common/half.h"
#include "config/config_node.h"
#include "config/map_reader.h"

namespace warpsim::ptx {
namespace fs = std::filesystem;

uint32_t elem_size(const std::string& e) {
  if (e == "f64" || e == "s64" || e == "u64") return 8;
  if (e == "f32" || e == "s32" || e == "u32") return 4;
  if (e == "f16" || e == "bf16" || e == "s16" || e == "u16") return 2;
  if (e == "s8" || e == "u8") return 1;
  return 0;
}

// Writes value v as element type `elem` at p.
void store_element(uint8_t* p, const std::string& elem, double v) {
  if (elem == "f32") {
    float f = static_cast<float>(v);
    std::memcpy(p, &f, 4);
  } else if (elem == "f64") {
    std::memcpy(p, &v, 8);
  } else if (elem == "f16") {
    uint16_t h = float_to_half(static_cast<float>(v));
    std::memcpy(p, &h, 2);
  } else if (elem == "bf16") {
    uint32_t x = std::bit_cast<uint32_t>(static_cast<float>(v));
    uint16_t h = static_cast<uint16_t>((x + 0x7fff + ((x >> 16) & 1)) >> 16);  // round to nearest even
    std::memcpy(p, &h, 2);
  } else {
    int64_t i = static_cast<int64_t>(std::llround(v));
    std::memcpy(p, &i, elem_size(elem));
  }
}


std::vector<uint8_t> initial_bytes(MapReader& b, const std::string& elem, uint64_t count, const fs::path& dir, bool* undefined) {
  std::vector<uint8_t> bytes(count * elem_size(elem), 0);
  if (undefined) *undefined = false;
  if (b.has("init")) {
    const ConfigNode& init = b.raw("init");
    if (init.kind == ConfigNode::Kind::kScalar && init.scalar == "zeros") {
    } else if (init.kind == ConfigNode::Kind::kScalar && init.scalar == "none" && undefined) {
      *undefined = true;
      std::fill(bytes.begin(), bytes.end(), kUndefinedByte);
    } else if (init.kind == ConfigNode::Kind::kMap && init.find("sequence")) {
      MapReader in(init, "init");
      MapReader s = in.section("sequence");
      double start = s.number_or("start", 0, -1e300, 1e300), step = s.number_or("step", 1, -1e300, 1e300);
      s.finish();
      in.finish();
      for (uint64_t k = 0; k < count; ++k) store_element(bytes.data() + k * elem_size(elem), elem, start + step * double(k));
    } else if (init.kind == ConfigNode::Kind::kMap && init.find("random")) {
      MapReader in(init, "init");
      MapReader s = in.section("random");
      uint64_t seed = static_cast<uint64_t>(s.integer_or("seed", 1, 0, INT64_MAX));
      double lo = s.number_or("min", 0, -1e300, 1e300), hi = s.number_or("max", 1, -1e300, 1e300);
      s.finish();
      in.finish();
      std::mt19937_64 rng(seed);  // fully specified by the standard: the same values everywhere
      for (uint64_t k = 0; k < count; ++k) {
        double u = double(rng() >> 11) * 0x1.0p-53;
        store_element(bytes.data() + k * elem_size(elem), elem, lo + (hi - lo) * u);
      }
    } else if (init.kind == ConfigNode::Kind::kMap && init.find("file")) {
      MapReader in(init, "init");
      std::string path = (dir / in.string("file")).string();
      in.finish();
      std::ifstream f(path, std::ios::binary);
      if (!f) config_error(init.where, "cannot open " + path);
      f.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
      if (static_cast<uint64_t>(f.gcount()) != bytes.size()) config_error(init.where, path + " holds fewer than " + std::to_string(bytes.size()) + " bytes");
    } else {
      config_error(init.where, std::string("'init' must be zeros, ") + (undefined ? "none, " : "") +
                                   "{sequence: {start, step}}, {random: {seed, min, max}} or {file: raw.bin}");
    }
  }
  return bytes;
}

}  // namespace warpsim::ptx

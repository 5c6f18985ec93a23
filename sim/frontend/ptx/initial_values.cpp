#include "frontend/ptx/initial_values.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <optional>
#include <random>

#include "common/error.h"
#include "common/half.h"
#include "config/config_node.h"
#include "config/map_reader.h"
#include "frontend/ptx/value_bits.h"

namespace warpsim::ptx {
namespace fs = std::filesystem;

uint32_t elem_size(const std::string& e) {
  if (e == "f64" || e == "s64" || e == "u64") return 8;
  if (e == "f32" || e == "s32" || e == "u32") return 4;
  if (e == "f16" || e == "bf16" || e == "s16" || e == "u16") return 2;
  if (e == "s8" || e == "u8") return 1;
  return 0;
}

namespace {
void store_f32(uint8_t* p, double v) {
  const float f = static_cast<float>(v);
  std::memcpy(p, &f, 4);
}
void store_f64(uint8_t* p, double v) { std::memcpy(p, &v, 8); }
void store_f16(uint8_t* p, double v) {
  const uint16_t h = float_to_half(static_cast<float>(v));
  std::memcpy(p, &h, 2);
}
void store_bf16(uint8_t* p, double v) {
  const uint32_t x = std::bit_cast<uint32_t>(static_cast<float>(v));
  const auto h = static_cast<uint16_t>((x + 0x7fff + ((x >> 16) & 1)) >> 16);  // round to nearest even
  std::memcpy(p, &h, 2);
}
}  // namespace

FloatStore float_store(const std::string& elem) {
  if (elem == "f32") return store_f32;
  if (elem == "f64") return store_f64;
  if (elem == "f16") return store_f16;
  if (elem == "bf16") return store_bf16;
  return nullptr;
}

// Writes value v as element type `elem` at p.
void store_element(uint8_t* p, const std::string& elem, double v) {
  if (const FloatStore store = float_store(elem)) return store(p, v);
  store_integer(p, elem_size(elem), std::fabs(v) < 0x1p95 ? static_cast<__int128_t>(std::round(v)) : 0);
}

bool is_integer_elem(const std::string& elem) { return elem_size(elem) && (elem[0] == 's' || elem[0] == 'u'); }

namespace {

std::pair<__int128_t, __int128_t> integer_range(const std::string& elem) {
  const uint32_t bits = 8 * elem_size(elem);
  const __int128_t one = 1;
  return elem[0] == 's' ? std::pair{-(one << (bits - 1)), (one << (bits - 1)) - 1} : std::pair{__int128_t{0}, (one << bits) - 1};
}

std::string text(__int128_t v) {
  if (v == 0) return "0";
  std::string s;
  const bool negative = v < 0;
  __uint128_t m = negative ? -static_cast<__uint128_t>(v) : static_cast<__uint128_t>(v);
  for (; m; m /= 10) s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(m % 10)));
  return negative ? "-" + s : s;
}

// The value of a decimal integer literal ("-12", "18446744073709551615") of at most 28 digits
// (beyond every element type; what is outside a type wraps, store_integer), if the text is one.
std::optional<__int128_t> integer_literal(const std::string& s) {
  size_t i = s[0] == '-' || s[0] == '+' ? 1 : 0;
  if (i == s.size() || s.size() - i > 28) return std::nullopt;
  __int128_t v = 0;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return std::nullopt;
    v = v * 10 + (s[i] - '0');
  }
  return s[0] == '-' ? -v : v;
}

}  // namespace

__int128_t integer_value(const ConfigNode& node, const std::string& what) {
  if (node.kind != ConfigNode::Kind::kScalar) config_error(node.where, what + " must be a number, got " + node.kind_name());
  if (auto v = integer_literal(node.scalar)) return *v;
  char* end = nullptr;
  const double d = std::strtod(node.scalar.c_str(), &end);
  if (node.scalar.empty() || *end != '\0' || !(std::fabs(d) < 0x1p95)) {
    config_error(node.where, what + " must be a number below 2^95 in size, got '" + node.scalar + "'");
  }
  return static_cast<__int128_t>(std::round(d));
}

void store_integer(uint8_t* p, uint32_t size, __int128_t v) {
  store_bits(p, static_cast<uint64_t>(static_cast<__uint128_t>(v)), size);  // two's complement: the low bytes
}

namespace {

// Whether a sequence's start and step are both integers as written (absent ones default to 0, 1).
bool integral_sequence(MapReader& s) {
  for (const char* key : {"start", "step"}) {
    if (!s.has(key)) continue;
    const ConfigNode& n = s.raw(key);
    if (n.kind != ConfigNode::Kind::kScalar || !integer_literal(n.scalar)) return false;
  }
  return true;
}

}  // namespace

std::vector<uint8_t> listed_values(const ConfigNode& list, const std::string& elem, uint64_t count) {
  if (list.kind != ConfigNode::Kind::kSequence) config_error(list.where, "'values' must be a list of numbers");
  if (list.items.size() != count) {
    config_error(list.where, "'values' lists " + std::to_string(list.items.size()) + " elements; the buffer has " + std::to_string(count));
  }
  const uint32_t size = elem_size(elem);
  const FloatStore store_float = float_store(elem);
  std::vector<uint8_t> bytes(count * size, 0);
  for (uint64_t k = 0; k < count; ++k) {
    const ConfigNode& item = list.items[k];
    const std::string what = "element " + std::to_string(k) + " of 'values'";
    uint8_t* p = bytes.data() + k * size;
    if (is_integer_elem(elem)) {
      const __int128_t v = integer_value(item, what);
      if (!fits_either_reading(v, size)) {
        config_error(item.where, what + ", " + item.scalar + ", does not fit in " + std::to_string(8 * size) + " bits (" + elem + ")");
      }
      store_integer(p, size, v);
      continue;
    }
    if (item.kind != ConfigNode::Kind::kScalar) config_error(item.where, what + " must be a number, got " + item.kind_name());
    std::string t = item.scalar;
    if (!t.empty() && t[0] == '.') t.erase(0, 1);  // YAML's .nan and .inf
    if (t.size() > 1 && t[0] == '-' && t[1] == '.') t.erase(1, 1);
    double v = 0;
    if (t == "nan" || t == "NaN") v = std::nan("");
    else if (t == "inf" || t == "-inf") v = t[0] == '-' ? -INFINITY : INFINITY;
    else {
      char* end = nullptr;
      v = std::strtod(item.scalar.c_str(), &end);
      if (item.scalar.empty() || *end != '\0' || !std::isfinite(v)) config_error(item.where, what + " must be a number, nan, inf or -inf, got '" + item.scalar + "'");
    }
    store_float ? store_float(p, v) : store_element(p, elem, v);
  }
  return bytes;
}

std::vector<uint8_t> initial_bytes(MapReader& b, const std::string& elem, uint64_t count, const fs::path& dir, bool* undefined) {
  // The type's size and kind, looked up once rather than per element.
  const uint32_t size = elem_size(elem);
  const bool integer = is_integer_elem(elem);
  const FloatStore store_float = float_store(elem);  // once, not per element (64 Mi elements took 0.5 s)
  std::vector<uint8_t> bytes(count * size, 0);
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
      if (integer && integral_sequence(s)) {
        // Integers exactly, whatever their size (u64's top half included): start + k step in 128
        // bits, wrapped to the type.
        const __int128_t start = s.has("start") ? integer_value(s.raw("start"), "the sequence's start") : 0;
        const __int128_t step = s.has("step") ? integer_value(s.raw("step"), "the sequence's step") : 1;
        s.finish();
        in.finish();
        for (uint64_t k = 0; k < count; ++k) store_integer(bytes.data() + k * size, size, start + step * static_cast<__int128_t>(k));
        return bytes;
      }
      double start = s.number_or("start", 0, -1e300, 1e300), step = s.number_or("step", 1, -1e300, 1e300);
      s.finish();
      in.finish();
      for (uint64_t k = 0; k < count; ++k) {
        const double v = start + step * double(k);
        uint8_t* p = bytes.data() + k * size;
        if (!integer) {
          store_float ? store_float(p, v) : store_element(p, elem, v);
        } else if (std::fabs(v) < 0x1p95) {
          store_integer(p, size, static_cast<__int128_t>(std::round(v)));
        } else {
          config_error(init.where, "element " + std::to_string(k) + " of the sequence is " + std::to_string(v) + ", too large for any integer type");
        }
      }
    } else if (init.kind == ConfigNode::Kind::kMap && init.find("random")) {
      MapReader in(init, "init");
      MapReader s = in.section("random");
      uint64_t seed = static_cast<uint64_t>(s.integer_or("seed", 1, 0, INT64_MAX));
      double lo = s.number_or("min", 0, -1e300, 1e300), hi = s.number_or("max", 1, -1e300, 1e300);
      s.finish();
      in.finish();
      const auto [min, max] = integer ? integer_range(elem) : std::pair<__int128_t, __int128_t>{0, 0};
      if (integer) {
        if (lo < static_cast<double>(min) - 0.5 || hi > static_cast<double>(max) + 0.5 || lo > hi) {
          config_error(init.where, "random integers between " + std::to_string(lo) + " and " + std::to_string(hi) + " do not fit " + elem +
                                       " (" + text(min) + " to " + text(max) + "), or min is above max");
        }
      }
      std::mt19937_64 rng(seed);  // fully specified by the standard: the same values everywhere
      for (uint64_t k = 0; k < count; ++k) {
        double u = double(rng() >> 11) * 0x1.0p-53;
        const double v = lo + (hi - lo) * u;
        uint8_t* p = bytes.data() + k * size;
        if (!integer) {
          store_float ? store_float(p, v) : store_element(p, elem, v);
          continue;
        }
        // Rounded half away from zero (as llround), kept in the type's range: near 2^64 a double
        // rounds up to the power of two itself.
        store_integer(p, size, std::clamp(static_cast<__int128_t>(std::round(v)), min, max));
      }
    } else if (init.kind == ConfigNode::Kind::kMap && init.find("values")) {
      MapReader in(init, "init");
      bytes = listed_values(in.raw("values"), elem, count);
      in.finish();
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
                                   "{sequence: {start, step}}, {random: {seed, min, max}}, {values: [...]} or {file: raw.bin}");
    }
  }
  return bytes;
}

}  // namespace warpsim::ptx

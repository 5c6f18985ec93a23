#pragma once
// Element types of launch-file buffers, scalars and constants, and the initial bytes their
// `init` key describes (docs/launch-format.md).
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace warpsim {
class MapReader;
struct ConfigNode;
}

namespace warpsim::ptx {

// Bytes per element of `elem` (f32, s8, bf16, ...); 0 for an unknown name.
uint32_t elem_size(const std::string& elem);
// Writes `v` as one element of type `elem` at p (floats rounded to nearest even, integers rounded).
void store_element(uint8_t* p, const std::string& elem, double v);
// How a floating-point `elem` (f32, f64, f16, bf16) is written, looked up once for a loop over
// many elements; null for any other type.
using FloatStore = void (*)(uint8_t* p, double v);
FloatStore float_store(const std::string& elem);

// A launch-file number for an integer element (s8 ... u64), exactly: an integer literal is read
// whole (all of u64's range, which a double cannot hold), anything else is rounded to nearest;
// `what` names it in the error for what is no number or beyond 2^95 ("the scalar's value").
bool is_integer_elem(const std::string& elem);
__int128_t integer_value(const ConfigNode& node, const std::string& what);
// Writes v's low `size` bytes (an element of that size): values outside the type's range wrap
// modulo 2^bits, as a C cast does (a u8 sequence 0, 7, 14, ... runs 7 i mod 256).
void store_integer(uint8_t* p, uint32_t size, __int128_t v);
// Whether v is one of the 2^(8 size) values an element of `size` bytes holds, read either way
// (signed or unsigned: a u32 -1 is 0xffffffff). One value given by hand must fit; a sequence wraps.
inline bool fits_either_reading(__int128_t v, uint32_t size) {
  const unsigned bits = 8 * size;
  return v >= -(__int128_t{1} << (bits - 1)) && v <= (__int128_t{1} << bits) - 1;
}

// What `init: none` leaves in a buffer: every byte 0xff (NaN as a float, -1 as a signed integer),
// so that a result depending on bytes nothing wrote shows it.
constexpr uint8_t kUndefinedByte = 0xff;

// The bytes of `count` elements of type `elem` listed one by one in `list` (a YAML sequence of
// exactly `count` numbers; floats may be nan, inf or -inf; an integer must fit its type, read
// either way as a scalar's must): `{values: [...]}` in an `init` or an `expect`.
std::vector<uint8_t> listed_values(const ConfigNode& list, const std::string& elem, uint64_t count);

// The bytes of `count` elements of type `elem`, from the optional `init` key of b: zeros (the
// default), a sequence, seeded random values, listed values or a file's bytes (relative to `dir`). Where
// `undefined` is given, `init: none` is accepted too and sets it (cudaMalloc's memory, which
// nothing has written); elsewhere (constants) it is an error.
std::vector<uint8_t> initial_bytes(MapReader& b, const std::string& elem, uint64_t count, const std::filesystem::path& dir,
                                   bool* undefined = nullptr);

}  // namespace warpsim::ptx

// A launch's plain arguments: scalars, buffers (their addresses) and structs passed by value, laid
// out as C lays out a struct. Tensor maps and textures have files of their own.
#include <algorithm>
#include <cstring>

#include "common/error.h"
#include "config/config_node.h"
#include "config/map_reader.h"
#include "frontend/ptx/initial_values.h"
#include "frontend/ptx/launch.h"

namespace warpsim::ptx {

// {scalar: TYPE, value: V} into `slot`, which has room for it.
void PtxWorkload::store_scalar(MapReader& a, uint8_t* slot) {
  const std::string type = a.string("scalar");
  if (is_integer_elem(type)) {
    const __int128_t v = integer_value(a.raw("value"), "the scalar's value");  // exact, all of u64
    // A sequence wraps by design (7 i mod 256), but one scalar out of range is a mistake:
    // accept it as either reading of its bits (u32 -1 is 0xffffffff), refuse anything wider.
    const unsigned bits = 8 * elem_size(type);
    if (!fits_either_reading(v, elem_size(type))) {
      config_error(a.location("value"), "the scalar's value " + a.raw("value").scalar + " does not fit in " + std::to_string(bits) +
                                            " bits; a " + type + " takes " + "-2^" + std::to_string(bits - 1) + " to 2^" + std::to_string(bits) + " - 1" +
                                            " (either reading of its bits)");
    }
    store_integer(slot, elem_size(type), v);
  } else {
    store_element(slot, type, a.number("value", -1e300, 1e300));
  }
}

uint32_t PtxWorkload::scalar_bytes(MapReader& a) {
  const std::string type = a.string("scalar");
  const uint32_t bytes = elem_size(type);
  if (!bytes) config_error(a.location("scalar"), "unknown scalar type '" + type + "'; expected f32, f64, s32, u32, s64 or u64");
  return bytes;
}

// {buffer: NAME} (defined under buffers:) or {buffer: {name, elem, count, init}}: its address.
uint64_t PtxWorkload::buffer_address(MapReader& a, const std::filesystem::path& dir) {
  std::string name;
  const ConfigNode& b = a.raw("buffer");
  if (b.kind == ConfigNode::Kind::kScalar) {
    name = b.scalar;
    if (!memory_.find(name)) config_error(b.where, "no buffer '" + name + "' under 'buffers:'");
  } else {
    MapReader inline_buffer(b, "buffer");
    name = inline_buffer.string("name");
    add_buffer(inline_buffer, name, dir);
  }
  return memory_.find(name)->base;
}

// The fields of {struct: [...]} appended to `bytes` as C places them: each at the next multiple
// of its alignment (a scalar's size, 8 for a buffer's address, a nested struct's largest), the
// whole padded to a multiple of its largest; {pad: N} adds N zero bytes where a type's own
// alignment (alignas, packing) differs. Returns the struct's alignment.
uint32_t PtxWorkload::lay_out_struct(const ConfigNode& fields, std::vector<uint8_t>& bytes, const std::filesystem::path& dir) {
  if (fields.kind != ConfigNode::Kind::kSequence || fields.items.empty()) config_error(fields.where, "'struct' must list its fields, in order");
  uint32_t align = 1;
  const size_t start = bytes.size();
  auto place = [&](uint32_t size, uint32_t field_align) {
    const size_t at = start + (bytes.size() - start + field_align - 1) / field_align * field_align;
    bytes.resize(at + size, 0);
    align = std::max(align, field_align);
    return at;
  };
  for (size_t i = 0; i < fields.items.size(); ++i) {
    MapReader f(fields.items[i], "struct field " + std::to_string(i));
    if (f.has("scalar")) {
      const uint32_t size = scalar_bytes(f);
      const size_t at = place(size, size);
      store_scalar(f, bytes.data() + at);
    } else if (f.has("buffer")) {
      const uint64_t address = buffer_address(f, dir);
      const size_t at = place(8, 8);  // before bytes.data(): placing may move the bytes
      std::memcpy(bytes.data() + at, &address, 8);
    } else if (f.has("struct")) {
      std::vector<uint8_t> inner;
      const uint32_t inner_align = lay_out_struct(f.raw("struct"), inner, dir);
      const size_t at = place(static_cast<uint32_t>(inner.size()), inner_align);
      std::copy(inner.begin(), inner.end(), bytes.begin() + static_cast<ptrdiff_t>(at));
    } else if (f.has("pad")) {
      place(static_cast<uint32_t>(f.integer("pad", 1, 4096)), 1);
    } else {
      config_error(f.where(), "a struct field is {scalar: TYPE, value: V}, {buffer: ...}, {struct: [...]} or {pad: BYTES}");
    }
    f.finish();
  }
  bytes.resize(start + (bytes.size() - start + align - 1) / align * align, 0);
  return align;
}

std::string param_label(const Variable& param) {
  const std::string& n = param.name;
  const size_t at = n.rfind("_param_");
  const bool numbered = at != std::string::npos && at + 7 < n.size() &&
                        n.find_first_not_of("0123456789", at + 7) == std::string::npos;
  return numbered ? "parameter " + n.substr(at + 7) + " (" + n + ")" : "parameter " + n;
}

// One argument into its parameter's bytes at `slot`.
void PtxWorkload::write_arg(MapReader& a, const Variable& param, uint8_t* slot, const std::filesystem::path& dir) {
  const uint64_t room = param.size_bytes();
  // A struct passed by value is a .b8 array in the PTX: it takes {struct: [...]}, and only that.
  const auto want_struct = [&](const std::string& given) {
    config_error(a.where(), param_label(param) + " has " + std::to_string(room) + " bytes, a struct passed by value; " + given +
                                " does not fill it: give its fields as {struct: [...]} (docs/launch-format.md)");
  };
  if (a.has("struct")) {
    std::vector<uint8_t> bytes;
    lay_out_struct(a.raw("struct"), bytes, dir);
    if (bytes.size() != room) {
      config_error(a.location("struct"), "the struct's fields take " + std::to_string(bytes.size()) +
                                             " bytes as C lays them out (each field at a multiple of its alignment, the whole padded to the largest); " +
                                             param_label(param) + " has " + std::to_string(room));
    }
    std::copy(bytes.begin(), bytes.end(), slot);
  } else if (a.has("scalar")) {
    const uint32_t size = scalar_bytes(a);
    if (size > room) config_error(a.location("scalar"), param_label(param) + " has " + std::to_string(room) + " bytes; a " + a.string("scalar") + " does not fit");
    if (room > 8) want_struct("a " + a.string("scalar"));
    store_scalar(a, slot);
  } else {
    if (room != 8) {
      if (room > 8) want_struct("a buffer's address");
      config_error(a.where(), param_label(param) + " has " + std::to_string(room) + " bytes; a buffer's address takes 8");
    }
    const uint64_t address = buffer_address(a, dir);
    std::memcpy(slot, &address, 8);
  }
}

}  // namespace warpsim::ptx

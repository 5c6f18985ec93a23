// `texture:` and `surface:` arguments of a launch file: the objects cudaCreateTextureObject and
// cudaCreateSurfaceObject make, over a buffer, refused where the CUDA runtime refuses them
// (CUDA runtime API, cudaResourceDesc and cudaTextureDesc; CUDA C++ Programming Guide, "Texture
// and Surface Memory").
#include <cstring>
#include <string>
#include <vector>

#include "config/map_reader.h"
#include "frontend/ptx/initial_values.h"
#include "frontend/ptx/launch.h"
#include "frontend/ptx/texture_desc.h"

namespace warpsim::ptx {
namespace {

TexAddressMode address_mode_named(const std::string& name) {
  return name == "border" ? TexAddressMode::kBorder : name == "wrap" ? TexAddressMode::kWrap : name == "mirror" ? TexAddressMode::kMirror : TexAddressMode::kClamp;
}

}  // namespace

// {texture: {buffer, elem, channels, dims, layers, pitch, resource, filter, address, normalized_coords, read}}
// or {surface: {buffer, elem, channels, dims, pitch}}.
void PtxWorkload::add_texture(MapReader& arg, const Variable& param, uint8_t* slot, bool surface) {
  const std::string what = surface ? "surface" : "texture";
  MapReader m(arg.raw(what), what);
  const std::string buffer = m.string("buffer");
  const DeviceMemory::Buffer* b = memory_.find(buffer);
  if (!b) config_error(m.location("buffer"), "no buffer '" + buffer + "' (define it under 'buffers:' or in an earlier argument)");
  TextureDesc t;
  t.surface = surface;
  t.address = b->base;
  // cudaChannelFormatKind float (32 or 16 bits), signed or unsigned, 8, 16 or 32 bits a channel.
  if (!m.has("elem")) config_error(m.where(), "'" + what + "' needs 'elem': the channel type (f32, f16, s8, u8, s16, u16, s32 or u32)");
  const std::string elem = m.choice("elem", {"f32", "f16", "s8", "u8", "s16", "u16", "s32", "u32"}, "");
  t.channel_bytes = static_cast<uint8_t>(elem_size(elem));
  t.channel_kind = elem[0];
  t.channels = static_cast<uint8_t>(m.integer_or("channels", 1, 1, 4));
  if (t.channels == 3) config_error(m.location("channels"), "CUDA's channel formats have 1, 2 or 4 channels; not 3");
  const auto dims = m.integer_list("dims", 1, int64_t{1} << 30);
  if (dims.empty() || dims.size() > 3) config_error(m.location("dims"), what + "s have 1 to 3 dimensions (x first); got " + std::to_string(dims.size()));
  t.rank = static_cast<uint8_t>(dims.size());
  for (size_t i = 0; i < dims.size(); ++i) t.dims[i] = static_cast<uint32_t>(dims[i]);
  // A layered texture (cudaArrayLayered: tex1DLayered, tex2DLayered) holds `layers` 1D or 2D
  // textures of the same size one after another; CUDA allows up to 2048 layers.
  if (m.has("layers")) {
    if (surface) config_error(m.location("layers"), "layered surfaces are not modelled; layered textures are");
    if (t.rank == 3) config_error(m.location("layers"), "layered textures are 1D or 2D (dims lists the size of one layer)");
    t.layers = static_cast<uint32_t>(m.integer("layers", 1, 2048));
  }
  // Where the texels lie: cudaResourceTypeLinear (1D, tex1Dfetch), cudaResourceTypePitch2D, or a
  // CUDA array (the only resource of 3D textures and of surfaces).
  const std::string resource =
      surface ? "array"
              : m.choice("resource", {"linear", "pitch2d", "array"}, t.layers || t.rank == 3 ? "array" : t.rank == 1 ? "linear" : "pitch2d");
  if (t.layers && resource != "array") config_error(m.location("resource"), "a layered texture is a CUDA array (cudaArrayLayered)");
  if (resource == "linear" && t.rank != 1) config_error(m.location("resource"), "a linear resource is one-dimensional (tex1Dfetch)");
  if (resource == "pitch2d" && t.rank != 2) config_error(m.location("resource"), "a pitch2d resource is two-dimensional");
  t.linear_resource = resource == "linear";
  const uint64_t row = uint64_t{t.dims[0]} * t.texel_bytes();
  t.pitch = row;
  if (m.has("pitch")) {
    if (t.rank == 1) config_error(m.location("pitch"), "'pitch' is the bytes from one row to the next: for 2D and 3D " + what + "s");
    t.pitch = static_cast<uint64_t>(m.integer("pitch", 1, int64_t{1} << 40));
    if (t.pitch < row || t.pitch % t.texel_bytes() != 0) {
      config_error(m.location("pitch"), "the pitch must be a multiple of the texel's " + std::to_string(t.texel_bytes()) +
                                            " bytes and at least a row's " + std::to_string(row));
    }
  }
  t.slice = t.pitch * t.dims[1];
  const uint64_t depth = t.layers ? t.layers : t.dims[2];
  const uint64_t extent = t.slice * (depth - 1) + t.pitch * (t.dims[1] - 1) + row;
  if (extent > b->bytes.size()) {
    config_error(m.location("dims"), "the " + what + " spans " + std::to_string(extent) + " bytes; buffer '" + buffer + "' has " +
                                         std::to_string(b->bytes.size()));
  }
  if (!surface) {
    t.linear_filter = m.choice("filter", {"point", "linear"}, "point") == "linear";
    t.normalized_coords = m.boolean_or("normalized_coords", false);
    t.normalized_read = m.choice("read", {"element", "normalized_float"}, "element") == "normalized_float";
    if (t.normalized_read && (t.channel_kind == 'f' || t.channel_bytes == 4)) {
      config_error(m.location("read"), "normalized_float reads 8- and 16-bit integer channels as floats; " + elem + " channels read as they are");
    }
    if (m.has("address")) {
      const ConfigNode& node = m.raw("address");
      std::vector<std::pair<std::string, SourceLocation>> modes;
      if (node.kind == ConfigNode::Kind::kSequence) {
        for (const auto& item : node.items) modes.emplace_back(item.scalar, item.where);
        if (modes.size() != t.rank) config_error(node.where, "'address' lists one mode per dimension (" + std::to_string(t.rank) + ") or gives one for all");
      } else {
        modes.assign(t.rank, {node.scalar, node.where});
      }
      for (size_t d = 0; d < modes.size(); ++d) {
        const auto& [name, where] = modes[d];
        if (name != "clamp" && name != "border" && name != "wrap" && name != "mirror") {
          config_error(where, "unknown address mode '" + name + "'; expected clamp, border, wrap or mirror");
        }
        // CUDA programming guide: wrap and mirror are supported for normalized coordinates only.
        if ((name == "wrap" || name == "mirror") && !t.normalized_coords) config_error(where, name + " addressing needs normalized_coords: true");
        t.address_mode[d] = address_mode_named(name);
      }
    }
    if (t.linear_filter && !t.returns_float()) {
      config_error(m.location("filter"), "linear filtering needs a texture that returns floats: f32 or f16 channels, or read: normalized_float");
    }
    if (t.linear_resource && (t.linear_filter || t.normalized_coords || m.has("address"))) {
      config_error(m.where(), "a linear resource is read with tex1Dfetch, by integer index, without filtering, normalized coordinates or "
                              "address modes (out-of-range indices read zero)");
    }
  }
  if (param.size_bytes() < 8) config_error(m.location("buffer"), param_label(param) + " has " + std::to_string(param.size_bytes()) + " bytes; a " + what + " object takes 8");
  m.finish();
  memory_.watch_texture_reads(buffer);
  std::vector<uint8_t> bytes(128, 0);
  std::memcpy(bytes.data(), &t, sizeof t);
  const uint64_t handle = memory_.allocate("<" + what + " object over '" + buffer + "'>", std::move(bytes));
  std::memcpy(slot, &handle, 8);
}

}  // namespace warpsim::ptx

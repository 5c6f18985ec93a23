// Texture and surface instructions on the objects launch files make (texture_desc.h): tex (and
// tex.level, tex.grad: no mip levels, so level 0), tld4, txq, suld.b and sust.b (PTX ISA,
// "Texture Instructions" and "Surface Instructions"). Fetching follows the CUDA C++ Programming
// Guide's "Texture Fetching" appendix: normalized coordinates are scaled by the texture's size,
// nearest-point sampling takes texel floor(x), linear filtering blends texels floor(x - 0.5) and
// the next with weights kept in 9-bit fixed point (8 fraction bits), 8- and 16-bit integers read
// as normalized floats map to [0, 1] or [-1, 1], and out-of-range texels follow the address
// mode (clamp, border: zero, wrap, mirror). The weighted sum is computed exactly and rounded once
// to f32; the hardware's own rounding of it is not documented.
// For the timing model a fetch is a load of each lane's first texel (two for a filtered row),
// through L1 like ld.global.nc; TEX's own pipeline and the second row of a 2D footprint are not
// modelled.
#include <algorithm>
#include <cmath>
#include <string>

#include "common/format.h"
#include "frontend/ptx/cta_emulator.h"
#include "frontend/ptx/texture_desc.h"
#include "frontend/ptx/value_bits.h"

namespace warpsim::ptx {
namespace {

// A texel index along a dimension of `n` texels under an address mode; -1: outside, reads zero.
int64_t resolve_index(int64_t i, int64_t n, TexAddressMode mode) {
  switch (mode) {
    case TexAddressMode::kClamp:
      return std::clamp<int64_t>(i, 0, n - 1);
    case TexAddressMode::kBorder:
      return i < 0 || i >= n ? -1 : i;
    case TexAddressMode::kWrap:
      return ((i % n) + n) % n;
    case TexAddressMode::kMirror: {
      const int64_t m = ((i % (2 * n)) + 2 * n) % (2 * n);
      return m < n ? m : 2 * n - 1 - m;
    }
  }
  return -1;
}

// A float coordinate along a dimension of `n` texels, in texel units: normalized coordinates are
// first wrapped or mirrored into [0, 1) (the programming guide's definitions), then scaled.
// NaN reads as 0, and huge values are held where the index arithmetic stays exact.
double texel_coordinate(double x, uint32_t n, bool normalized, TexAddressMode mode) {
  if (std::isnan(x)) x = 0;
  x = std::clamp(x, -1e12, 1e12);
  if (!normalized) return x;
  if (mode == TexAddressMode::kWrap) x -= std::floor(x);
  if (mode == TexAddressMode::kMirror) {
    const double f = std::floor(x);
    x = std::fmod(f, 2.0) == 0 ? x - f : 1 - (x - f);
  }
  return x * n;
}

// One channel of the texel at `p` as the fetch returns it: a float, or an integer's bits.
double float_channel(const TextureDesc& t, const uint8_t* p, uint32_t c) {
  const uint64_t bits = load_bits(p + c * t.channel_bytes, t.channel_bytes);
  if (t.channel_kind == 'f') return as_float(bits, t.channel_bytes * 8u);
  // cudaReadModeNormalizedFloat: unsigned v / (2^n - 1); signed v / (2^(n-1) - 1), the most
  // negative value reading as -1.
  const double scale = t.channel_kind == 'u' ? double((uint64_t{1} << (t.channel_bytes * 8)) - 1) : double((uint64_t{1} << (t.channel_bytes * 8 - 1)) - 1);
  if (t.channel_kind == 'u') return double(bits) / scale;
  return std::max(-1.0, double(as_signed(bits, t.channel_bytes * 8u)) / scale);
}
uint32_t integer_channel(const TextureDesc& t, const uint8_t* p, uint32_t c) {
  const uint64_t bits = load_bits(p + c * t.channel_bytes, t.channel_bytes);
  return static_cast<uint32_t>(t.channel_kind == 's' ? static_cast<uint64_t>(as_signed(bits, t.channel_bytes * 8u)) : bits);
}

// The 9-bit fixed-point weight (8 fraction bits) of a filter's upper texel.
double filter_weight(double frac) { return std::nearbyint(frac * 256.0) / 256.0; }

}  // namespace

// Texture and surface reads are not kept coherent with the kernel's own global and surface
// writes: a read of bytes this launch wrote returns undefined data (CUDA C++ Programming Guide,
// "Read/Write Coherency"). Reported as a finding; the emulator returns the bytes written.
void CtaEmulator::check_texture_coherence(const WarpState& w, uint32_t lane, uint64_t address, uint32_t size, const EmuInst& in) {
  uint32_t writer = 0;
  const int64_t offset = launch_.memory->first_written_in_launch(address, size, &writer);
  if (offset < 0) return;
  const DeviceMemory::Buffer* b = launch_.memory->buffer_at(address, size);
  launch_.findings->add("stale-texture-read", in.line,
                        launch_.file + ":" + std::to_string(in.line) + ": " + thread_name(w, lane) + " reads byte " + std::to_string(offset) +
                            " of buffer '" + b->name + "' through a " + (in.base == "suld" ? "surface" : "texture") +
                            " object after this kernel wrote it (the write at line " + std::to_string(writer) + "); texture and surface reads are not coherent with the same kernel's "
                            "writes, so the value is undefined (CUDA C++ Programming Guide, \"Read/Write Coherency\")");
}

TextureDesc CtaEmulator::texture_object(const WarpState& w, const EmuInst& in, uint32_t l, bool surface) {
  const EmuOperand& a = in.operands.at(in.base == "sust" ? 0 : 1);
  const uint64_t handle = a.reg >= 0 ? w.regs.get(a.reg, l) : a.bits;
  TextureDesc t;
  const uint8_t* bytes = launch_.memory->at(handle, sizeof t);
  if (!bytes || !decode_texture(bytes, t)) {
    fault(in, w, l, std::string(surface ? "the surface object " : "the texture object ") + hex(handle) + " is not one a launch file's " +
                        (surface ? "surface:" : "texture:") + " argument made");
  }
  if (t.surface != surface) {
    fault(in, w, l, hex(handle) + (surface ? " is a texture object; " + in.base + " needs a surface object" : " is a surface object; " + in.base + " needs a texture object"));
  }
  return t;
}

void CtaEmulator::texture_op(WarpState& w, const EmuInst& in, uint32_t exec, Record& out) {
  if (in.base == "suld" || in.base == "sust") return surface_op(w, in, exec, out);
  const auto& ops = in.operands;
  if (in.base == "txq") {
    const std::string& what = in.mods.at(0);
    for_lanes(exec, [&](uint32_t l) {
      const TextureDesc t = texture_object(w, in, l, false);
      const uint32_t v = what == "width"        ? t.dims[0]
                         : what == "height"     ? t.dims[1]
                         : what == "depth"      ? t.dims[2]
                         : what == "array_size" ? t.layers
                                                : uint32_t{t.normalized_coords};
      write(w, ops[0].reg, l, v);
    });
    return;
  }
  const bool gather = in.base == "tld4";
  const bool layered = in.has("a1d") || in.has("a2d");
  const uint32_t rank = in.has("3d") ? 3 : in.has("2d") || in.has("a2d") ? 2 : 1;
  const uint32_t first_coordinate = layered ? 1 : 0;  // a layered fetch's vector starts with the layer
  const bool float_coords = in.types.back() == "f32";
  // SASS names no result type: the texture's own (the object's read mode) is the one.
  const bool declared_float = in.types.at(in.types.size() - 2) == "f32";
  const uint32_t component = gather ? static_cast<uint32_t>(std::string("rgba").find(in.mods.at(0)[0])) : 0;
  const EmuOperand& coords = ops.at(1);
  uint32_t timing_bytes = 0;
  uint64_t row_bytes = 0, slice_bytes = 0;
  for_lanes(exec, [&](uint32_t l) {
    const TextureDesc t = texture_object(w, in, l, false);
    if (t.rank != rank) fault(in, w, l, "a " + std::to_string(rank) + "D fetch from a " + std::to_string(t.rank) + "D texture");
    if (layered != (t.layers != 0)) {
      fault(in, w, l, layered ? "a layered fetch (tex.a" + std::to_string(rank) + "d) from a texture that is not layered"
                              : "a " + std::to_string(rank) + "D fetch from a layered texture (use tex.a" + std::to_string(rank) + "d)");
    }
    // The layer: an unsigned index (PTX ISA, tex.a1d/a2d). Past the last layer is a bug in the
    // kernel (neither the ISA nor the programming guide defines it): reported, then clamped.
    int64_t layer = 0;
    if (layered) {
      layer = static_cast<uint32_t>(element(w, coords, 0, l));
      if (layer >= t.layers) {
        launch_.findings->add("texture-layer-out-of-range", in.line,
                              launch_.file + ":" + std::to_string(in.line) + ": " + thread_name(w, l) + " fetches layer " + std::to_string(layer) +
                                  " of a texture with " + std::to_string(t.layers) + " layers (undefined; warpsim reads the last)");
        layer = t.layers - 1;
      }
    }
    const bool float_result = in.op.from_sass ? t.returns_float() : declared_float;
    if (t.returns_float() != float_result) {
      fault(in, w, l, std::string("a .") + in.types.at(in.types.size() - 2) + " fetch from a texture that returns " +
                          (t.returns_float() ? "floats (use .f32)" : "integers (use .s32 or .u32)"));
    }
    if (t.linear_resource && float_coords) fault(in, w, l, "a linear-memory texture is read with integer coordinates (tex1Dfetch), not .f32 ones");
    const bool linear = (t.linear_filter && float_coords) || gather;
    // Per dimension: the lower texel's index and the upper texel's weight (0 when not filtering).
    int64_t base[3] = {0, 0, 0};
    double weight[3] = {0, 0, 0};
    for (uint32_t d = 0; d < rank; ++d) {
      const uint64_t bits = element(w, coords, d + first_coordinate, l);
      if (!float_coords) {
        base[d] = static_cast<int32_t>(static_cast<uint32_t>(bits));
        continue;
      }
      const double x = texel_coordinate(as_float(bits, 32), t.dims[d], t.normalized_coords, t.address_mode[d]);
      if (linear) {
        const double below = std::floor(x - 0.5);
        base[d] = static_cast<int64_t>(below), weight[d] = filter_weight(x - 0.5 - below);
      } else {
        base[d] = static_cast<int64_t>(std::floor(x));
      }
    }
    // The texels of the footprint: corner bit d set takes the upper texel along dimension d.
    const uint32_t corners = linear ? 1u << rank : 1u;
    double sum[4] = {0, 0, 0, 0}, gathered[4] = {0, 0, 0, 0};
    uint32_t ints[4] = {0, 0, 0, 0};
    uint64_t first_texel = 0;
    bool any = false;
    for (uint32_t corner = 0; corner < corners; ++corner) {
      int64_t at[3] = {0, 0, layer};  // a layer is a slice: filtering stays within it
      double wgt = 1;
      bool inside = true;
      for (uint32_t d = 0; d < rank; ++d) {
        const bool upper = corner >> d & 1;
        const TexAddressMode mode = t.linear_resource ? TexAddressMode::kBorder : t.address_mode[d];
        at[d] = resolve_index(base[d] + upper, t.dims[d], mode);
        wgt *= upper ? weight[d] : 1 - weight[d];
        inside = inside && at[d] >= 0;
      }
      const uint64_t address = inside ? t.texel_address(at[0], at[1], at[2]) : 0;
      if (inside && !any) first_texel = address, any = true;
      const uint8_t* p = inside ? global_bytes(address, t.texel_bytes(), true, false, w, l, in) : nullptr;
      if (p && checks_global_) check_texture_coherence(w, l, address, t.texel_bytes(), in);
      if (gather) {
        // PTX ISA, tld4: counter-clockwise from the lower left: (i0, j1), (i1, j1), (i1, j0), (i0, j0).
        static constexpr uint32_t kSlot[4] = {3, 2, 0, 1};  // by corner (bit 0: i1, bit 1: j1)
        const bool present = p && component < t.channels;
        gathered[kSlot[corner]] = present ? (float_result ? float_channel(t, p, component) : double(integer_channel(t, p, component))) : 0;
        continue;
      }
      for (uint32_t c = 0; c < t.channels && p; ++c) {
        if (float_result) sum[c] += wgt * float_channel(t, p, c);
        else ints[c] = integer_channel(t, p, c);
      }
    }
    if (!any) first_texel = t.address;  // all outside: the timing model still sees the texture's first texel
    out.addresses.push_back(first_texel);
    // The footprint: two texels along x when filtering or gathering, and then the next row (2D,
    // 3D) and slice (3D) as well.
    timing_bytes = std::max(timing_bytes, t.texel_bytes() * (linear ? 2u : 1u));
    if (linear && rank >= 2) row_bytes = std::max(row_bytes, t.pitch);
    if (linear && rank == 3) slice_bytes = std::max(slice_bytes, t.slice);
    for (uint32_t c = 0; c < 4; ++c) {
      const double v = gather ? gathered[c] : sum[c];
      const uint64_t bits = float_result ? from_float(v, 32) : gather ? static_cast<uint32_t>(static_cast<int64_t>(v)) : ints[c];
      write(w, ops[0].regs.at(c), l, bits);
    }
  });
  if (exec) timed_access(w, in, timing_bytes, row_bytes, slice_bytes, out);
  compress_addresses(out);
}

// suld.b / sust.b: raw bytes at x (in bytes), y and z (rows, slices); .trap stops the kernel
// outside the surface, .clamp moves to the nearest element, .zero reads zero and drops stores
// (PTX ISA, "suld", "sust"; cudaBoundaryMode*).
void CtaEmulator::surface_op(WarpState& w, const EmuInst& in, uint32_t exec, Record& out) {
  const bool load = in.base == "suld";
  const EmuOperand& coords = in.operands.at(load ? 1 : 0);
  const EmuOperand& data = in.operands.at(load ? 0 : 1);
  const uint32_t rank = in.has("3d") ? 3 : in.has("2d") ? 2 : 1;
  const uint32_t size = in.type.bits / 8, n = in.vector, bytes = size * n;
  const bool trap = in.has("trap"), zero = in.has("zero");
  for_lanes(exec, [&](uint32_t l) {
    const TextureDesc t = texture_object(w, in, l, true);
    if (t.rank != rank) fault(in, w, l, "a " + std::to_string(rank) + "D access to a " + std::to_string(t.rank) + "D surface");
    int64_t at[3] = {0, 0, 0};
    bool inside = true;
    const int64_t limit[3] = {int64_t{t.dims[0]} * t.texel_bytes() - bytes, int64_t{t.dims[1]} - 1, int64_t{t.dims[2]} - 1};
    for (uint32_t d = 0; d < rank; ++d) {
      const uint64_t bits = element(w, coords, d, l);
      at[d] = static_cast<int32_t>(static_cast<uint32_t>(bits));
      inside = inside && at[d] >= 0 && at[d] <= limit[d];
    }
    if (at[0] % bytes != 0 && inside) fault(in, w, l, "surface byte offset x = " + std::to_string(at[0]) + " is not a multiple of the access's " + std::to_string(bytes) + " bytes");
    if (!inside && trap) {
      fault(in, w, l, "surface access at (" + std::to_string(at[0]) + " bytes, " + std::to_string(at[1]) + ", " + std::to_string(at[2]) + ") outside the " +
                          std::to_string(t.dims[0]) + "x" + std::to_string(t.dims[1]) + "x" + std::to_string(t.dims[2]) +
                          " surface (.trap: the kernel stops, as cudaBoundaryModeTrap does)");
    }
    if (!inside && !zero) {  // .clamp
      for (uint32_t d = 0; d < rank; ++d) at[d] = std::clamp<int64_t>(at[d], 0, limit[d]);
      at[0] -= at[0] % bytes;
      inside = true;
    }
    const uint64_t address = t.address + at[2] * t.slice + at[1] * t.pitch + at[0];
    out.addresses.push_back(inside ? address : t.address);
    if (inside && load && checks_global_) check_texture_coherence(w, l, address, bytes, in);
    uint8_t* p = inside ? global_bytes(address, bytes, load, !load, w, l, in) : nullptr;
    for (uint32_t k = 0; k < n; ++k) {
      const int32_t r = data.kind == EmuOperand::Kind::kVector ? data.regs.at(k) : data.reg;
      if (load) {
        write(w, r, l, p ? load_bits(p + k * size, size) : 0);
      } else if (p) {
        store_bits(p + k * size, data.kind == EmuOperand::Kind::kImm ? data.bits : r >= 0 ? w.regs.get(r, l) : 0, size);
      }
    }
  });
  compress_addresses(out);
}

// Points the record at an OpInfo whose access size is the texture's texel: the mnemonic with
// warpsim's .texelN suffix (N bytes per lane) and, for a filtered 2D or 3D footprint, .rowN and
// .sliceN (its next row and slice N bytes on), which a trace replays (kept per mnemonic, like
// tcgen05.mma's run-time shapes).
void CtaEmulator::timed_access(const WarpState& w, const EmuInst& in, uint32_t bytes, uint64_t row_bytes, uint64_t slice_bytes, Record& out) {
  if (bytes == in.op.access_bytes && row_bytes == 0 && slice_bytes == 0) return;
  // A pitch beyond 32 bits (a 4 GiB row) is not timed as a footprint: the row is left out.
  if (row_bytes > UINT32_MAX) row_bytes = 0;
  if (slice_bytes > UINT32_MAX) slice_bytes = 0;
  // A SASS instruction's opcode is the SASS one: the PTX form it was lowered to names the access.
  std::string form = in.opcode;
  if (in.op.from_sass) {
    form = in.base;
    for (const std::string& m : in.mods) form += "." + m;
  }
  const std::string mnemonic = form + ".texel" + std::to_string(bytes) + (row_bytes ? ".row" + std::to_string(row_bytes) : "") +
                               (slice_bytes ? ".slice" + std::to_string(slice_bytes) : "");
  auto& cache = *launch_.run_time_ops;
  auto it = cache.find(mnemonic);
  if (it == cache.end()) {
    OpInfo op;
    std::string error;
    if (!decode_mnemonic(mnemonic, op, error)) fault(in, w, 0, error);
    if (in.op.from_sass) op.mnemonic = in.op.mnemonic, op.from_sass = true, op.counted_pipe = in.op.counted_pipe;
    it = cache.emplace(mnemonic, std::move(op)).first;
  }
  out.inst.op = &it->second;
}

}  // namespace warpsim::ptx

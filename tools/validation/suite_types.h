#pragma once
// The shapes of the generated suite table (suite_table.h): each entry is one warpsim launch file,
// its buffers with their init rules, its kernel launches and the checks of its outputs.
#include <cstdint>

enum class InitKind { kZeros, kSequence, kRandom, kFile };
enum class CheckKind { kFile, kSequence };

struct SuiteBuffer {
  const char* name;
  const char* elem;  // f32 f64 f16 bf16 s32 u32 s64 u64 s8 u8
  uint64_t count;
  InitKind init;
  double a, b;       // sequence: start, step; random: min, max
  uint64_t seed;
  const char* file;  // kFile: relative to tools/validation
};

struct SuiteArg {
  bool is_buffer;
  int buffer;
  const char* scalar;  // s32 u32 s64 u64 f32 f64
  double value;
  int tensor_map = -1;  // index into SuiteEntry::maps: a CUtensorMap passed by value
  int texture = -1;     // index into SuiteEntry::textures: a texture or surface object's handle
};

// A launch file's texture: or surface: argument, for cudaCreateTextureObject /
// cudaCreateSurfaceObject over a buffer (linear or pitch2d resources) or over a CUDA array the
// buffer's texels are copied into (and, after the launches, back out of).
struct SuiteTexture {
  int buffer = -1;
  const char* elem;      // f32 f16 s8 u8 s16 u16 s32 u32
  unsigned channels, rank;
  unsigned dims[3];
  uint64_t pitch;        // bytes from one row to the next in the buffer
  int resource;          // 0 linear, 1 pitch2d, 2 array
  bool surface, linear_filter, normalized_coords, normalized_read;
  int address[3];        // 0 clamp, 1 border, 2 wrap, 3 mirror
  unsigned layers;       // a layered texture's layers (cudaArrayLayered); 0: not layered
};

// A launch file's tensor_map: argument, for cuTensorMapEncodeTiled (tile mode, element strides
// of 1, zeros out of bounds).
struct SuiteTensorMap {
  int buffer = -1;
  const char* elem;
  unsigned rank;
  uint64_t dims[5];
  unsigned box[5];
  uint64_t strides[4];  // bytes, dimensions 1..rank-1
  unsigned swizzle;     // 0, 32, 64 or 128 bytes
};

constexpr int kMaxSuiteArgs = 12;  // kernel arguments per launch (mma_sparse_f16 has 10)

struct SuiteLaunch {
  const char* kernel;
  unsigned grid[3], block[3];
  unsigned dynamic_shared;
  SuiteArg args[kMaxSuiteArgs];
  unsigned cluster[3];  // thread-block cluster dims from the launch file (all 0: none given)
  bool cooperative = false;  // cudaLaunchCooperativeKernel (the launch file's cooperative: true)
};

struct SuiteCheck {
  int buffer = -1;
  CheckKind kind;
  const char* file;   // relative to tools/validation
  double rtol, atol;
  double start, step; // kSequence: element i must be start + step * i
};

struct SuiteEntry {
  const char* name;
  const char* family;
  const char* launch_file;  // relative to the repository root
  int requires_cc;          // e.g. 80; 0 for none
  int exact_cc;             // sm_90a PTX (architecture-specific): only this capability; 0 for any
  // Room for the largest entry; suite.py refuses an entry that needs more.
  SuiteBuffer buffers[16];
  SuiteLaunch launches[8];
  SuiteCheck checks[8];
  SuiteTensorMap maps[4];
  SuiteTexture textures[12];
};

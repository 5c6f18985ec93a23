#pragma once
// The scheduling fields ptxas writes into every Volta-and-later SASS instruction: bits 105-125 of
// its 128-bit encoding, which is bits 41-61 of the high 64-bit word nvdisasm prints second.
// Layout and meaning from Jia et al., "Dissecting the NVIDIA Volta GPU Architecture via
// Microbenchmarking" (arXiv 1804.06826, 2018, section 2.1), which Turing, Ampere and Hopper keep:
//   stall   (4 bits) cycles the scheduler waits before issuing the warp's next instruction;
//   yield   (1 bit)  clear: the scheduler should switch to another warp after this one (the bit
//                    reads inverted, as maxas and CuAssembler print it);
//   write   (3 bits) the dependence barrier (0-5) this variable-latency instruction releases when
//                    its result is written; 7: none;
//   read    (3 bits) the barrier released once its source registers have been read; 7: none;
//   wait    (6 bits) the barriers that must be released before this instruction issues;
//   reuse   (4 bits) operand slots whose value the register file's reuse cache keeps.
#include <cstdint>

namespace warpsim::sass {

struct ControlBits {
  static constexpr uint8_t kNoBarrier = 7;
  uint8_t stall = 0;
  bool yield = false;
  uint8_t write_barrier = kNoBarrier;
  uint8_t read_barrier = kNoBarrier;
  uint8_t wait_mask = 0;
  uint8_t reuse = 0;

  static ControlBits decode(uint64_t high_word) {
    const uint32_t c = static_cast<uint32_t>(high_word >> 41);
    ControlBits b;
    b.stall = c & 0xf;
    b.yield = ((c >> 4) & 1) == 0;
    b.write_barrier = (c >> 5) & 7;
    b.read_barrier = (c >> 8) & 7;
    b.wait_mask = (c >> 11) & 0x3f;
    b.reuse = (c >> 17) & 0xf;
    return b;
  }
  bool operator==(const ControlBits&) const = default;

  // One word for WarpInst::control: the fields as encoded, bit 31 set (0 means "no bits").
  static constexpr uint32_t kPresent = 1u << 31;
  uint32_t pack() const {
    return kPresent | stall | uint32_t{!yield} << 4 | uint32_t{write_barrier} << 5 | uint32_t{read_barrier} << 8 | uint32_t{wait_mask} << 11 |
           uint32_t{reuse} << 17;
  }
  static ControlBits unpack(uint32_t word) { return decode(uint64_t{word & ~kPresent} << 41); }
  ControlBits with_wait(uint8_t barriers) const {
    ControlBits b = *this;
    b.wait_mask |= barriers;
    return b;
  }
};

}  // namespace warpsim::sass

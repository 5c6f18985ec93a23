#pragma once
// Float arithmetic under the PTX ISA's rounding modifiers .rz, .rm and .rp (add, sub, mul, fma,
// div, sqrt and rcp in f32 and f64), computed by the host's IEEE 754 arithmetic switched to the
// same mode. An f32 result is computed in double and then rounded to float in that mode: two
// roundings in one direction give the single rounding, as the float grid lies within the double
// grid (for round-to-nearest the same holds because 53 >= 2 * 24 + 2).
#include "frontend/ptx/float_formats.h"
#include "frontend/ptx/program.h"

namespace warpsim::ptx {

// `op` on a, b (and c for fma), rounded per `mode` to `bits` (32 or 64). kNearestAway is not a
// mode PTX arithmetic has; it is taken as to nearest even.
double round_directed(EmuOp op, Rounding mode, uint32_t bits, double a, double b, double c);

// a * b + c of f16 or bf16 operands (held as floats), rounded to odd at float precision. Rounding
// that to nearest in a format of at most 22 significand bits gives the fma rounded once, as the
// PTX ISA's fma.rn.f16/bf16 is; fmaf's round to nearest followed by a second one to 16 bits can
// land on a tie the exact result is not on (1.00195 * 1.25 + 2^-24 in f16).
float fma_rounded_to_odd(float a, float b, float c);

}  // namespace warpsim::ptx

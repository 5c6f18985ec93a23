"""Inputs as warpsim's launch files build them, rebuilt in plain Python for reference outputs:
float rounding helpers and std::mt19937_64 (tools/kernels_make_refs.py, tools/validation/suite.py).
"""
import struct

M64 = (1 << 64) - 1


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def f16(x):  # warpsim stores double -> float -> half, both round to nearest even
    return struct.unpack("<e", struct.pack("<e", f32(x)))[0]


def bf16(x):
    bits = struct.unpack("<I", struct.pack("<f", f32(x)))[0]
    bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    return struct.unpack("<f", struct.pack("<I", bits & 0xFFFFFFFF))[0]


class MT19937_64:
    """std::mt19937_64 as the C++ standard specifies it ([rand.eng.mers], [rand.predef])."""

    def __init__(self, seed):
        self.mt = [seed & M64]
        for i in range(1, 312):
            prev = self.mt[-1]
            self.mt.append((6364136223846793005 * (prev ^ (prev >> 62)) + i) & M64)
        self.index = 312

    def __call__(self):
        if self.index >= 312:
            for i in range(312):
                y = (self.mt[i] & 0xFFFFFFFF80000000) | (self.mt[(i + 1) % 312] & 0x7FFFFFFF)
                v = self.mt[(i + 156) % 312] ^ (y >> 1)
                if y & 1:
                    v ^= 0xB5026F5AA96619E9
                self.mt[i] = v
            self.index = 0
        y = self.mt[self.index]
        self.index += 1
        y ^= (y >> 29) & 0x5555555555555555
        y ^= (y << 17) & 0x71D67FFFEDA60000 & M64
        y ^= (y << 37) & 0xFFF7EEE000000000 & M64
        y ^= y >> 43
        return y


# The standard fixes the 10000th output of a default-seeded mt19937_64.
_g = MT19937_64(5489)
for _ in range(9999):
    _g()
assert _g() == 9981545732273789042, "mt19937_64 reimplementation is wrong"


def random_init(seed, lo, hi, n, rnd):
    g = MT19937_64(seed)
    return [rnd(lo + (hi - lo) * ((g() >> 11) * 2.0**-53)) for _ in range(n)]



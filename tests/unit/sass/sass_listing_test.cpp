// The nvdisasm listing reader: instructions with their encodings, guards and operands, labels,
// source lines, the kernel's parameter bank, the module's constant banks; located errors.
#include <gtest/gtest.h>

#include "common/error.h"
#include "isa/control_bits.h"
#include "frontend/sass/sass_listing.h"
#include "frontend/sass/sass_operand.h"
#include "support/test_support.h"

namespace warpsim::sass {
namespace {

// A listing in nvdisasm -hex -g's shape, cut down by hand from one ptxas made for sm_90a.
const char* kListing = R"(	.headerflags	@"EF_CUDA_TEXMODE_INDEPENDENT"
//--------------------- .nv.info.k --------------------------
	.section	.nv.info.k,"",@"SHT_CUDA_INFO"
	//----- nvinfo : EIATTR_PARAM_CBANK
	.align		4
        /*0054*/ 	.byte	0x04, 0x0a
        /*0056*/ 	.short	(.L_19 - .L_18)
        /*0058*/ 	.word	index@(.nv.constant0.k)
        /*005c*/ 	.short	0x0210
        /*005e*/ 	.short	0x0014
//--------------------- .nv.info --------------------------
	//----- nvinfo : EIATTR_REGCOUNT
        /*0000*/ 	.byte	0x04, 0x2f
        /*0002*/ 	.short	(.L_1 - .L_0)
        /*0004*/ 	.word	index@(k)
        /*0008*/ 	.word	0x0000000c
//--------------------- .nv.constant3 --------------------------
	.section	.nv.constant3,"a",@progbits
taps:
        /*0000*/ 	.byte	0x00, 0x00, 0x80, 0x3f
radius:
        /*0004*/ 	.byte	0x04, 0x00, 0x00, 0x00
//--------------------- .nv.constant4 --------------------------
        /*0000*/ 	.dword	gain
//--------------------- .text.k --------------------------
	.section	.text.k,"ax",@progbits
        .other k,@"STO_CUDA_ENTRY STV_DEFAULT"
k:
	//## File "/src/k.cu", line 7
        /*0000*/ LDC R1, c[0x0][0x28] ; /* 0x00000a00ff017b82 */
                                                     /* 0x000fe20000000800 */
.L_x_0:
        /*0010*/ @!P0 IMAD.WIDE.U32 R4, R0.reuse, 0x10, R8 ; /* 0x0000001000048825 */
                                                     /* 0x000e240000000800 */
        /*0020*/ @P0 BRA `(.L_x_0) ; /* 0xfffffffc00fc0947 */
                                                     /* 0x001fda0003f05270 */
        /*0030*/ LDG.E.128 R12, desc[UR6][R4.64+0x10] ; /* 0x0000001004047981 */
                                                     /* 0x000fea0003800000 */
)";

TEST(SassListing, ReadsInstructionsLabelsAndAttributes) {
  const SassListing l = parse_sass_listing(kListing, "k.sass");
  ASSERT_EQ(l.functions.size(), 1u);
  const SassFunction& f = l.functions[0];
  EXPECT_EQ(f.name, "k");
  EXPECT_TRUE(f.entry);
  EXPECT_EQ(f.param_offset, 0x210u);
  EXPECT_EQ(f.param_bytes, 0x14u);
  EXPECT_EQ(f.registers, 12u);
  ASSERT_EQ(f.insts.size(), 4u);
  EXPECT_EQ(f.labels.at(".L_x_0"), 0x10u);
  const SassInstruction& wide = f.insts[1];
  EXPECT_EQ(wide.guard, "!P0");
  EXPECT_EQ(wide.opcode, "IMAD.WIDE.U32");
  EXPECT_EQ(wide.operands, (std::vector<std::string>{"R4", "R0.reuse", "0x10", "R8"}));
  EXPECT_EQ(wide.low, 0x0000001000048825ull);
  EXPECT_EQ(wide.high, 0x000e240000000800ull);
  EXPECT_EQ(l.source_files.at(wide.source_file), "/src/k.cu");
  EXPECT_EQ(wide.source_line, 7u);
  EXPECT_EQ(f.insts[3].operands, (std::vector<std::string>{"R12", "desc[UR6][R4.64+0x10]"}));
  EXPECT_EQ(l.constants.at("taps").offset, 0u);
  EXPECT_EQ(l.constants.at("taps").bytes, 4u);
  EXPECT_EQ(l.constants.at("radius").offset, 4u);
  EXPECT_EQ(l.constant_bank.size(), 8u);
  EXPECT_EQ(l.constant_bank[3], 0x3f);
  EXPECT_EQ(l.address_slots.at(0), "gain");
}

// The control fields of three instructions of the listing above, read by hand from their high
// words (Jia et al. 2018's layout): LDC R1 waits for nothing and sets no barrier; IMAD.WIDE
// (variable latency there) sets barrier 0; the BRA waits on barrier 0 with a 13-cycle stall.
TEST(SassListing, DecodesTheControlBits) {
  const SassListing l = parse_sass_listing(kListing, "k.sass");
  const auto& in = l.functions[0].insts;
  const ControlBits ldc = in[0].control(), wide = in[1].control(), bra = in[2].control();
  EXPECT_EQ(ldc.stall, 1);
  EXPECT_EQ(ldc.write_barrier, ControlBits::kNoBarrier);
  EXPECT_EQ(ldc.read_barrier, ControlBits::kNoBarrier);
  EXPECT_EQ(ldc.wait_mask, 0);
  EXPECT_FALSE(ldc.yield);
  EXPECT_EQ(wide.write_barrier, 0);
  EXPECT_EQ(wide.stall, 2);
  EXPECT_EQ(bra.wait_mask, 1);
  EXPECT_EQ(bra.stall, 13);
  EXPECT_TRUE(bra.yield);
  for (const auto& i : in) EXPECT_EQ(ControlBits::unpack(i.control().pack()), i.control());
}

TEST(SassListing, MalformedTextIsALocatedError) {
  auto error_of = [](const std::string& text) {
    try {
      parse_sass_listing(text, "bad.sass");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string header = "//--------------------- .text.k --------------------------\n";
  EXPECT_NE(error_of(header + "        /*0010*/ NOP ; /* 0x0000000000007918 */\n").find("bad.sass:2:"), std::string::npos);  // a gap
  EXPECT_NE(error_of(header + "        /*0000*/ NOP ;\n").find("bad.sass:2:"), std::string::npos);  // no encoding
  EXPECT_NE(error_of(header + "        /*0000*/ NOP ; /* 0x0000000000007918 */\n").find("lacks its second encoding word"), std::string::npos);
  EXPECT_NE(error_of(header + "garbage here\n").find("bad.sass:2:1: unexpected text"), std::string::npos);
  EXPECT_NE(error_of(header + "        /*0000*/ nop ; /* 0x0000000000007918 */\n").find("expected an opcode"), std::string::npos);
}

TEST(SassOperand, TakesOperandsApart) {
  std::string why;
  auto a = parse_operand("desc[UR6][R4.64+UR8+-0x10]", why);
  ASSERT_TRUE(a) << why;
  EXPECT_EQ(a->kind, SassOperand::Kind::kAddress);
  EXPECT_TRUE(a->descriptor);
  EXPECT_TRUE(a->wide);
  EXPECT_EQ(a->reg.index, 4u);
  EXPECT_EQ(a->uniform.index, 8u);
  EXPECT_EQ(a->value, -0x10);
  auto s = parse_operand("[R0.X4+0x8]", why);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->scale, 4);
  auto c = parse_operand("c[0x3][R2+0x10]", why);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->kind, SassOperand::Kind::kConst);
  EXPECT_EQ(c->bank, 3u);
  EXPECT_EQ(c->value, 0x10);
  auto n = parse_operand("-|R3|.reuse", why);
  ASSERT_TRUE(n);
  EXPECT_TRUE(n->negate && n->absolute);
  EXPECT_EQ(n->selector, "");
  auto h = parse_operand("R4.H1_H1", why);
  ASSERT_TRUE(h);
  EXPECT_EQ(h->selector, "H1_H1");
  auto p = parse_operand("!PT", why);
  ASSERT_TRUE(p);
  EXPECT_TRUE(p->invert && p->reg.zero());
  EXPECT_EQ(parse_operand("`(.L_x_3)", why)->name, ".L_x_3");
  EXPECT_TRUE(parse_operand("-QNAN", why)->is_float_text);
  EXPECT_EQ(parse_operand("SR_TID.X", why)->kind, SassOperand::Kind::kSpecial);
  EXPECT_FALSE(parse_operand("[R1+R2]", why));
  EXPECT_NE(why.find("two registers"), std::string::npos);
  EXPECT_FALSE(parse_register("R255").valid());  // RZ is spelt RZ
  EXPECT_TRUE(parse_register("RZ").zero());
}

}  // namespace
}  // namespace warpsim::sass

// RegisterNames numbers a kernel's register names densely in order of first use, by their text:
// names that would read as the same number (%r1, %r01) are different registers.
#include "frontend/trace/instruction_parser.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

namespace warpsim {
namespace {

TEST(RegisterNames, NumbersNamesInOrderOfFirstUseAsTheirTextWould) {
  const std::vector<std::string> names = {
      "%r1", "%rd1", "%r1", "%f1", "%r10", "%r01",   // %r01 is not %r1
      "%p1", "%r0", "%r00", "%rd1", "%fd65535",       // 65535: past the numbered tables
      "%r65534", "%R1", "%r", "%ra1b", "%abcd1",      // upper case, no number, letters after, a long prefix
      "R5", "%r123456", "%f1", "%r10", "%rs7", "%r7"};
  RegisterNames registers;
  std::map<std::string, RegId> reference;  // first use by text
  for (const std::string& name : names) {
    RegId id = 0;
    ASSERT_TRUE(registers.id(name, id)) << name;
    const auto [it, fresh] = reference.emplace(name, static_cast<RegId>(reference.size()));
    EXPECT_EQ(id, it->second) << name << (fresh ? " (first use)" : " (seen before)");
    EXPECT_EQ(registers.name(id), name);
  }
  EXPECT_EQ(registers.size(), reference.size());
}

TEST(RegisterNames, RefusesMoreNamesThanARegIdNumbers) {
  RegisterNames registers;
  RegId id = 0;
  for (uint32_t i = 0; i < 0xffff; ++i) ASSERT_TRUE(registers.id("%r" + std::to_string(i), id)) << i;
  EXPECT_EQ(id, 0xfffe);
  EXPECT_FALSE(registers.id("%f1", id));
  EXPECT_TRUE(registers.id("%r65533", id));  // a name already numbered still resolves
  EXPECT_EQ(id, 0xfffd);
}

}  // namespace
}  // namespace warpsim

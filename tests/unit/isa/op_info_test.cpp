#include "isa/op_info.h"

#include <gtest/gtest.h>

namespace warpsim {
namespace {

OpInfo decode(const std::string& m) {
  OpInfo op;
  std::string error;
  EXPECT_TRUE(decode_mnemonic(m, op, error)) << m << ": " << error;
  return op;
}

TEST(DecodeMnemonic, Fp32ArithmeticRunsOnFmaAndCountsFlops) {
  OpInfo fma = decode("fma.rn.f32");
  EXPECT_EQ(fma.pipe, Pipe::kFma);
  EXPECT_EQ(fma.flop, FlopKind::kFma);
  EXPECT_TRUE(fma.writes_destination);
  EXPECT_EQ(decode("add.f32").flop, FlopKind::kAdd);
  EXPECT_EQ(decode("mul.rn.f32").flop, FlopKind::kMul);
  EXPECT_EQ(decode("setp.lt.f32").pipe, Pipe::kAlu);  // compares are ALU work, not FLOPs
  EXPECT_EQ(decode("setp.lt.f32").flop, FlopKind::kNone);
}

TEST(DecodeMnemonic, IntegerMultiplyOnFmaAddOnAlu) {
  EXPECT_EQ(decode("mad.lo.s32").pipe, Pipe::kFma);
  EXPECT_EQ(decode("mul.wide.s32").pipe, Pipe::kFma);
  EXPECT_EQ(decode("add.s64").pipe, Pipe::kAlu);
  EXPECT_EQ(decode("shl.b32").pipe, Pipe::kAlu);
  EXPECT_EQ(decode("add.s32").op_class, OpClass::kInt);
}

TEST(DecodeMnemonic, OtherPipes) {
  EXPECT_EQ(decode("fma.rn.f64").pipe, Pipe::kFp64);
  EXPECT_EQ(decode("ex2.approx.f32").pipe, Pipe::kXu);
  EXPECT_EQ(decode("cvt.rn.f32.s32").pipe, Pipe::kXu);
  EXPECT_EQ(decode("fma.rn.f16x2").pipe, Pipe::kFp16);
  EXPECT_EQ(decode("fma.rn.f16x2").packed_lanes, 2);
  EXPECT_EQ(decode("bra.uni").op_class, OpClass::kBranch);
  EXPECT_EQ(decode("bar.sync").op_class, OpClass::kBarrier);
  // The CTA barrier's forms: bar.arrive does not wait; bar.red writes its result.
  EXPECT_FALSE(decode("bar.sync").barrier_arrive);
  EXPECT_TRUE(decode("bar.arrive").barrier_arrive);
  EXPECT_TRUE(decode("barrier.cta.arrive.aligned").barrier_arrive);
  EXPECT_TRUE(decode("bar.red.popc.u32").writes_destination);
  EXPECT_FALSE(decode("bar.sync").writes_destination);
  // cp.async.mbarrier.arrive: an mbarrier arrive that waits for the thread's copies.
  EXPECT_EQ(decode("cp.async.mbarrier.arrive.noinc.shared.b64").op_class, OpClass::kMbarrier);
  EXPECT_EQ(decode("cp.async.mbarrier.arrive.shared.b64").mbarrier, MbarrierOp::kArrive);
  EXPECT_TRUE(decode("cp.async.mbarrier.arrive.shared.b64").after_async_copies);
  // mbarrier forms by the architecture that introduced them: sm_80, or sm_90 for transactions.
  EXPECT_FALSE(decode("mbarrier.test_wait.parity.shared.b64").mbarrier_sm90);
  EXPECT_FALSE(decode("mbarrier.arrive.shared.b64").mbarrier_sm90);
  EXPECT_TRUE(decode("mbarrier.try_wait.parity.shared::cta.b64").mbarrier_sm90);
  EXPECT_TRUE(decode("mbarrier.arrive.expect_tx.shared::cta.b64").mbarrier_sm90);
  EXPECT_TRUE(decode("mbarrier.expect_tx.relaxed.cta.shared::cta.b64").mbarrier_sm90);
  EXPECT_EQ(decode("exit").op_class, OpClass::kExit);
  EXPECT_EQ(decode("shfl.sync.bfly.b32").pipe, Pipe::kMio);
  EXPECT_EQ(decode("membar.gl").op_class, OpClass::kMembar);
}

TEST(DecodeMnemonic, MemorySpacesAndWidths) {
  OpInfo ld = decode("ld.global.v4.f32");
  EXPECT_EQ(ld.space, MemSpace::kGlobal);
  EXPECT_EQ(ld.access_bytes, 16);
  EXPECT_EQ(ld.pipe, Pipe::kLsu);
  EXPECT_EQ(ld.op_class, OpClass::kLoad);
  OpInfo st = decode("st.shared.u64");
  EXPECT_EQ(st.space, MemSpace::kShared);
  EXPECT_EQ(st.access_bytes, 8);
  EXPECT_EQ(st.pipe, Pipe::kMio);
  EXPECT_FALSE(st.writes_destination);
  EXPECT_TRUE(decode("ld.global.cg.f32").bypass_l1);
  EXPECT_FALSE(decode("ld.global.ca.f32").bypass_l1);
  // .cs and .lu allocate with evict-first priority (PTX ISA cache operators); they do not bypass L1.
  EXPECT_FALSE(decode("ld.global.cs.f32").bypass_l1);
  EXPECT_TRUE(decode("ld.global.cs.f32").evict_first);
  EXPECT_TRUE(decode("ld.global.lu.v4.f32").evict_first);
  EXPECT_TRUE(decode("st.global.cs.f32").evict_first);
  EXPECT_TRUE(decode("ld.global.cv.f32").bypass_l1);
  EXPECT_FALSE(decode("ld.global.ca.f32").evict_first);
  EXPECT_EQ(decode("ld.param.u64").space, MemSpace::kParam);
  EXPECT_EQ(decode("ld.f32").space, MemSpace::kGlobal);  // generic addressing
  EXPECT_EQ(decode("atom.global.add.u32").op_class, OpClass::kAtomic);
  EXPECT_EQ(decode("red.global.add.f32").op_class, OpClass::kReduction);
  EXPECT_EQ(decode("ldmatrix.sync.aligned.m8n8.x4.shared.b16").space, MemSpace::kShared);
}

TEST(DecodeMnemonic, TensorShapeAndPrecision) {
  OpInfo mma = decode("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32");
  EXPECT_EQ(mma.pipe, Pipe::kTensor);
  EXPECT_EQ(mma.tensor, TensorPrecision::kFp16);
  EXPECT_EQ(mma.tensor_flops(), 2u * 16 * 8 * 16);
  EXPECT_EQ(decode("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32").tensor, TensorPrecision::kBf16);
  EXPECT_EQ(decode("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32").tensor, TensorPrecision::kTf32);
  EXPECT_EQ(decode("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32").tensor, TensorPrecision::kFp8);
  EXPECT_EQ(decode("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32").tensor, TensorPrecision::kInt8);
  EXPECT_EQ(decode("wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32").tensor, TensorPrecision::kFp16);
  // mma.sync.m8n8k4 is four MMAs per warp (PTX ISA); the f64 m8n8k4 is one.
  EXPECT_EQ(decode("mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32").tensor_flops(), 4u * 2 * 8 * 8 * 4);
  EXPECT_EQ(decode("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64").tensor_flops(), 2u * 8 * 8 * 4);
  OpInfo w = decode("wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32");
  EXPECT_EQ(w.m, 16);
  EXPECT_EQ(w.n, 16);
  EXPECT_EQ(w.k, 16);
  // wgmma: each warp of the warpgroup issues it and computes a quarter of the 64 rows.
  OpInfo g = decode("wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3");
  EXPECT_EQ(g.tensor, TensorPrecision::kFp8);
  EXPECT_EQ(g.tensor_flops(), 2u * 16 * 256 * 32);
  EXPECT_EQ(decode("wgmma.fence.sync.aligned").op_class, OpClass::kNop);
  EXPECT_EQ(decode("wgmma.commit_group.sync.aligned").op_class, OpClass::kNop);
  EXPECT_EQ(decode("wgmma.wait_group.sync.aligned").op_class, OpClass::kNop);
}

// The kind of an FP8/FP6/FP4 MMA sets its datapath and K (CUTLASS's Blackwell throughput table;
// PTX ISA shapes): the 8-bit-container kinds run FP6/FP4 at the FP8 rate with K = 32, the
// block-scaled FP4 kinds at the FP4 rate with K = 64; mma.sync with a kind is sm_120's.
TEST(DecodeMnemonic, MmaKindSetsTheDatapathAndK) {
  const std::string t = "tcgen05.mma.cta_group::1.";
  EXPECT_EQ(decode(t + "kind::f8f6f4.m128n256k32.f32.e2m1.e2m1").tensor, TensorPrecision::kFp8);
  EXPECT_EQ(decode(t + "kind::f8f6f4.m128n256k32.f32.e3m2.e2m3").tensor, TensorPrecision::kFp8);
  EXPECT_EQ(decode(t + "kind::mxf8f6f4.block_scale.m128n256k32.f32.e2m1.e4m3").tensor, TensorPrecision::kFp8);
  EXPECT_EQ(decode(t + "kind::f8f6f4.m128n256k32.f32.e4m3.e4m3").tensor, TensorPrecision::kFp8);
  const OpInfo nvfp4 = decode(t + "kind::mxf4nvf4.block_scale.scale_vec::4X.m128n256k64.f32.e2m1.e2m1");
  EXPECT_EQ(nvfp4.tensor, TensorPrecision::kFp4);
  EXPECT_EQ(nvfp4.tensor_flops(), 2u * 128 * 256 * 64);
  EXPECT_EQ(decode(t + "kind::mxf4.block_scale.m128n128k64.f32.e2m1.e2m1").tensor, TensorPrecision::kFp4);
  EXPECT_EQ(decode(t + "kind::f16.m128n256k16.f32.bf16.bf16").min_compute_capability, 0);
  EXPECT_EQ(decode("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m1.e2m1.f32").min_compute_capability, 120);
  EXPECT_EQ(decode("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32").min_compute_capability, 0);
  auto error_of = [](const std::string& m) {
    OpInfo op;
    std::string error;
    EXPECT_FALSE(decode_mnemonic(m, op, error)) << m;
    return error;
  };
  EXPECT_NE(error_of("mma.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f32.e2m1.e2m1.f32").find("K = 32"), std::string::npos);
  EXPECT_NE(error_of(t + "kind::mxf4nvf4.block_scale.m128n256k32.f32.e2m1.e2m1").find("K = 64"), std::string::npos);
  EXPECT_NE(error_of(t + "kind::mxf4.block_scale.m128n256k64.f32.e4m3.e4m3").find("e2m1 (FP4) inputs only"), std::string::npos);
  EXPECT_NE(error_of("mma.sync.aligned.m16n8k64.row.col.f32.e2m1.e2m1.f32").find("name their kind"), std::string::npos);
}

TEST(DecodeMnemonic, Tcgen05CopyBytesByShape) {
  EXPECT_EQ(decode("tcgen05.cp.cta_group::1.128x256b").tensor_copy_bytes, 4096);
  EXPECT_EQ(decode("tcgen05.cp.cta_group::1.128x128b").tensor_copy_bytes, 2048);
  const OpInfo warpx4 = decode("tcgen05.cp.cta_group::1.32x128b.warpx4");
  EXPECT_EQ(warpx4.tensor_copy_bytes, 512);  // read once, multicast to four warps' lanes
  EXPECT_TRUE(warpx4.whole_sm);
  EXPECT_EQ(warpx4.tensor_flops(), 0u);
  EXPECT_EQ(tcgen05_mma_stand_in("tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X"),
            "tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X.m128n16k64.f32.e2m1.e2m1");
  OpInfo op;
  std::string error;
  EXPECT_FALSE(decode_mnemonic("tcgen05.cp.cta_group::1", op, error));
  EXPECT_NE(error.find("needs a shape"), std::string::npos) << error;
}

// Hopper's mbarriers and bulk copies.
TEST(DecodeMnemonic, MbarrierAndBulkCopies) {
  EXPECT_EQ(decode("mbarrier.init.shared::cta.b64").mbarrier, MbarrierOp::kInit);
  EXPECT_EQ(decode("mbarrier.arrive.expect_tx.release.cta.shared::cta.b64").mbarrier, MbarrierOp::kArrive);
  EXPECT_TRUE(decode("mbarrier.arrive.shared.b64").writes_destination);
  EXPECT_EQ(decode("mbarrier.try_wait.parity.shared::cta.b64").mbarrier, MbarrierOp::kWait);
  EXPECT_EQ(decode("mbarrier.expect_tx.relaxed.cta.shared::cta.b64").mbarrier, MbarrierOp::kExpectTx);
  const OpInfo bulk = decode("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes");
  EXPECT_EQ(bulk.mbarrier, MbarrierOp::kBulkCopy);
  EXPECT_EQ(bulk.op_class, OpClass::kLoad);
  EXPECT_EQ(bulk.space, MemSpace::kGlobal);
  EXPECT_EQ(decode("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes").mbarrier, MbarrierOp::kBulkCopy);
  OpInfo op;
  std::string error;
  EXPECT_EQ(decode("cp.async.bulk.tensor.5d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.L2::cache_hint").mbarrier, MbarrierOp::kBulkCopy);
  EXPECT_EQ(decode("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster").mbarrier, MbarrierOp::kBulkCopy);
  for (const char* unmodelled : {"cp.async.bulk.tensor.6d.shared::cluster.global.tile.mbarrier::complete_tx::bytes",
                                 "cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes",
                                 "cp.async.bulk.tensor.2d.shared::cta.global.tile::gather4.mbarrier::complete_tx::bytes"}) {
    EXPECT_FALSE(decode_mnemonic(unmodelled, op, error)) << unmodelled;
    EXPECT_NE(error.find("in tile mode; not this form"), std::string::npos) << error;
  }
  // TMA stores and their bulk-group bookkeeping.
  const OpInfo store = decode("cp.async.bulk.global.shared::cta.bulk_group");
  EXPECT_TRUE(store.bulk_store);
  EXPECT_EQ(store.op_class, OpClass::kStore);
  EXPECT_EQ(store.space, MemSpace::kGlobal);
  EXPECT_EQ(decode("cp.async.bulk.wait_group.read").op_class, OpClass::kMembar);
  EXPECT_EQ(decode("cp.async.bulk.commit_group").op_class, OpClass::kNop);
  const OpInfo reduce = decode("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32");
  EXPECT_TRUE(reduce.bulk_reduce && reduce.bulk_store);
  EXPECT_EQ(reduce.access_bytes, 4u);
  EXPECT_TRUE(decode("cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group").bulk_reduce);
  EXPECT_FALSE(decode_mnemonic("cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.add.u32", op, error));
  const OpInfo tensor_store = decode("cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group");
  EXPECT_TRUE(tensor_store.bulk_store);
  EXPECT_EQ(tensor_store.mbarrier, MbarrierOp::kNone);
  const OpInfo drop = decode("mbarrier.arrive_drop.shared.b64");
  EXPECT_EQ(drop.mbarrier, MbarrierOp::kArrive);
  EXPECT_TRUE(drop.arrive_drop);
  EXPECT_FALSE(drop.mbarrier_sm90);  // an sm_80 form
  const OpInfo complete = decode("mbarrier.complete_tx.relaxed.cluster.shared::cluster.b64");
  EXPECT_EQ(complete.mbarrier, MbarrierOp::kCompleteTx);
  EXPECT_TRUE(complete.mbarrier_sm90);
  // pending_count reads the state token in a register: integer work, not a barrier access.
  const OpInfo pending = decode("mbarrier.pending_count.b64");
  EXPECT_EQ(pending.mbarrier, MbarrierOp::kNone);
  EXPECT_EQ(pending.pipe, Pipe::kAlu);
  EXPECT_TRUE(pending.writes_destination);
  // st.async and red.async: stores into the cluster's shared memory completing on an mbarrier.
  const OpInfo st = decode("st.async.weak.shared::cluster.mbarrier::complete_tx::bytes.v4.b32");
  EXPECT_EQ(st.op_class, OpClass::kStore);
  EXPECT_EQ(st.space, MemSpace::kSharedCluster);
  EXPECT_EQ(st.pipe, Pipe::kMio);
  EXPECT_EQ(st.access_bytes, 16u);
  EXPECT_EQ(st.mbarrier, MbarrierOp::kCompleteTx);
  const OpInfo red = decode("red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u64");
  EXPECT_EQ(red.op_class, OpClass::kReduction);
  EXPECT_EQ(red.access_bytes, 8u);
  EXPECT_EQ(red.mbarrier, MbarrierOp::kCompleteTx);
  for (const char* unmodelled : {"st.async.release.gpu.global.b32", "st.async.weak.shared::cluster.b32"}) {
    error.clear();
    EXPECT_FALSE(decode_mnemonic(unmodelled, op, error)) << unmodelled;
    EXPECT_NE(error.find("st.async is modelled in its .shared::cluster form completing on an mbarrier"), std::string::npos) << error;
  }
}

TEST(DecodeMnemonic, UnknownNamesWhatWasExpected) {
  OpInfo op;
  std::string error;
  EXPECT_FALSE(decode_mnemonic("frobnicate.f32", op, error));
  EXPECT_NE(error.find("unknown instruction 'frobnicate'"), std::string::npos) << error;
  error.clear();
  EXPECT_FALSE(decode_mnemonic("mma.sync.aligned.row.col.f32.f16.f16.f32", op, error));
  EXPECT_NE(error.find("needs a shape"), std::string::npos) << error;
}

TEST(TensorPrecisionNames, RoundTrip) {
  for (int i = 1; i < kNumTensorPrecisions; ++i) {
    auto p = static_cast<TensorPrecision>(i);
    EXPECT_EQ(tensor_precision_from_name(tensor_precision_name(p)), p);
  }
  EXPECT_EQ(tensor_precision_from_name("fp5"), TensorPrecision::kNone);
}

}  // namespace
}  // namespace warpsim

#include "npz.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

#include "cli_test_util.h"
#include "npy.h"

namespace stitch::cli {
namespace {

using testing::freshSeed;
using testing::kAllDTypes;
using testing::randomShape;
using testing::randomTensor;
using testing::ScratchDir;

std::vector<NamedTensor> randomArrays(std::mt19937_64& rng) {
  std::vector<NamedTensor> arrays;
  int i = 0;
  for (api::DType dtype : kAllDTypes)
    for (int k = 0; k < 2; ++k)
      arrays.push_back({"a" + std::to_string(i++), randomTensor(rng, dtype, randomShape(rng))});
  arrays.push_back({"scalar", randomTensor(rng, api::DType::f64, {})});
  arrays.push_back({"empty", randomTensor(rng, api::DType::f32, {3, 0, 2})});
  return arrays;
}

void expectSameArrays(const std::vector<NamedTensor>& got, const std::vector<NamedTensor>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    SCOPED_TRACE(want[i].name);
    EXPECT_EQ(got[i].name, want[i].name);
    testing::expectSameTensor(got[i].tensor, want[i].tensor);
  }
}

TEST(Npz, RoundTripStoredAndDeflated) {
  uint64_t seed = freshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  std::vector<NamedTensor> arrays = randomArrays(rng);
  for (ZipCompression c : {ZipCompression::Stored, ZipCompression::Deflated}) {
    std::string bytes = encodeNpz(arrays, c);
    expectSameArrays(decodeNpz(bytes, "test.npz"), arrays);
  }
}

TEST(Npz, DeflatedIsSmallerForRepetitiveData) {
  api::Tensor zeros = api::Tensor::empty(api::DType::f32, {1000});
  std::vector<NamedTensor> arrays = {{"z", zeros}};
  EXPECT_LT(encodeNpz(arrays, ZipCompression::Deflated).size(),
            encodeNpz(arrays, ZipCompression::Stored).size() / 4);
}

TEST(Npz, WritesNonContiguousViewsInLogicalOrder) {
  std::mt19937_64 rng(freshSeed());
  api::Tensor base = randomTensor(rng, api::DType::f32, {4, 5});
  api::Tensor transposed = base;
  transposed.sizes = {5, 4};
  transposed.strides = {1, 5};
  auto back = decodeNpz(encodeNpz({{"t", transposed}}, ZipCompression::Stored), "t.npz");
  ASSERT_EQ(back.size(), 1u);
  EXPECT_TRUE(back[0].tensor.contiguous());
  testing::expectSameTensor(back[0].tensor, transposed);
  // Element [i, j] of the view is base[j, i].
  for (int64_t i = 0; i < 5; ++i)
    for (int64_t j = 0; j < 4; ++j)
      EXPECT_EQ(static_cast<const float*>(back[0].tensor.data)[i * 4 + j],
                static_cast<const float*>(base.data)[j * 5 + i]);
}

TEST(Npz, FileRoundTrip) {
  ScratchDir dir;
  std::mt19937_64 rng(freshSeed());
  std::vector<NamedTensor> arrays = randomArrays(rng);
  writeNpz(dir.file("x.npz"), arrays, ZipCompression::Deflated);
  expectSameArrays(readNpz(dir.file("x.npz")), arrays);
}

TEST(Npz, MissingFileIsAUserError) {
  EXPECT_THROW(readNpz("no/such/file.npz"), api::CompileError);
}

TEST(Npz, CorruptionIsDetected) {
  std::mt19937_64 rng(freshSeed());
  std::vector<NamedTensor> arrays = {{"x", randomTensor(rng, api::DType::f64, {8, 8})}};
  std::string bytes = encodeNpz(arrays, ZipCompression::Stored);
  // Truncated archives lose their directory.
  EXPECT_THROW(decodeNpz(bytes.substr(0, bytes.size() / 2), "t.npz"), api::CompileError);
  // A flipped byte inside the member (after the 30-byte local header and
  // the name "x.npy") fails the CRC check.
  std::string flipped = bytes;
  flipped[30 + 5 + 200] ^= 0x40;
  EXPECT_THROW(decodeNpz(flipped, "t.npz"), api::CompileError);
  EXPECT_THROW(decodeNpz("not a zip file at all, clearly", "t.npz"), api::CompileError);
}

TEST(Npy, HeaderIsAlignedAndReadable) {
  std::mt19937_64 rng(freshSeed());
  api::Tensor t = randomTensor(rng, api::DType::i32, {3, 7});
  std::string bytes = encodeNpy(t);
  size_t headerLen = (uint8_t)bytes[8] | ((uint8_t)bytes[9] << 8);
  EXPECT_EQ((10 + headerLen) % 64, 0u);
  EXPECT_NE(bytes.find("'descr': '<i4'"), std::string::npos);
  EXPECT_NE(bytes.find("'shape': (3, 7)"), std::string::npos);
  EXPECT_NE(encodeNpy(randomTensor(rng, api::DType::f32, {5})).find("'shape': (5,)"), std::string::npos);
  EXPECT_NE(encodeNpy(randomTensor(rng, api::DType::f32, {})).find("'shape': ()"), std::string::npos);
}

// A hand-written .npy: header dict, then data.
std::string npyWithHeader(const std::string& dict, const std::string& data) {
  std::string header = dict;
  while ((10 + header.size() + 1) % 64) header += ' ';
  header += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += (char)(header.size() & 0xff);
  out += (char)(header.size() >> 8);
  return out + header + data;
}

TEST(Npy, ReadsFortranOrderAsColumnMajorStrides) {
  // Column-major 2x3 holding [[0,1,2],[3,4,5]]: memory order 0,3,1,4,2,5.
  std::vector<int64_t> columnMajor = {0, 3, 1, 4, 2, 5};
  std::string data((const char*)columnMajor.data(), columnMajor.size() * 8);
  api::Tensor t = decodeNpy(
      npyWithHeader("{'descr': '<i8', 'fortran_order': True, 'shape': (2, 3), }", data), "f");
  ASSERT_EQ(t.sizes, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(t.strides, (std::vector<int64_t>{1, 2}));  // read as it lies, no copy
  std::vector<double> rowMajor = testing::elementsOf(t);
  ASSERT_EQ(rowMajor.size(), 6u);
  for (int64_t i = 0; i < 6; ++i) EXPECT_EQ(rowMajor[i], i);
  // Written back, it is C order again.
  api::Tensor again = decodeNpy(encodeNpy(t), "again");
  EXPECT_TRUE(again.contiguous());
  testing::expectSameTensor(again, t);
}

TEST(Npy, RejectsUnsupportedAndMalformedArrays) {
  std::string eightBytes(8, '\0');
  EXPECT_THROW(decodeNpy(npyWithHeader("{'descr': '<f2', 'fortran_order': False, 'shape': (4,), }",
                                       eightBytes), "x"),
               api::CompileError);
  EXPECT_THROW(decodeNpy(npyWithHeader("{'descr': '>f8', 'fortran_order': False, 'shape': (1,), }",
                                       eightBytes), "x"),
               api::CompileError);
  // Wrong amount of data for the shape.
  EXPECT_THROW(decodeNpy(npyWithHeader("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }",
                                       eightBytes), "x"),
               api::CompileError);
  EXPECT_THROW(decodeNpy(npyWithHeader("{'descr': '<f8', 'shape': (1,), }", eightBytes), "x"),
               api::CompileError);
  EXPECT_THROW(decodeNpy("garbage", "x"), api::CompileError);
}

// numpy itself reads what we write and writes (stored, deflated, Fortran
// order) what we read. Needs /usr/bin/python3 with numpy; skipped otherwise.
bool haveNumpy() {
  return std::filesystem::exists("/usr/bin/python3") &&
         std::system("/usr/bin/python3 -c 'import numpy' > /dev/null 2>&1") == 0;
}

const char* const kNumpyRewrite = R"PY(
import sys
import numpy as np
src, compressed, stored = sys.argv[1:4]
with np.load(src) as f:
    arrays = {k: f[k] for k in f.files}
fortran = {k + "_F": np.asfortranarray(v) for k, v in arrays.items() if v.ndim >= 2}
assert all(v.flags.f_contiguous for v in fortran.values())
np.savez_compressed(compressed, **arrays, **fortran)
np.savez(stored, **arrays)
)PY";

TEST(Npz, InteroperatesWithNumpy) {
  if (!haveNumpy()) GTEST_SKIP() << "/usr/bin/python3 with numpy is not available";
  uint64_t seed = freshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  std::vector<NamedTensor> arrays = randomArrays(rng);
  arrays.push_back({"matrix", randomTensor(rng, api::DType::f32, {5, 7, 3})});
  ScratchDir dir;
  std::ofstream(dir.file("rewrite.py")) << kNumpyRewrite;
  for (ZipCompression c : {ZipCompression::Stored, ZipCompression::Deflated}) {
    writeNpz(dir.file("ours.npz"), arrays, c);
    std::string cmd = "/usr/bin/python3 " + dir.file("rewrite.py") + " " + dir.file("ours.npz") +
                      " " + dir.file("compressed.npz") + " " + dir.file("stored.npz");
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    expectSameArrays(readNpz(dir.file("stored.npz")), arrays);

    std::map<std::string, api::Tensor> byName;
    for (NamedTensor& a : readNpz(dir.file("compressed.npz"))) byName[a.name] = a.tensor;
    for (const NamedTensor& a : arrays) {
      SCOPED_TRACE(a.name);
      ASSERT_TRUE(byName.count(a.name));
      testing::expectSameTensor(byName[a.name], a.tensor);
      if (a.tensor.sizes.size() >= 2) {
        ASSERT_TRUE(byName.count(a.name + "_F"));
        testing::expectSameTensor(byName[a.name + "_F"], a.tensor);
      }
    }
  }
}

}  // namespace
}  // namespace stitch::cli

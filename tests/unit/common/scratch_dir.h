// Fresh random seeds (printed on failure by the tests that use them) and a
// scratch directory removed with its contents at the end of a test.
#pragma once
#include <cstdint>
#include <filesystem>
#include <random>
#include <string>

namespace stitch::testing {

inline uint64_t freshSeed() {
  std::random_device rd;
  return ((uint64_t)rd() << 32) ^ rd();
}

class ScratchDir {
 public:
  ScratchDir() {
    path_ = std::filesystem::temp_directory_path() / ("stitch-unit-test-" + std::to_string(freshSeed()));
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

}  // namespace stitch::testing

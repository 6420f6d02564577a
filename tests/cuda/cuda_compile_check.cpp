// cuda_compile_check [--fast] [--arch N]... FILE.cu...
//
// Compiles each CUDA file (`stitch dump --stage code --device cuda`) with
// NVRTC for every --arch (default 80 and 90): exit 0 when all compile, 1
// with NVRTC's log for the first that does not, 77 when NVRTC cannot be
// loaded (the test is then skipped). --fast compiles without optimization
// (-G), about 10x faster: what the differential suite uses to check that
// every kernel it produces compiles.
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "codegen/nvrtc_compiler.h"

int main(int argc, char** argv) {
  std::vector<int> archs;
  std::vector<std::string> files, extra;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--fast") {
      extra.push_back("-G");
    } else if (a == "--arch" && i + 1 < argc) {
      archs.push_back(std::stoi(argv[++i]));
    } else {
      files.push_back(a);
    }
  }
  if (archs.empty()) archs = {80, 90};
  std::string why;
  if (!stitch::nvrtcAvailable(&why)) {
    std::cout << "skipped: " << why << "\n";
    return 77;
  }
  for (const std::string& file : files) {
    std::ifstream in(file);
    if (!in) {
      std::cerr << "cannot read " << file << "\n";
      return 2;
    }
    std::stringstream source;
    source << in.rdbuf();
    for (int arch : archs) {
      try {
        stitch::compileCudaUncached(source.str(), arch, extra, file);
      } catch (const std::exception& e) {
        std::cout << e.what() << "\n";
        return 1;
      }
    }
  }
  std::cout << "compiled " << files.size() << " file(s) with NVRTC " << stitch::nvrtcVersion() << " for";
  for (int arch : archs) std::cout << " sm_" << arch;
  std::cout << "\n";
  return 0;
}

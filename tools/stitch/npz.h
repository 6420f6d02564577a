// numpy .npz archives: a ZIP of .npy members, one per array, named
// NAME.npy. Reads stored and deflated members (np.savez and
// np.savez_compressed); writes stored or deflated ones that np.load reads.
#pragma once
#include <string>
#include <vector>

#include "stitch/stitch.h"
#include "zip_archive.h"

namespace stitch::cli {

struct NamedTensor {
  std::string name;  // without the .npy suffix
  api::Tensor tensor;
};

// Throws a userError when the file is missing, unreadable or malformed.
std::vector<NamedTensor> readNpz(const std::string& path);
void writeNpz(const std::string& path, const std::vector<NamedTensor>& arrays,
              ZipCompression compression = ZipCompression::Stored);

// In-memory forms (what the file functions read and write).
std::vector<NamedTensor> decodeNpz(const std::string& bytes, const std::string& what);
std::string encodeNpz(const std::vector<NamedTensor>& arrays, ZipCompression compression);

}  // namespace stitch::cli

// The subset of the ZIP format that .npz files use: members stored or
// deflated (zlib's raw inflate), ZIP64 size fields as numpy writes them.
// No encryption, no multi-disk archives.
#pragma once
#include <string>
#include <vector>

namespace stitch::cli {

struct ZipMember {
  std::string name;
  std::string data;  // uncompressed bytes
};

enum class ZipCompression { Stored, Deflated };

// `what` names the archive in messages. Throws a userError on anything
// malformed, unsupported, or a CRC mismatch.
std::vector<ZipMember> parseZip(const std::string& archive, const std::string& what);
std::string buildZip(const std::vector<ZipMember>& members, ZipCompression compression);

}  // namespace stitch::cli

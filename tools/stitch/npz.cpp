#include "npz.h"

#include <fstream>
#include <sstream>

#include "npy.h"
#include "user_error.h"

namespace stitch::cli {

namespace {

const std::string kSuffix = ".npy";

std::string stripSuffix(const std::string& name) {
  bool hasSuffix = name.size() >= kSuffix.size() &&
                   name.compare(name.size() - kSuffix.size(), kSuffix.size(), kSuffix) == 0;
  return hasSuffix ? name.substr(0, name.size() - kSuffix.size()) : name;
}

}  // namespace

std::vector<NamedTensor> decodeNpz(const std::string& bytes, const std::string& what) {
  std::vector<NamedTensor> arrays;
  for (ZipMember& m : parseZip(bytes, what)) {
    std::string name = stripSuffix(m.name);
    arrays.push_back({name, decodeNpy(m.data, joined("member '", name, "' of ", what))});
  }
  return arrays;
}

std::string encodeNpz(const std::vector<NamedTensor>& arrays, ZipCompression compression) {
  std::vector<ZipMember> members;
  for (const NamedTensor& a : arrays) members.push_back({a.name + kSuffix, encodeNpy(a.tensor)});
  return buildZip(members, compression);
}

std::vector<NamedTensor> readNpz(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw userError("cannot open '", path, "'");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) throw userError("cannot read '", path, "'");
  return decodeNpz(buffer.str(), path);
}

void writeNpz(const std::string& path, const std::vector<NamedTensor>& arrays,
              ZipCompression compression) {
  std::string bytes = encodeNpz(arrays, compression);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw userError("cannot write '", path, "'");
  out.write(bytes.data(), (std::streamsize)bytes.size());
  out.close();
  if (!out) throw userError("cannot write '", path, "'");
}

}  // namespace stitch::cli

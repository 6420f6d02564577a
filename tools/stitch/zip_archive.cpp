#include "zip_archive.h"

#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <limits>

#include "user_error.h"

namespace stitch::cli {

namespace {

constexpr uint32_t kLocalHeaderSig = 0x04034b50;
constexpr uint32_t kCentralHeaderSig = 0x02014b50;
constexpr uint32_t kEndSig = 0x06054b50;
constexpr uint32_t kZip64EndSig = 0x06064b50;
constexpr uint32_t kZip64LocatorSig = 0x07064b50;
constexpr uint16_t kZip64ExtraId = 0x0001;
constexpr uint32_t kMax32 = 0xffffffffu;
constexpr uint16_t kMethodStored = 0;
constexpr uint16_t kMethodDeflated = 8;
// zlib counts in uInt; feed it in pieces well below that.
constexpr size_t kZlibChunk = size_t(1) << 30;

class Reader {
 public:
  Reader(const std::string& bytes, const std::string& what) : bytes_(bytes), what_(what) {}

  [[noreturn]] void fail(const std::string& why) const {
    throw userError(what_, " is not a valid .npz (zip) file: ", why);
  }
  uint64_t le(size_t at, size_t n) const {
    if (at > bytes_.size() || n > bytes_.size() - at) fail("truncated");
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) v |= (uint64_t)(uint8_t)bytes_[at + i] << (8 * i);
    return v;
  }
  uint16_t u16(size_t at) const { return (uint16_t)le(at, 2); }
  uint32_t u32(size_t at) const { return (uint32_t)le(at, 4); }
  uint64_t u64(size_t at) const { return le(at, 8); }
  std::string slice(uint64_t at, uint64_t n) const {
    if (at > bytes_.size() || n > bytes_.size() - at) fail("truncated");
    return bytes_.substr(at, n);
  }
  size_t size() const { return bytes_.size(); }
  const std::string& what() const { return what_; }

 private:
  const std::string& bytes_;
  const std::string& what_;
};

struct Directory {
  uint64_t entries = 0;
  uint64_t offset = 0;
};

size_t findEndRecord(const Reader& r) {
  constexpr size_t kEndSize = 22;
  if (r.size() < kEndSize) r.fail("too short");
  size_t lowest = r.size() - kEndSize > 65535 ? r.size() - kEndSize - 65535 : 0;
  for (size_t at = r.size() - kEndSize + 1; at-- > lowest;)
    if (r.u32(at) == kEndSig) return at;
  r.fail("no end-of-central-directory record");
}

Directory readDirectory(const Reader& r) {
  size_t end = findEndRecord(r);
  Directory dir{r.u16(end + 10), r.u32(end + 16)};
  bool needs64 = dir.entries == 0xffff || dir.offset == kMax32;
  if (!needs64) return dir;
  if (end < 20 || r.u32(end - 20) != kZip64LocatorSig) r.fail("missing ZIP64 locator");
  uint64_t end64 = r.u64(end - 20 + 8);
  if (r.u32(end64) != kZip64EndSig) r.fail("bad ZIP64 end record");
  return Directory{r.u64(end64 + 32), r.u64(end64 + 48)};
}

struct Entry {
  std::string name;
  uint16_t flags = 0;
  uint16_t method = 0;
  uint32_t crc = 0;
  uint64_t compressedSize = 0;
  uint64_t size = 0;
  uint64_t localOffset = 0;
};

// Replaces the 0xffffffff placeholders from the ZIP64 extra field, which
// lists only the saturated fields, in this order.
void applyZip64Extra(const Reader& r, size_t extra, size_t extraLen, Entry& e) {
  size_t at = extra;
  while (at + 4 <= extra + extraLen) {
    uint16_t id = r.u16(at);
    uint16_t len = r.u16(at + 2);
    if (id == kZip64ExtraId) {
      size_t field = at + 4;
      if (e.size == kMax32) e.size = r.u64(field), field += 8;
      if (e.compressedSize == kMax32) e.compressedSize = r.u64(field), field += 8;
      if (e.localOffset == kMax32) e.localOffset = r.u64(field);
      return;
    }
    at += 4 + len;
  }
}

Entry readCentralEntry(const Reader& r, size_t& at) {
  if (r.u32(at) != kCentralHeaderSig) r.fail("bad central directory entry");
  Entry e;
  e.flags = r.u16(at + 8);
  e.method = r.u16(at + 10);
  e.crc = r.u32(at + 16);
  e.compressedSize = r.u32(at + 20);
  e.size = r.u32(at + 24);
  size_t nameLen = r.u16(at + 28);
  size_t extraLen = r.u16(at + 30);
  size_t commentLen = r.u16(at + 32);
  e.localOffset = r.u32(at + 42);
  e.name = r.slice(at + 46, nameLen);
  applyZip64Extra(r, at + 46 + nameLen, extraLen, e);
  at += 46 + nameLen + extraLen + commentLen;
  return e;
}

std::string inflateRaw(const Reader& r, const std::string& compressed, uint64_t size,
                       const std::string& name) {
  std::string out(size, '\0');
  z_stream zs{};
  if (inflateInit2(&zs, -MAX_WBITS) != Z_OK) r.fail("zlib could not start inflating");
  size_t inPos = 0, outPos = 0;
  int status = Z_OK;
  while (status == Z_OK) {
    zs.next_in = (Bytef*)compressed.data() + inPos;
    zs.avail_in = (uInt)std::min(kZlibChunk, compressed.size() - inPos);
    zs.next_out = (Bytef*)out.data() + outPos;
    zs.avail_out = (uInt)std::min(kZlibChunk, out.size() - outPos);
    size_t inBefore = zs.avail_in, outBefore = zs.avail_out;
    status = inflate(&zs, Z_NO_FLUSH);
    inPos += inBefore - zs.avail_in;
    outPos += outBefore - zs.avail_out;
    if (status == Z_BUF_ERROR && inBefore == zs.avail_in && outBefore == zs.avail_out) break;
  }
  inflateEnd(&zs);
  if (status != Z_STREAM_END || outPos != size)
    r.fail(joined("member '", name, "' does not inflate to its recorded size"));
  return out;
}

uint32_t crcOf(const std::string& data) {
  uLong crc = crc32(0L, Z_NULL, 0);
  for (size_t at = 0; at < data.size(); at += kZlibChunk)
    crc = crc32(crc, (const Bytef*)data.data() + at, (uInt)std::min(kZlibChunk, data.size() - at));
  return (uint32_t)crc;
}

std::string readMemberData(const Reader& r, const Entry& e) {
  if (e.flags & 1) r.fail(joined("member '", e.name, "' is encrypted"));
  size_t local = e.localOffset;
  if (r.u32(local) != kLocalHeaderSig) r.fail(joined("bad local header for '", e.name, "'"));
  size_t dataStart = local + 30 + r.u16(local + 26) + r.u16(local + 28);
  std::string raw = r.slice(dataStart, e.compressedSize);
  std::string data;
  if (e.method == kMethodStored) {
    data = std::move(raw);
  } else if (e.method == kMethodDeflated) {
    data = inflateRaw(r, raw, e.size, e.name);
  } else {
    r.fail(joined("member '", e.name, "' uses compression method ", e.method,
                        " (only stored and deflated are supported)"));
  }
  if (data.size() != e.size) r.fail(joined("member '", e.name, "' has the wrong size"));
  if (crcOf(data) != e.crc) r.fail(joined("CRC mismatch in member '", e.name, "'"));
  return data;
}

std::string deflateRaw(const std::string& data) {
  z_stream zs{};
  if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    throw api::RunError("stitch: error: zlib could not start deflating");
  std::string out(deflateBound(&zs, (uLong)data.size()), '\0');
  size_t inPos = 0, outPos = 0;
  int status = Z_OK;
  while (status != Z_STREAM_END) {
    zs.next_in = (Bytef*)data.data() + inPos;
    zs.avail_in = (uInt)std::min(kZlibChunk, data.size() - inPos);
    if (out.size() - outPos < 64) out.resize(out.size() * 2 + 64);
    zs.next_out = (Bytef*)out.data() + outPos;
    zs.avail_out = (uInt)std::min(kZlibChunk, out.size() - outPos);
    size_t inBefore = zs.avail_in, outBefore = zs.avail_out;
    bool lastPiece = inPos + inBefore == data.size();
    status = deflate(&zs, lastPiece ? Z_FINISH : Z_NO_FLUSH);
    inPos += inBefore - zs.avail_in;
    outPos += outBefore - zs.avail_out;
    if (status == Z_STREAM_ERROR) break;
  }
  deflateEnd(&zs);
  if (status != Z_STREAM_END) throw api::RunError("stitch: error: zlib failed to deflate");
  out.resize(outPos);
  return out;
}

void putLE(std::string& out, uint64_t v, size_t n) {
  for (size_t i = 0; i < n; ++i) out.push_back((char)((v >> (8 * i)) & 0xff));
}

// Fields shared by the local and the central header, from "version needed"
// to the extra-field length.
void putCommonFields(std::string& out, uint16_t method, uint32_t crc, uint64_t compressed,
                     uint64_t size, const std::string& name) {
  constexpr uint16_t kVersionNeeded = 20;
  constexpr uint16_t kDosDate1980 = (0 << 9) | (1 << 5) | 1;  // 1980-01-01, fixed for reproducibility
  putLE(out, kVersionNeeded, 2);
  putLE(out, 0, 2);  // flags
  putLE(out, method, 2);
  putLE(out, 0, 2);  // time
  putLE(out, kDosDate1980, 2);
  putLE(out, crc, 4);
  putLE(out, compressed, 4);
  putLE(out, size, 4);
  putLE(out, name.size(), 2);
  putLE(out, 0, 2);  // extra length
}

}  // namespace

std::vector<ZipMember> parseZip(const std::string& archive, const std::string& what) {
  Reader r(archive, what);
  Directory dir = readDirectory(r);
  std::vector<ZipMember> members;
  size_t at = dir.offset;
  for (uint64_t i = 0; i < dir.entries; ++i) {
    Entry e = readCentralEntry(r, at);
    members.push_back({e.name, readMemberData(r, e)});
  }
  return members;
}

std::string buildZip(const std::vector<ZipMember>& members, ZipCompression compression) {
  std::string out, central;
  for (const ZipMember& m : members) {
    std::string payload = compression == ZipCompression::Deflated ? deflateRaw(m.data) : m.data;
    uint16_t method = compression == ZipCompression::Deflated ? kMethodDeflated : kMethodStored;
    uint32_t crc = crcOf(m.data);
    if (m.data.size() >= kMax32 || payload.size() >= kMax32 || out.size() >= kMax32)
      throw userError("output '", m.name, "' is too large for an .npz file (4 GiB)");
    size_t localOffset = out.size();
    putLE(out, kLocalHeaderSig, 4);
    putCommonFields(out, method, crc, payload.size(), m.data.size(), m.name);
    out += m.name;
    out += payload;

    putLE(central, kCentralHeaderSig, 4);
    putLE(central, 20, 2);  // version made by
    putCommonFields(central, method, crc, payload.size(), m.data.size(), m.name);
    putLE(central, 0, 2);  // comment length
    putLE(central, 0, 2);  // disk number
    putLE(central, 0, 2);  // internal attributes
    putLE(central, 0, 4);  // external attributes
    putLE(central, localOffset, 4);
    central += m.name;
  }
  if (members.size() >= 0xffff || out.size() >= kMax32)
    throw userError("too many or too large outputs for an .npz file");
  size_t centralOffset = out.size();
  out += central;
  putLE(out, kEndSig, 4);
  putLE(out, 0, 2);  // this disk
  putLE(out, 0, 2);  // disk with the directory
  putLE(out, members.size(), 2);
  putLE(out, members.size(), 2);
  putLE(out, central.size(), 4);
  putLE(out, centralOffset, 4);
  putLE(out, 0, 2);  // comment length
  return out;
}

}  // namespace stitch::cli

#include "npy.h"

#include <bit>
#include <cctype>
#include <cstring>
#include <optional>
#include <vector>

#include "tensor_elements.h"
#include "user_error.h"

namespace stitch::cli {

static_assert(std::endian::native == std::endian::little,
              ".npy I/O assumes a little-endian host");

namespace {

const char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;

using Shape = std::vector<int64_t>;

const char* descrOf(api::DType t) {
  switch (t) {
    case api::DType::b8: return "|b1";
    case api::DType::i32: return "<i4";
    case api::DType::i64: return "<i8";
    case api::DType::f32: return "<f4";
    case api::DType::f64: return "<f8";
  }
  return "";
}

std::optional<api::DType> dtypeFromDescr(const std::string& d) {
  if (d == "<f4") return api::DType::f32;
  if (d == "<f8") return api::DType::f64;
  if (d == "<i4") return api::DType::i32;
  if (d == "<i8") return api::DType::i64;
  if (d == "|b1") return api::DType::b8;
  return std::nullopt;
}

// Bytes of `shape`'s elements; saturates instead of overflowing, so an
// absurd header is reported as data of the wrong size.
uint64_t byteCount(const Shape& shape, api::DType dtype) {
  uint64_t bytes = api::dtypeSize(dtype);
  for (int64_t s : shape)
    if (__builtin_mul_overflow(bytes, (uint64_t)s, &bytes)) return UINT64_MAX;
  return bytes;
}

struct NpyHeader {
  std::string descr;
  bool fortranOrder = false;
  Shape shape;
};

// Reads the header dict. The format is a Python literal written by numpy;
// we accept exactly the keys it writes, in any order.
class HeaderParser {
 public:
  HeaderParser(const std::string& text, const std::string& what) : text_(text), what_(what) {}

  NpyHeader parse() {
    NpyHeader h;
    bool sawDescr = false, sawOrder = false, sawShape = false;
    expect('{');
    while (true) {
      skip();
      if (peek() == '}') break;
      std::string key = readString();
      expect(':');
      if (key == "descr") {
        h.descr = readString();
        sawDescr = true;
      } else if (key == "fortran_order") {
        h.fortranOrder = readBool();
        sawOrder = true;
      } else if (key == "shape") {
        h.shape = readShape();
        sawShape = true;
      } else {
        fail(joined("unexpected header key '", key, "'"));
      }
      skip();
      if (peek() == ',') ++pos_;
    }
    if (!sawDescr || !sawOrder || !sawShape) fail("header lacks descr, fortran_order or shape");
    return h;
  }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    throw userError(what_, " is not a valid .npy array: ", why);
  }
  void skip() {
    while (pos_ < text_.size() && std::isspace((unsigned char)text_[pos_])) ++pos_;
  }
  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void expect(char c) {
    skip();
    if (peek() != c) fail(joined("expected '", c, "' in the header"));
    ++pos_;
  }
  std::string readString() {
    skip();
    char quote = peek();
    if (quote != '\'' && quote != '"') fail("expected a quoted string in the header");
    size_t end = text_.find(quote, pos_ + 1);
    if (end == std::string::npos) fail("unterminated string in the header");
    std::string s = text_.substr(pos_ + 1, end - pos_ - 1);
    pos_ = end + 1;
    return s;
  }
  bool readBool() {
    skip();
    if (text_.compare(pos_, 4, "True") == 0) {
      pos_ += 4;
      return true;
    }
    if (text_.compare(pos_, 5, "False") == 0) {
      pos_ += 5;
      return false;
    }
    fail("fortran_order is neither True nor False");
  }
  Shape readShape() {
    Shape shape;
    expect('(');
    while (true) {
      skip();
      if (peek() == ')') {
        ++pos_;
        return shape;
      }
      size_t start = pos_;
      while (std::isdigit((unsigned char)peek())) ++pos_;
      // More than 18 digits is no size any file holds (and would overflow).
      if (start == pos_ || pos_ - start > 18) fail("bad shape in the header");
      shape.push_back(std::stoll(text_.substr(start, pos_ - start)));
      // numpy may write 3L on old Python 2 files.
      if (peek() == 'L') ++pos_;
      skip();
      if (peek() == ',') ++pos_;
    }
  }

  const std::string& text_;
  const std::string& what_;
  size_t pos_ = 0;
};

uint32_t readLE(const std::string& bytes, size_t at, size_t n) {
  uint32_t v = 0;
  for (size_t i = 0; i < n; ++i) v |= (uint32_t)(uint8_t)bytes[at + i] << (8 * i);
  return v;
}

std::string shapeLiteral(const Shape& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += std::to_string(shape[i]) + ", ";
  if (shape.size() > 1) s.resize(s.size() - 2);
  if (shape.size() == 1) s.resize(s.size() - 1);  // (5,)
  return s + ")";
}

// Fortran order: the first index varies fastest.
Shape columnMajorStrides(const Shape& shape) {
  Shape strides(shape.size());
  int64_t stride = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    strides[i] = stride;
    stride *= shape[i];
  }
  return strides;
}

}  // namespace

std::string encodeNpy(const api::Tensor& tensor) {
  std::string dict = joined("{'descr': '", descrOf(tensor.dtype), "', 'fortran_order': False, 'shape': ",
                            shapeLiteral(tensor.sizes), ", }");
  // Pad with spaces and a final newline so the data starts 64-byte aligned.
  bool v2 = dict.size() + 1 + kMagicSize + 4 > 65535;
  size_t prefix = kMagicSize + 2 + (v2 ? 4 : 2);
  size_t total = prefix + dict.size() + 1;
  size_t padded = (total + 63) / 64 * 64;
  dict.append(padded - total, ' ');
  dict.push_back('\n');

  std::string out(kMagic, kMagicSize);
  out.push_back((char)(v2 ? 2 : 1));
  out.push_back('\0');
  size_t len = dict.size();
  for (size_t i = 0; i < (v2 ? 4u : 2u); ++i) out.push_back((char)((len >> (8 * i)) & 0xff));
  out += dict;

  return out + rowMajorBytes(tensor);
}

api::Tensor decodeNpy(const std::string& bytes, const std::string& what) {
  auto bad = [&](const std::string& why) { return userError(what, " is not a valid .npy array: ", why); };
  if (bytes.size() < kMagicSize + 4 || bytes.compare(0, kMagicSize, kMagic, kMagicSize) != 0)
    throw bad("missing the \\x93NUMPY magic");
  int major = (uint8_t)bytes[kMagicSize];
  if (major < 1 || major > 3) throw bad(joined("unknown format version ", major));
  size_t lenBytes = major == 1 ? 2 : 4;
  size_t headerStart = kMagicSize + 2 + lenBytes;
  if (bytes.size() < headerStart) throw bad("truncated header");
  size_t headerLen = readLE(bytes, kMagicSize + 2, lenBytes);
  if (bytes.size() < headerStart + headerLen) throw bad("truncated header");
  NpyHeader h = HeaderParser(bytes.substr(headerStart, headerLen), what).parse();

  auto dtype = dtypeFromDescr(h.descr);
  if (!dtype)
    throw userError(what, " has element type '", h.descr,
                    "', which is not supported (use <f4, <f8, <i4, <i8 or |b1)");
  uint64_t nbytes = byteCount(h.shape, *dtype);
  size_t dataStart = headerStart + headerLen;
  if (bytes.size() - dataStart != nbytes)
    throw bad(joined("expected ", nbytes, " bytes of data for shape ", shapeText(h.shape), ", found ",
                     bytes.size() - dataStart));
  api::Tensor t = api::Tensor::empty(*dtype, h.shape);
  if (nbytes) std::memcpy(t.data, bytes.data() + dataStart, nbytes);
  if (h.fortranOrder) t.strides = columnMajorStrides(h.shape);
  return t;
}

}  // namespace stitch::cli

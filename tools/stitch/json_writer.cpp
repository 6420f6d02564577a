#include "json_writer.h"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "stitch/stitch.h"

namespace stitch::cli {

std::string jsonEscape(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if ((unsigned char)c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", (unsigned)(unsigned char)c);
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

// Closing what was never opened is a bug in the command, not the user's.
void JsonWriter::requireOpen(const char* container) const {
  if (first_.empty() || afterKey_)
    throw api::InternalError(std::string("stitch: internal error: unbalanced JSON ") + container);
}

void JsonWriter::beforeValue() {
  if (afterKey_) {
    afterKey_ = false;
    return;
  }
  if (first_.empty()) return;
  if (!first_.back()) out_ += ", ";
  first_.back() = false;
}

JsonWriter& JsonWriter::beginObject() {
  beforeValue();
  out_ += "{";
  first_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::endObject() {
  requireOpen("object");
  first_.pop_back();
  out_ += "}";
  return *this;
}

JsonWriter& JsonWriter::beginArray() {
  beforeValue();
  out_ += "[";
  first_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::endArray() {
  requireOpen("array");
  first_.pop_back();
  out_ += "]";
  return *this;
}

JsonWriter& JsonWriter::key(const std::string& k) {
  beforeValue();
  out_ += jsonEscape(k) + ": ";
  afterKey_ = true;
  return *this;
}

JsonWriter& JsonWriter::value(const std::string& s) {
  beforeValue();
  out_ += jsonEscape(s);
  return *this;
}

JsonWriter& JsonWriter::value(double d) {
  if (!std::isfinite(d)) return null();
  beforeValue();
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, d);
  out_.append(buf, res.ptr);
  return *this;
}

JsonWriter& JsonWriter::value(int64_t i) {
  beforeValue();
  out_ += std::to_string(i);
  return *this;
}

JsonWriter& JsonWriter::value(bool b) {
  beforeValue();
  out_ += b ? "true" : "false";
  return *this;
}

JsonWriter& JsonWriter::null() {
  beforeValue();
  out_ += "null";
  return *this;
}

JsonWriter& JsonWriter::intArray(const std::vector<int64_t>& values) {
  beginArray();
  for (int64_t v : values) value(v);
  return endArray();
}

}  // namespace stitch::cli

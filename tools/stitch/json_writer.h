// A small streaming JSON writer for `--json` output: commas, nesting and
// string escapes handled; non-finite numbers become null.
//
//   JsonWriter j;
//   j.beginObject().key("kernels").value(0).endObject();   // {"kernels": 0}
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace stitch::cli {

class JsonWriter {
 public:
  JsonWriter& beginObject();
  JsonWriter& endObject();
  JsonWriter& beginArray();
  JsonWriter& endArray();
  JsonWriter& key(const std::string& k);
  JsonWriter& value(const std::string& s);
  JsonWriter& value(const char* s) { return value(std::string(s)); }
  JsonWriter& value(double d);
  JsonWriter& value(int64_t i);
  JsonWriter& value(int i) { return value((int64_t)i); }
  JsonWriter& value(bool b);
  JsonWriter& null();
  JsonWriter& intArray(const std::vector<int64_t>& values);
  const std::string& str() const { return out_; }

 private:
  void beforeValue();
  void requireOpen(const char* container) const;
  std::string out_;
  std::vector<bool> first_;  // per open container: nothing written yet
  bool afterKey_ = false;
};

std::string jsonEscape(const std::string& s);

}  // namespace stitch::cli

// String concatenation by appending into one buffer: cheaper than chains of
// operator+, and free of GCC 12's false -Wrestrict alarms on those chains.
#pragma once
#include <string>
#include <string_view>

namespace stitch {

template <typename... Parts>
std::string cat(const Parts&... parts) {
  std::string out;
  (out.append(std::string_view(parts)), ...);
  return out;
}

}  // namespace stitch

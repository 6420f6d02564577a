// The compiler's errors as the public API's: UserError -> CompileError,
// RuntimeFailure -> RunError, anything else -> InternalError (out of memory
// -> RunError). Every public entry point runs its body through `translated`.
#pragma once
#include <exception>
#include <new>
#include <string>

#include "common/error.h"
#include "stitch/stitch.h"

namespace stitch {

[[noreturn]] inline void rethrowAsPublic() {
  try {
    throw;
  } catch (const api::CompileError&) {
    throw;
  } catch (const api::RunError&) {
    throw;
  } catch (const api::InternalError&) {
    throw;
  } catch (const UserError& e) {
    throw api::CompileError(e.formatted());
  } catch (const RuntimeFailure& e) {
    throw api::RunError(e.formatted());
  } catch (const std::bad_alloc&) {
    throw api::RunError("stitch: error: out of memory");
  } catch (const std::exception& e) {
    std::string what = e.what();
    const std::string prefix = "internal error: ";
    if (what.rfind(prefix, 0) == 0) what = what.substr(prefix.size());
    throw api::InternalError("stitch: internal error: " + what);
  } catch (...) {
    throw api::InternalError("stitch: internal error: unknown exception");
  }
}

template <typename F>
auto translated(F&& body) -> decltype(body()) {
  try {
    return body();
  } catch (...) {
    rethrowAsPublic();
  }
}

}  // namespace stitch

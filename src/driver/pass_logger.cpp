#include "driver/pass_logger.h"

#include <cstdlib>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "ir/printer.h"

namespace stitch {

PassLogger::PassLogger(bool keepIR, std::ostream* echoTo) : keepIR_(keepIR), echo_(echoTo) {}

PassLogger PassLogger::fromEnvironment(bool keepIR) {
  const char* debug = std::getenv("STITCH_DEBUG");
  bool echo = debug && std::strcmp(debug, "1") == 0;
  return PassLogger(keepIR, echo ? &std::cerr : nullptr);
}

void PassLogger::record(const std::string& pass, const Graph& graph, double ms) {
  PassRecord r;
  r.pass = pass;
  r.ms = ms;
  // Printing costs time; do it only when someone looks at the text.
  if (keepIR_ || echo_) {
    r.ir = printGraph(graph);
    r.changed = records_.empty() || r.ir != lastIR_;
    lastIR_ = r.ir;
  }
  if (echo_) *echo_ << format(r) << std::flush;
  if (!keepIR_) r.ir.clear();
  records_.push_back(std::move(r));
}

void PassLogger::recordText(const std::string& pass, const std::function<std::string()>& text,
                            double ms) {
  PassRecord r;
  r.pass = pass;
  r.ms = ms;
  if (keepIR_ || echo_) {
    r.ir = text();
    r.changed = true;  // a new kind of IR: nothing to compare it with
    lastIR_ = r.ir;
  }
  if (echo_) *echo_ << format(r) << std::flush;
  if (!keepIR_) r.ir.clear();
  records_.push_back(std::move(r));
}

std::string PassLogger::format(const PassRecord& r) {
  std::ostringstream os;
  os << "== after " << r.pass << " (" << std::fixed << std::setprecision(3) << r.ms << " ms)";
  if (!r.changed) {
    os << " (unchanged) ==\n";
    return os.str();
  }
  os << " ==\n" << r.ir;
  if (!r.ir.empty() && r.ir.back() != '\n') os << '\n';
  return os.str();
}

}  // namespace stitch

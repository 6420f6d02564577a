// Watches the pipeline: after every pass the spine hands the IR to the
// logger, which times it and, when asked, keeps or prints the IR text.
// With STITCH_DEBUG=1 in the environment every pass's IR goes to stderr as
//
//   == after shape-inference (0.12 ms) ==
//   graph normalize(%src : f32[...], ...
//
// The code generator's passes log their own text (kernel graph, uops, C).
// and a pass that changed nothing prints "(unchanged)" instead of the IR.
#pragma once
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "ir/graph.h"

namespace stitch {

struct PassRecord {
  std::string pass;
  double ms = 0;
  bool changed = true;  // false only when the IR text is known to be the same
  std::string ir;       // the IR text after the pass (empty unless kept)
};

class PassLogger {
 public:
  // keepIR: remember the IR text after each pass (for `dump`).
  // echo: print each pass's IR to `echoTo` as it runs (STITCH_DEBUG).
  explicit PassLogger(bool keepIR = false, std::ostream* echoTo = nullptr);
  // keepIR as given; echo to stderr when STITCH_DEBUG is set to 1.
  static PassLogger fromEnvironment(bool keepIR);

  void record(const std::string& pass, const Graph& graph, double ms);
  // For a pass whose result is not a graph (kernel graph, uops, C source):
  // `text` prints it, called only when the text is kept or echoed.
  void recordText(const std::string& pass, const std::function<std::string()>& text, double ms);
  const std::vector<PassRecord>& records() const { return records_; }
  // "== after PASS (T ms) ==" and the IR, or "(unchanged)".
  static std::string format(const PassRecord& record);

 private:
  bool keepIR_;
  std::ostream* echo_;
  std::string lastIR_;
  std::vector<PassRecord> records_;
};

}  // namespace stitch

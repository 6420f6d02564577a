#include "codegen/tile_epilogue.h"

#include "codegen/c_expr.h"
#include "codegen/text_cat.h"

namespace stitch {

std::string renderTileEpilogue(const TileEpilogue& epilogue, CPrelude& prelude) {
  // One statement per step, each value a float of its own: the kernels'
  // flags forbid contracting across them, so each step rounds as a kernel
  // of the group computes it.
  std::string body = "      float x = row[j];\n";
  size_t operand = 0;
  for (const EpilogueStep& step : epilogue.steps) {
    if (step.activation) {
      body += cat("      x = ", renderAluExpr(*step.activation, DType::f32, {"x"}, prelude), ";\n");
      continue;
    }
    const std::string t = "t" + std::to_string(operand);
    body += cat("      float ", t, " = operand", std::to_string(operand), "[j];\n");
    if (step.operandActivation)
      body += cat("      ", t, " = ", renderAluExpr(*step.operandActivation, DType::f32, {t}, prelude), ";\n");
    body += cat("      x = ", renderAluExpr(step.combine, DType::f32, {"x", t}, prelude), ";\n");
    ++operand;
  }
  std::string operandRows;
  for (size_t i = 0; i < operand; ++i)
    operandRows += cat("    const float* restrict operand", std::to_string(i), " = operands[", std::to_string(i),
                       "] + r * ldc;\n");
  // An activation is a chain of 20-40 dependent vector operations (or
  // relu's one): four vector iterations side by side, as kernels do.
  return cat("void ", epilogue.name,
             "(float* restrict c, int64_t rows, int64_t ldc, int64_t cols, const float* const* operands) {\n",
             "  (void)operands;\n",
             "  for (int64_t r = 0; r < rows; ++r) {\n",
             "    float* restrict row = c + r * ldc;\n", operandRows,
             "    #pragma clang loop interleave_count(4)\n",
             "    for (int64_t j = 0; j < cols; ++j) {\n", body,
             "      row[j] = x;\n",
             "    }\n",
             "  }\n",
             "}\n");
}

std::string tileEpilogueName(const std::string& kernel) { return kernel + "_epilogue"; }

}  // namespace stitch

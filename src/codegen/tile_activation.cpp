#include "codegen/tile_activation.h"

#include "codegen/c_expr.h"
#include "codegen/text_cat.h"

namespace stitch {

std::string renderTileActivation(const TileActivation& activation, CPrelude& prelude) {
  const std::string value = renderAluExpr(activation.op, DType::f32, {"x"}, prelude);
  // Every activation here is a chain of 20-40 dependent vector operations
  // (or relu's one): four vector iterations side by side, as kernels do.
  return cat("void ", activation.name, "(float* restrict c, int64_t rows, int64_t ldc, int64_t cols) {\n",
             "  for (int64_t r = 0; r < rows; ++r) {\n",
             "    float* restrict row = c + r * ldc;\n",
             "    #pragma clang loop interleave_count(4)\n",
             "    for (int64_t j = 0; j < cols; ++j) {\n",
             "      const float x = row[j];\n",
             "      row[j] = ", value, ";\n",
             "    }\n",
             "  }\n",
             "}\n");
}

std::string tileActivationName(const std::string& kernel) { return kernel + "_activation"; }

}  // namespace stitch

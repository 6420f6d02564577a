# cmake -DIN=<text file> -DOUT=<.cpp> -DNAME=<C++ identifier> -P embed_text.cmake
# Writes a .cpp defining `extern const char stitch::NAME[]` as IN's text, so
# the C prelude carries the same source the C++ side compiles.
file(READ ${IN} text)
file(WRITE ${OUT}.tmp "namespace stitch {\nextern const char ${NAME}[];\nconst char ${NAME}[] = R\"stitch_embed(${text})stitch_embed\";\n}  // namespace stitch\n")
file(RENAME ${OUT}.tmp ${OUT})

# Turns a text file into a C++ source defining
#   namespace trainscope::embedded { extern const char SYMBOL[]; }
# Used for data files (rule tables) that must ship inside the binary.
file(READ ${INPUT} content HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${content}")
file(WRITE ${OUTPUT} "// Generated from ${INPUT}. Do not edit.\n"
  "namespace trainscope::embedded {\n"
  "extern const unsigned char ${SYMBOL}[];\n"
  "const unsigned char ${SYMBOL}[] = {${bytes} 0x00};\n"
  "}  // namespace trainscope::embedded\n")

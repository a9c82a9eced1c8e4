# Turns the compiled XDP steering program into a C++ source holding its
# bytes (xdp_object.h), so rocelb-dp carries the program it loads.
# cmake -DIN=rocelb_steer.bpf.o -DOUT=xdp_object.cc -P embed_object.cmake
file(READ ${IN} hex HEX)
string(LENGTH "${hex}" n)
math(EXPR size "${n} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "((0x[0-9a-f][0-9a-f],){16})" "\\1\n" bytes "${bytes}")
file(WRITE ${OUT} "// Generated from ${IN} by embed_object.cmake.\n"
     "#include \"dataplane/xdp/xdp_object.h\"\n"
     "namespace rocelb {\n"
     "namespace {\nconst unsigned char kBytes[] = {\n${bytes}\n};\n}  // namespace\n"
     "const unsigned char* xdp_steer_object() { return kBytes; }\n"
     "size_t xdp_steer_object_size() { return ${size}; }\n"
     "}  // namespace rocelb\n")

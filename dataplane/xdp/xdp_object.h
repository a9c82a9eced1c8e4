// The compiled XDP steering program (rocelb_steer.bpf.c), embedded in the
// binary at build time (clang -target bpf, then embed_object.cmake). Empty
// (size 0) when the build had no clang: ports[].xdp_steering is then refused.
#pragma once

#include <cstddef>

namespace rocelb {

const unsigned char* xdp_steer_object();
size_t xdp_steer_object_size();

}  // namespace rocelb

// A project header in another folder than the kernel's file (so outside the
// default header filter), whose host code needs a library that is not on
// this machine (a cuVS-style index): clang reports a missing include and
// semantic errors here, none of them in device code.
#pragma once
#include <cuvs/neighbors/brute_force.hpp>
inline void build_index(const float *data, long n)
{
    auto idx = cuvs::neighbors::brute_force::build(data, n);
    (void)idx;
}

#!/usr/bin/env bash
# kernels.sh - CTest cpudiff.kernels: samples.sh over tests/cpudiff/kernels/,
# small kernels (each with its launch spec) for shapes the samples do not
# have: cooperative-groups barriers, __syncthreads_count as a barrier, a
# per-tile partial sum, copies through a temporary, and issue 34's C89
# scratch variables (c89_scratch), guarded copies without else read inside
# their bound (guarded_partial, matmul_ragged, and transposed with C89
# scratch indices: transpose_add), a tile refilled after the loop
# (remainder_tile), loads through a __shared__ table (shared_table), a
# nested if/else of copy loops the canon pass fuses (nested_guard), copy
# loops counting with a C89 variable of the kernel (c89_counter,
# c89_counter_d), second K-loops whose earlier stores are spelled unlike
# their copies (second_kloop_cover, hemm_like), calls left unresolved in a
# template whose every candidate is read, with a template-typed scratch
# private to each phase (hemm_overloads), complex double2 buffers and a
# complex scalar (zgemm_like), and __device__ helpers of the file in the
# loop condition (eff_helper_bound), tile values the load phase sets and the compute
# phase reads (symv_upper_partial, tile_origin, tile_value_rot, whose store after the math reads one, and guard_tile_value, copies guarded by one without an else), and an if/else copy that
# loads in its else branch with cuComplex.h's zero (zgemv_offset), copy loops counted by the
# parameters of a template nothing in its file instantiates (tparam_copy_loops, three
# instantiations), and copy loops strided by the block (older_as_written, whose sm_75
# build keeps the loop: tests/cli/multiarch.sh), and an if/else of two copy loops
# each whose then branch has bounds that tile pointers make hold (bound_by_pointer).
# Every variant of every
# kernel must match its original on the CPU emulator; the output and the
# environment variables are those of samples.sh.
set -euo pipefail
root="${KPIPE_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
export CPUDIFF_DIR="$root/tests/cpudiff/kernels" CPUDIFF_LABEL=cpudiff.kernels
exec bash "$root/tests/cpudiff/samples.sh" "$@"

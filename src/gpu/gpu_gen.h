/*
 * gpu_gen.h - the sources generated from a launch description
 * (launch_spec.h, in the verify layer) for the GPU steps of `kpipe validate`: the per-version
 * launcher translation unit and the `kpipe_bench_spec.h` header that the
 * host program bench/harness/bench_main.cu (embedded in kpipe) includes.
 * The text is what bench/gpu_bench.py generates, apart from the first
 * comment line, so both drive the same harness.
 *
 * Pure: no files are written, no tool is run (kp_launch_spec_load reads
 * one file).  Errors are returned as a code plus a one-line message.
 *
 * Ownership: a kp_launch_spec owns every string and array reachable from it
 * (one arena) until kp_launch_spec_release(); the generators return heap
 * strings the caller frees.
 */
#ifndef KPIPE_GPU_GEN_H
#define KPIPE_GPU_GEN_H

#include "launch_spec.h"

/* The header kpipe_bench_spec.h for the spec; with several instantiations
 * it ends with KPIPE_BENCH_NUM_INSTS and kInstNames for the harness.
 * Caller frees. */
char *kp_gpu_gen_spec_header(const kp_launch_spec *s);

/* A launcher translation unit: includes version_path (which must be
 * absolute and free of '"' and newlines), launches the spec's kernel with
 * dynamic_smem bytes (NULL: the spec's), through the launcher `via` when
 * not NULL, and exports kpipe_bench_launch and
 * kpipe_bench_attrs; with several instantiations, the pair for each
 * instantiation i as kpipe_bench_launch_i and kpipe_bench_attrs_i.  label
 * goes into the first comment line.  Returns NULL (err set) for a path
 * that cannot be #included.  Caller frees. */
char *kp_gpu_gen_launcher(const kp_launch_spec *s, const char *version_path, const char *label,
			  const char *dynamic_smem, const char *via, char *err, size_t errsz);

#endif

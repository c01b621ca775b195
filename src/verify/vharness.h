/*
 * vharness.h - the launcher translation unit the verifier compiles with
 * each version of a kernel file (the C port of tests/cpudiff/cpudiff.py's
 * harness_source): it includes the emulator, the prepared version and
 * runtime/emu/kp_harness.h, declares the spec's size symbols as `const
 * long`, checks `requires`, allocates and fills the buffers, launches the
 * kernel over the whole grid and dumps every buffer.
 *
 * Its command line: `--info` prints one line per setting ("NAME ok
 * threads=T blocks=B elems=E" or "NAME requires-failed EXPR"); `--size
 * NAME --sched fwd|rev|rand --seed N --cp wait|issue --out FILE` runs one.
 * A setting is a size of the spec, "SIZE@K" for the K-th instantiation
 * when the spec names several.  Pure: returns text.
 */
#ifndef KPIPE_VERIFY_VHARNESS_H
#define KPIPE_VERIFY_VHARNESS_H

#include "launch_spec.h"

/* The launcher for `prepped_path` (absolute, as #included) with spec s;
 * dyn_smem: the version's "// kpipe-launch: dynamic_smem" override or
 * NULL; via: the launcher the version names for the kernel, or NULL;
 * timeout_s: a run's limit.  Caller frees. */
char *kp_vharness_source(const kp_launch_spec *s, const char *prepped_path, const char *dyn_smem,
			 const char *via, int timeout_s);

/* The name of setting (inst, size) of s, as the launcher knows it. */
char *kp_vharness_setting(const kp_launch_spec *s, int inst, int size);

#endif

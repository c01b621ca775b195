/*
 * diag_ids.c - the table of diagnostic ids (diag_ids.h).  Adding an id:
 * one entry below and one section in docs/diagnostics.md, with its row in
 * the table of ids there (tests/layout/diag_ids.sh compares the two).
 */
#include "diag_ids.h"

#include <string.h>

/* id, level, summary: in the order of docs/diagnostics.md's table of ids */
const kp_diag_id kp_diag_ids[] = {
	{"kpipe-loop-shape", KP_LEVEL_WARNING,
	 "the loop is not of the form load; sync; compute; sync"},
	{"kpipe-already-pipelined", KP_LEVEL_REMARK,
	 "the loop already uses cp.async or is kpipe's own output"},
	{"kpipe-no-barrier", KP_LEVEL_WARNING,
	 "no `__syncthreads()` in the loop, or only one of the two"},
	{"kpipe-divergent-barrier", KP_LEVEL_WARNING, "a barrier under a condition"},
	{"kpipe-extra-barrier", KP_LEVEL_WARNING,
	 "a barrier inside a nested loop, one kpipe does not model (grid, cluster, thread group), or one whose result the loop uses"},
	{"kpipe-memory-order", KP_LEVEL_WARNING,
	 "atomics, fences, or stores to memory the loads read"},
	{"kpipe-no-tile-load", KP_LEVEL_WARNING,
	 "the load phase copies nothing into shared memory"},
	{"kpipe-partial-tile-write", KP_LEVEL_WARNING,
	 "a tile element is written under a condition, or in a copy loop, that can change from tile to tile"},
	{"kpipe-load-in-helper", KP_LEVEL_WARNING, "a tile is filled by a called function"},
	{"kpipe-compute-writes-tile", KP_LEVEL_WARNING, "the compute phase writes a tile"},
	{"kpipe-smem-carried", KP_LEVEL_WARNING,
	 "the compute phase keeps state in shared memory that the next tile's loads read"},
	{"kpipe-tile-read-after-loop", KP_LEVEL_WARNING, "a tile is read after the loop"},
	{"kpipe-load-depends-on-compute", KP_LEVEL_WARNING,
	 "the next tile's addresses are not known in advance"},
	{"kpipe-load-side-effect", KP_LEVEL_WARNING,
	 "the load phase changes a variable declared outside it"},
	{"kpipe-load-decl-used-later", KP_LEVEL_WARNING,
	 "a variable of the load phase is used by the compute phase"},
	{"kpipe-dynamic-smem", KP_LEVEL_WARNING,
	 "a tile in `extern __shared__` memory cannot get a copy of the region per stage"},
	{"kpipe-static-carve", KP_LEVEL_WARNING,
	 "a tile carved out of a static `__shared__` array cannot get a copy of the array per stage"},
	{"kpipe-macro-array", KP_LEVEL_WARNING,
	 "a tile is declared or used inside a macro, or a copy's `=` is in one"},
	{"kpipe-macro-redefined", KP_LEVEL_WARNING,
	 "a macro the loop names is `#define`d or `#undef`d inside the loop"},
	{"kpipe-preprocessor-conditional", KP_LEVEL_WARNING,
	 "`#if` / `#else` / `#endif` where the rewrite copies or moves code"},
	{"kpipe-smem-over-limit", KP_LEVEL_WARNING,
	 "the transform's buffers exceed the static shared-memory limit and cannot move to dynamic shared memory"},
	{"kpipe-dynamic-smem-launch", KP_LEVEL_WARNING,
	 "(warning with a rewrite) the tiles moved to dynamic shared memory; the launches elsewhere must pass the bytes"},
	{"kpipe-variant-unavailable", KP_LEVEL_WARNING,
	 "neither fetch mechanism applies, or the forced one does not"},
	{"kpipe-bulk-unavailable", KP_LEVEL_WARNING,
	 "`--variant bulk` or `tma` was requested but the copies are not whole rows for `cp.async.bulk` (or their guard is not one a tile's corners decide), the target is older than sm_90, or (tma) the kernel's launches cannot pass tensor maps, or a copy loop is not proven to fill one box of its tile"},
	{"kpipe-tile-shared-by-loops", KP_LEVEL_WARNING,
	 "a tile was already double-buffered for an earlier loop"},
	{"kpipe-copy-not-trivial", KP_LEVEL_WARNING,
	 "a loaded tile's element type is not trivially copyable (a user-provided copy assignment, ...)"},
	{"kpipe-tile-escapes", KP_LEVEL_WARNING,
	 "a tile is reachable where the rewrite cannot re-index it"},
	{"kpipe-hidden-induction", KP_LEVEL_WARNING,
	 "the load phase reaches the counter where the rewrite cannot advance it"},
	{"kpipe-cond-side-effect", KP_LEVEL_WARNING, "the loop condition has a side effect"},
	{"kpipe-unknown-effect", KP_LEVEL_WARNING,
	 "the compute phase writes memory kpipe cannot name (a call it cannot read, asm, a pointer it cannot follow)"},
	{"kpipe-kernel-error", KP_LEVEL_WARNING, "clang reports an error inside the kernel"},
	{"kpipe-transform-failed", KP_LEVEL_WARNING, "the rewrite could not be produced"},
	{"kpipe-rewrite-invalid", KP_LEVEL_WARNING,
	 "the rewritten file would not compile, so nothing was written"},
	{"kpipe-verify-failed", KP_LEVEL_WARNING,
	 "the rewrite gave other results than the original on the CPU emulator, so nothing was written"},
	{"kpipe-unverified", KP_LEVEL_WARNING,
	 "(warning with a rewrite) the rewrite could not be run against the original on the CPU emulator; refused with `--require-verify`"},
	{"kpipe-pass-skipped", KP_LEVEL_WARNING,
	 "a pass left code that does not parse, so the passes after it did not run"},
	{"kpipe-no-such-kernel", KP_LEVEL_WARNING, "`--kernel NAME` names no kernel of the file"},
	{"kpipe-not-formatted", KP_LEVEL_REMARK,
	 "(remark) a `.clang-format` applies but clang-format could not run: the rewrite keeps kpipe's layout"},
	{"kpipe-error", KP_LEVEL_ERROR,
	 "kpipe's own error about a file (it cannot be read, parsed or written), in SARIF and JSON"},
	{"kpipe-inlined", KP_LEVEL_NOTE,
	 "(note) a load helper, a tile macro or a value accessor was inlined so that the loop is pipelined"},
	{"kpipe-inline-refused", KP_LEVEL_REMARK,
	 "(remark) why a load helper, a tile macro or a value accessor was not inlined"},
	{"kpipe-canonicalized", KP_LEVEL_NOTE,
	 "(note) a loop's load phase was written in the copy forms kpipe proves so that the loop is pipelined"},
	{"kpipe-canon-refused", KP_LEVEL_REMARK,
	 "(remark) why the canon pass left a refused loop's load phase as it was"},
	{"kpipe-bank-conflict", KP_LEVEL_WARNING,
	 "(analyze) a warp's shared-memory access hits one bank with several words"},
	{"kpipe-uncoalesced", KP_LEVEL_WARNING,
	 "(analyze) a warp's global access takes more 32-byte sectors than its bytes need"},
	{"kpipe-padded", KP_LEVEL_NOTE, "(note) `rewrite --pad` padded a shared array's rows"},
	{"kpipe-swizzled", KP_LEVEL_NOTE,
	 "(note) `rewrite --pad` XOR-swizzled a shared array's column index"},
	{"kpipe-pad-refused", KP_LEVEL_WARNING,
	 "`rewrite --pad` left a conflicted shared array as it was"},
	{"kpipe-no-predicted-gain", KP_LEVEL_REMARK,
	 "(remark) `--variant auto` left a loop alone: ptxas shows enough resident warps to hide the loads, register staging, the only variant, would halve them, nothing instantiates the kernel template, or the loop runs too few times (once, or 2 to 8 times inside another loop) for a next tile to overlap"},
	{"kpipe-pipelined", KP_LEVEL_NOTE,
	 "(note) the loop was pipelined: the variant, its stages and why"},
	{"kpipe-keep-occupancy", KP_LEVEL_NOTE,
	 "(note) `rewrite --keep-occupancy` or `--raise-occupancy`: the `__launch_bounds__` added to the kernel, or why none was"},
	{"kpipe-block-swizzled", KP_LEVEL_NOTE,
	 "(note) `rewrite --block-swizzle` remapped a kernel's blocks in groups of rows"},
	{"kpipe-block-swizzle-refused", KP_LEVEL_WARNING,
	 "`rewrite --block-swizzle` left a kernel's blocks as they were: the blocks may communicate or depend on their order, or (a remark) a 1-D grid gains nothing"},
	{"kpipe-registers-over-limit", KP_LEVEL_WARNING,
	 "the rewrite needs more registers per thread than a block of its size may use, and no `__launch_bounds__` bounds them (a note when ptxas could not be asked)"},
	{"kpipe-compiler-error", KP_LEVEL_ERROR,
	 "(error) a compiler run kpipe made (the ptxas probe) failed: nothing is written"},
	{"kpipe-template-tiles", KP_LEVEL_WARNING,
	 "a kernel template's tiles are sized by parameters no instantiation in the file fixes: the doubled tiles were not checked against the static limit"},
};
const int kp_ndiag_ids = (int)(sizeof(kp_diag_ids) / sizeof(kp_diag_ids[0]));

const kp_diag_id *kp_diag_id_find(const char *id)
{
	for (int i = 0; id && i < kp_ndiag_ids; i++)
		if (!strcmp(kp_diag_ids[i].id, id))
			return &kp_diag_ids[i];
	return NULL;
}

const char *kp_level_name(kp_level level)
{
	static const char *const names[] = {"error", "warning", "remark", "note"};
	return names[level];
}

const char *kp_diag_level(const char *id)
{
	const kp_diag_id *d = kp_diag_id_find(id);
	return kp_level_name(d ? d->level : KP_LEVEL_WARNING);
}

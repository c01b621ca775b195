#!/usr/bin/env bash
# pending_gpu.sh - the GPU measurements this tree still owes, in one call
# (the device tool's time is short: one script, one run).  On the GPU
# machine, with build/kpipe built here and carried with .debs/:
#
#   OUT=$OUT bash bench/pending_gpu.sh [PART...]
#
# Parts (all by default), each writing under $OUT/PART/:
#   tune      tests/gpu/tune.sh (the early stop of clearly slower variants
#             and the phases in the JSON), then kpipe tune's time on the
#             four slowest samples of 2026-12-02, with and without
#             compute-sanitizer (#17: under 30 s for a 6-variant kernel)
#   bulk      wmma_bulk_half's 8-stage bulk ring, rerun after the harness
#             fix (dynamic shared memory attribute), with sanitizers at
#             five sizes (#19)
#   samples   the samples added since the last GPU run (SAMPLES=... to
#             name others): every variant bench/make_variants.sh writes,
#             bit for bit, sanitizers, timed (bench/gpu_samples.sh)
#   memory    bench/transpose.sh: the transposes padded and swizzled, the
#             K-loop samples padded / swizzled / pipelined (#20)
#   swz       bench/swz_gpu.sh run: the block-swizzle versions of the
#             families (carry gpu-swz, made by `swz_gpu.sh prepare`) (#35)
#   tmaloops  bench/tma_gpu.sh on the copy-loop samples wmma_loop_tma and
#             sgemm_loop_tma: tma with 2-4 stages against bulk and the best
#             cp.async ring (#35)
#   production  bench/production_gpu.py run --only "$PRODUCTION_ONLY"
#             (default zlanhe; carry gpu-production) $PRODUCTION_ARGS (#34)
#   hemm      the register variants of tests/cpudiff/kernels/hemm_overloads
#             (made here into gpu-hemm/out by bench/make_variants.sh; carry
#             gpu-hemm) against the original (#34)
#   lowflop   every variant of the little-arithmetic kernels of
#             tests/cpudiff/kernels (made here into gpu-lowflop/out by
#             `SAMPLES_DIR=tests/cpudiff/kernels ONLY="$LOWFLOP" bash
#             bench/make_variants.sh gpu-lowflop/out`; carry gpu-lowflop):
#             the data of auto's rules for memory-bound tiles of 16-byte
#             copies (#35; docs/benchmarks.md, "Memory-bound tiles");
#             LOWFLOP names the kernels (default: the nine measured there)
#   heldout   the held-out kernels (carry gpu-heldout, made by
#             `bench/heldout_gpu.py prepare`): every version built at once,
#             then timed one at a time at the target size (HELDOUT_ONLY:
#             name parts, comma-separated, limit the rows); HELDOUT_SAN
#             (name parts) also runs those rows' checks and sanitizers at
#             every size (#35)
#   convnet   the same for cuda-convnet2's runs (carry gpu-convnet, made by
#             `bench/convnet_gpu.py prepare`; CONVNET_ONLY) (#35)
#   heldout-san  every held-out version checked bit for bit at every size
#             of its description and run under memcheck, racecheck and
#             synccheck (Kernel Tuner's rows checked only), issue 34's
#             "bit-identical and sanitizer-clean"; convnet-san the same
#             for cuda-convnet2's runs
#   cpudiff   every variant of the CPU checker's kernels CPUDIFF names
#             (made here into gpu-new/out by `SAMPLES_DIR=gpu-new/src bash
#             bench/make_variants.sh gpu-new/out`, the kernels and their
#             launch descriptions copied into gpu-new/src; carry gpu-new):
#             bit for bit, sanitizers, timed
# PART_TIMEOUT=S stops a part after S seconds (exit 124); PACK=FILE.tgz
# packs $OUT into FILE after each part, so that what a call that runs out
# of time has measured still comes back in one file.
# Prints one line per part with its exit status; the parts' own outputs
# are their reports.  docs/benchmarks.md says what each figure is.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root" || exit 2
out="${OUT:-$root/pending-gpu-out}"
kpipe="${KPIPE:-$root/build/kpipe}"
# shellcheck source=bench/device_env.sh
# (the heldout, convnet and cpudiff parts run no kpipe)
source "$root/bench/device_env.sh" "$kpipe" || echo "pending_gpu.sh: kpipe does not run here" >&2
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(tune bulk memory)
mkdir -p "$out"
limit=
[ -z "${PART_TIMEOUT:-}" ] || limit="timeout $PART_TIMEOUT"
{
	date -u +%Y-%m-%dT%H:%M:%SZ
	nvidia-smi -L 2>&1
	"$kpipe" --version
} >"$out/env.txt" 2>&1
status=0
for part in "${parts[@]}"; do
	mkdir -p "$out/$part"
	t0=$(date +%s)
	case "$part" in
	tune)
		KPIPE="$kpipe" bash tests/gpu/tune.sh >"$out/tune/gpu_tune_test.txt" 2>&1
		rc=$?
		OUT="$out/tune/nosan" PHASES=tune TUNE_ARGS=--no-sanitize \
			SAMPLES="matmul_compute_helper matmul_persistent wmma_persistent_staged matmul_32x32" \
			bash bench/gpu_tune.sh "$kpipe" >"$out/tune/nosan.log" 2>&1 || rc=1
		OUT="$out/tune/san" PHASES=tune \
			SAMPLES="matmul_compute_helper matmul_persistent wmma_persistent_staged matmul_32x32" \
			bash bench/gpu_tune.sh "$kpipe" >"$out/tune/san.log" 2>&1 || rc=1
		;;
	bulk)
		KPIPE="$kpipe" OUT="$out/bulk" SANITIZE=1 SANITIZE_SIZES=tiny,small,even,odd,empty \
			BULK="bulk bulk-s8:--stages=8" bash bench/bulk_profile.sh wmma_bulk_half:2 \
			>"$out/bulk/report.md" 2>&1
		rc=$?
		;;
	samples)
		names="${SAMPLES:-matmul_guard_temp knn_dist_blocks matmul_decl_in_loop}"
		ONLY="$names" bash bench/make_variants.sh "$out/samples/variants" "$kpipe" \
			>"$out/samples/make_variants.log" 2>&1
		# shellcheck disable=SC2086
		OUT="$out/samples" bash bench/gpu_samples.sh "$out/samples/variants" $names \
			>"$out/samples/gpu_samples.log" 2>&1
		rc=$?
		;;
	memory)
		KPIPE="$kpipe" OUT="$out/memory" bash bench/transpose.sh 8192 51 \
			>"$out/memory/report.md" 2>&1
		rc=$?
		;;
	swz)
		OUT="$out/swz" $limit bash bench/swz_gpu.sh run >"$out/swz/run.log" 2>&1
		rc=$?
		;;
	tmaloops)
		KPIPE="$kpipe" OUT="$out/tmaloops" TMA_SAMPLES="wmma_loop_tma:4 sgemm_loop_tma:3" \
			$limit bash bench/tma_gpu.sh >"$out/tmaloops/run.log" 2>&1
		rc=$?
		;;
	production)
		# shellcheck disable=SC2086 # PRODUCTION_ARGS: more options of `run`
		$limit python3 bench/production_gpu.py run --only "${PRODUCTION_ONLY:-zlanhe}" \
			${PRODUCTION_ARGS:-} --out "$out/production" >"$out/production/run.log" 2>&1
		rc=$?
		;;
	hemm)
		SAMPLES_DIR="$root/tests/cpudiff/kernels" OUT="$out/hemm" \
			$limit bash bench/gpu_samples.sh gpu-hemm/out hemm_overloads >"$out/hemm/run.log" 2>&1
		rc=$?
		;;
	lowflop)
		# shellcheck disable=SC2086 # LOWFLOP: a list of names
		SAMPLES_DIR="$root/tests/cpudiff/kernels" OUT="$out/lowflop" $limit bash bench/gpu_samples.sh \
			gpu-lowflop/out ${LOWFLOP:-zrow_abs zcol_absmax zrow_nrm2sq scol_sumsq_f4 srow_sum_f4 zgemm_like second_kloop_cover zcolnrm16 sinterleave_f4} \
			>"$out/lowflop/run.log" 2>&1
		rc=$?
		;;
	heldout | convnet)
		py="bench/${part}_gpu.py"
		only=HELDOUT_ONLY
		[ "$part" = convnet ] && only=CONVNET_ONLY
		only="${!only:-}"
		python3 "$py" run --out "$out/$part/build" --compile-only --parallel 16 \
			--only "$only" --build-root "/tmp/kp-$part" >"$out/$part/compile.log" 2>&1
		rc=$?
		# shellcheck disable=SC2086 # $limit: a command and its argument
		$limit python3 "$py" run --out "$out/$part/timed" --no-sanitize --parallel 1 \
			--only "$only" --sizes target --build-root "/tmp/kp-$part" \
			>"$out/$part/timed.log" 2>&1 || rc=1
		if [ "$part" = heldout ] && [ -n "${HELDOUT_SAN:-}" ]; then
			$limit python3 "$py" run --out "$out/$part/san" --no-time --parallel 8 \
				--only "$HELDOUT_SAN" >"$out/$part/san.log" 2>&1 || rc=1
		fi
		;;
	heldout-san)
		# every held-out version bit for bit at every size, with
		# memcheck, racecheck and synccheck (Kernel Tuner's rows without
		# the sanitizers: their runner is the library's); the build root
		# of the heldout part is reused where it ran first
		$limit python3 bench/heldout_gpu.py run --out "$out/$part/san" --no-time --parallel 14 \
			--exclude kt_doc --exclude kt_examples --build-root /tmp/kp-heldout \
			>"$out/$part/san.log" 2>&1
		rc=$?
		$limit python3 bench/heldout_gpu.py run --out "$out/$part/kt" --no-time --no-sanitize \
			--parallel 4 --only kt_doc,kt_examples --build-root /tmp/kp-heldout \
			>"$out/$part/kt.log" 2>&1 || rc=1
		;;
	convnet-san)
		$limit python3 bench/convnet_gpu.py run --out "$out/$part/san" --no-time --parallel 8 \
			--build-root /tmp/kp-convnet >"$out/$part/san.log" 2>&1
		rc=$?
		;;
	cpudiff)
		# shellcheck disable=SC2086 # CPUDIFF: a list of names
		SAMPLES_DIR="$root/gpu-new/src" OUT="$out/cpudiff" $limit bash bench/gpu_samples.sh \
			gpu-new/out ${CPUDIFF:?CPUDIFF names the kernels} >"$out/cpudiff/run.log" 2>&1
		rc=$?
		;;
	*)
		echo "pending_gpu.sh: unknown part '$part' (tune, bulk, samples, memory, swz, tmaloops, production, hemm, lowflop, heldout, convnet, heldout-san, convnet-san, cpudiff)" >&2
		rc=2
		;;
	esac
	echo "$part: exit $rc in $(($(date +%s) - t0)) s" | tee -a "$out/parts.txt"
	[ "$rc" = 0 ] || status=1
	[ -z "${PACK:-}" ] || tar czf "$PACK" -C "$(dirname "$out")" "$(basename "$out")"
done
exit $status

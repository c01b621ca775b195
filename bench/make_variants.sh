#!/usr/bin/env bash
# make_variants.sh - runs kpipe on every sample for each variant (register,
# register-ca, register-2bar, cp-async with 2, 3 and 4 stages, bulk and tma
# with 2, 3 and 4 stages for sm_90) and writes OUTDIR/NAME.VARIANT.cu (the
# layout bench/run_gpu.sh reads).  A refused variant gets no file (kpipe
# writes its input unchanged: that file is removed, it would be timed
# as a variant); kpipe's diagnostics go to OUTDIR/NAME.VARIANT.log.
#
#   bash bench/make_variants.sh [OUTDIR] [KPIPE]
#
# ONLY="name1 name2" limits it to those samples; SAMPLES_DIR another folder
# of kernels with launch descriptions (NAME.cu, NAME.launch.json).  On the GPU machine
# kpipe runs through bench/device_env.sh.
set -u
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:-$root/gpu-out}"
kpipe="${2:-$root/build/kpipe}"
mkdir -p "$out"
if [ -n "${ONLY:-}" ]; then # only those samples' files go
	for name in $ONLY; do rm -f "$out/$name".*.cu "$out/$name".*.log; done
else
	rm -f "$out"/*.cu "$out"/*.log
fi
# shellcheck source=bench/device_env.sh
source "$root/bench/device_env.sh" "$kpipe" || exit 1
for src in "${SAMPLES_DIR:-$root/samples}"/*.cu; do
	name=$(basename "$src" .cu)
	if [ -n "${ONLY:-}" ] && [[ " $ONLY " != *" $name "* ]]; then continue; fi
	for v in cp-async register register-ca register-2bar; do
		"$kpipe" rewrite --variant "$v" "$src" -o "$out/$name.$v.cu" "${KPIPE_PARSE_ARGS[@]}" 2>"$out/$name.$v.log"
		rc=$?
		# a refusal writes the input unchanged: no file
		if cmp -s "$src" "$out/$name.$v.cu"; then rm -f "$out/$name.$v.cu"; fi
		echo "$name $v rc=$rc"
	done
	for n in 3 4; do
		"$kpipe" rewrite --variant cp-async --stages $n "$src" -o "$out/$name.cp-async-s$n.cu" "${KPIPE_PARSE_ARGS[@]}" 2>"$out/$name.cp-async-s$n.log"
		rc=$?
		if cmp -s "$src" "$out/$name.cp-async-s$n.cu"; then rm -f "$out/$name.cp-async-s$n.cu"; fi
		echo "$name cp-async-s$n rc=$rc"
	done
	# bulk copies (sm_90+): refused, with no file, where the copies are not whole rows
	for n in 2 3 4; do
		v=bulk
		[ $n = 2 ] || v=bulk-s$n
		"$kpipe" rewrite --variant bulk --stages $n --arch sm_90 "$src" -o "$out/$name.$v.cu" "${KPIPE_PARSE_ARGS[@]}" 2>"$out/$name.$v.log"
		rc=$?
		# a refusal writes the input unchanged: no file
		if cmp -s "$src" "$out/$name.$v.cu"; then rm -f "$out/$name.$v.cu"; fi
		echo "$name $v rc=$rc"
	done
	# the tensor-map form (sm_90+): refused, with no file, where the kernel
	# is not launched in its file or the copies are not boxes of a matrix
	for n in 2 3 4; do
		v=tma
		[ $n = 2 ] || v=tma-s$n
		"$kpipe" rewrite --variant tma --stages $n --arch sm_90 "$src" -o "$out/$name.$v.cu" "${KPIPE_PARSE_ARGS[@]}" 2>"$out/$name.$v.log"
		rc=$?
		if cmp -s "$src" "$out/$name.$v.cu"; then rm -f "$out/$name.$v.cu"; fi
		echo "$name $v rc=$rc"
	done
done

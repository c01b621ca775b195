#!/usr/bin/env bash
# prepare.sh - on the build machine (no GPU): the versions the H200 run of
# bulk-mbar measures, into build-h-empty-gpu/ at the repository root, which
# the device run carries: for each sample its source and launch spec
# (samples/), and out/NAME.VARIANT.cu for cp-async (2, 3, 4 stages),
# register, register-2bar, bulk and bulk-mbar (2, 3, 4 stages: bulk,
# bulk-s3, bulk-s4, bulk-mbar, bulk-mbar-s3, bulk-mbar-s4), plus
# NAME.bulk-mbar-nofallback.cu for the samples whose every tile is
# bulk-copied (the bulk-mbar output with __trap() where the plain-copy
# fallback arrives: the check shows the bulk path ran).  A variant kpipe
# refuses gets no file.
#
#   bash bench/results/2026-12-02-h200-bulk-mbar/prepare.sh [KPIPE]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
kpipe="${1:-$root/build/kpipe}"
G="$root/build-h-empty-gpu"
rm -rf "$G"
mkdir -p "$G/out" "$G/samples"
git -C "$root" rev-parse --short HEAD >"$G/COMMIT"
all="sgemm_at_bulk matmul_bulk_float matmul_32x32 matmul_cuda_sample_style sgemm_bulk_guarded wmma_bulk_half matmul_guarded"
# every tile bulk-copied at every size of the spec (no guard, aligned rows)
whole="sgemm_at_bulk matmul_bulk_float matmul_32x32 matmul_cuda_sample_style wmma_bulk_half"
for n in $all; do
	src="$root/samples/$n.cu"
	cp "$src" "$root/samples/$n.launch.json" "$G/samples/"
	for job in "cp-async 2 cp-async" "cp-async 3 cp-async-s3" "cp-async 4 cp-async-s4" \
		"register 2 register" "register-2bar 2 register-2bar" \
		"bulk 2 bulk" "bulk 3 bulk-s3" "bulk 4 bulk-s4" \
		"bulk-mbar 2 bulk-mbar" "bulk-mbar 3 bulk-mbar-s3" "bulk-mbar 4 bulk-mbar-s4"; do
		read -r v st tag <<<"$job"
		out="$G/out/$n.$tag.cu"
		if ! "$kpipe" rewrite --arch sm_90 --variant "$v" --stages "$st" "$src" -o "$out" 2>"$G/out/$n.$tag.log" ||
			cmp -s "$src" "$out"; then
			echo "$n $tag: not rewritten ($(grep -o 'kpipe-[a-z0-9-]*' "$G/out/$n.$tag.log" | sort -u | tr '\n' ' '))"
			rm -f "$out"
		fi
	done
	case " $whole " in *" $n "*)
		python3 - "$G/out/$n.bulk-mbar.cu" "$G/out/$n.bulk-mbar-nofallback.cu" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
# the fallback's arrival: thread 0's plain mbarrier.arrive on a full barrier
pat = re.compile(r"(kp_mbar_arrive\(&kp_full\[[^\]]*\]\));")
new, n = pat.subn(r"(__trap(), \1);", text)
assert n >= 2, n
open(sys.argv[2], "w").write(new)
PY
		;;
	esac
done
ls "$G/out"/*.cu | wc -l

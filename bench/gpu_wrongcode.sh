#!/usr/bin/env bash
# gpu_wrongcode.sh - the GPU half of the wrong-kernel checks: every kpipe
# rewrite run against its original on the GPU, with compute-sanitizer
# memcheck, racecheck and synccheck on each, for
#   gpu-out/    every sample x every variant (bench/make_variants.sh), the
#               persistent-kernel sample among them;
#   gpu-fuzz/   generated K-loops (tests/cpudiff/gen_loops.py) x every variant
#               kpipe accepts for them;
#   gpu-bad/    the wrong rewrites earlier kpipe builds wrote with exit 0
#               (tests/cpudiff/bad/*/kernel.kpipe.cu) next to what kpipe
#               writes for the same input now, which must pass where the old
#               one fails.
# Two halves, because kpipe runs here and the GPU is elsewhere:
#   PREPARE=1 bash bench/gpu_wrongcode.sh [KPIPE]   here: writes the three
#             folders (git-ignored; carry them to the GPU machine)
#   bash bench/gpu_wrongcode.sh                     there: runs gpu_bench.py
#             on each, writes $OUT/{samples,fuzz,bad}.{md,json} and
#             $OUT/summary.txt
# PARTS="bad fuzz samples" selects the parts; FUZZ_SEED / FUZZ_COUNT the
# generated cases (default 11 / 24); SAMPLES_LIMIT_S bounds the samples part,
# SAMPLES_ARGS adds gpu_bench options to it (--no-time: check, do not time).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
kpipe="${1:-$root/build/kpipe}"
seed="${FUZZ_SEED:-11}"
count="${FUZZ_COUNT:-24}"

if [ "${PREPARE:-0}" = 1 ]; then
	bash "$root/bench/make_variants.sh" "$root/gpu-out" "$kpipe" >/dev/null
	rm -rf "$root/gpu-fuzz" "$root/gpu-bad"
	mkdir -p "$root/gpu-fuzz/src" "$root/gpu-fuzz/out" "$root/gpu-bad"
	python3 "$root/tests/cpudiff/gen_loops.py" --out "$root/gpu-fuzz/src" --seed "$seed" \
		--count "$count" >"$root/gpu-fuzz/axes.txt"
	for src in "$root"/gpu-fuzz/src/*.cu; do
		name=$(basename "$src" .cu)
		for v in cp-async register register-ca register-2bar; do
			"$kpipe" rewrite --variant "$v" "$src" -o "$root/gpu-fuzz/out/$name.$v.cu" 2>/dev/null
		done
		for n in 3 4; do
			"$kpipe" rewrite --variant cp-async --stages $n "$src" \
				-o "$root/gpu-fuzz/out/$name.cp-async-s$n.cu" 2>/dev/null
		done
	done
	for d in "$root"/tests/cpudiff/bad/*/; do
		name=$(basename "$d")
		[ -f "$d/kernel.launch.json" ] || continue
		mkdir -p "$root/gpu-bad/$name"
		cp "$d/kernel.cu" "$d/kernel.launch.json" "$root/gpu-bad/$name/"
		cp "$d/kernel.kpipe.cu" "$root/gpu-bad/$name/old.cu"
		args=()
		[ -f "$d/kpipe-args" ] && read -r -a args <"$d/kpipe-args"
		if "$kpipe" rewrite "${args[@]}" "$d/kernel.cu" -o "$root/gpu-bad/$name/now.cu" \
			2>"$root/gpu-bad/$name/now.log"; then
			echo "$name: rewritten now" >>"$root/gpu-bad/summary.txt"
		else
			echo "$name: refused now: $(grep -o '\[kpipe-[a-z-]*\]' "$root/gpu-bad/$name/now.log" | sort -u | tr '\n' ' ')" \
				>>"$root/gpu-bad/summary.txt"
		fi
	done
	echo "prepared: $(ls "$root"/gpu-out/*.cu | wc -l) sample rewrites, $(ls "$root"/gpu-fuzz/out/*.cu | wc -l) fuzz rewrites of $count cases, $(ls -d "$root"/gpu-bad/*/ | wc -l) old wrong rewrites"
	exit 0
fi

out="${OUT:-$root/gpu-wrongcode-out}"
mkdir -p "$out"
parts="${PARTS:-bad fuzz samples}"
export PYTHONUNBUFFERED=1
status=0
{
	date -u +%Y-%m-%dT%H:%M:%SZ
	nvidia-smi -L 2>&1
	echo "commit: ${KPIPE_COMMIT:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)}"
} >"$out/summary.txt"
bench="$root/bench/gpu_bench.py"
case " $parts " in *" fuzz "*)
	python3 "$bench" --all "$root/gpu-fuzz/out" --samples-dir "$root/gpu-fuzz/src" --sanitize \
		--no-hand --no-ref --no-time --sizes tiny,small,odd,even,empty --sanitize-size odd --quiet \
		--report "$out/fuzz.md" --json "$out/fuzz.json" >"$out/fuzz.log" 2>&1
	rc=$?
	echo "fuzz: gpu_bench exit $rc ($(ls "$root"/gpu-fuzz/out/*.cu | wc -l) rewrites)" >>"$out/summary.txt"
	[ $rc = 0 ] || status=1
	;;
esac
case " $parts " in *" bad "*)
	for d in "$root"/gpu-bad/*/; do
		name=$(basename "$d")
		vs=(--variant "old=$d/old.cu")
		[ -f "$d/now.cu" ] && vs+=(--variant "now=$d/now.cu")
		python3 "$bench" --spec "$d/kernel.launch.json" --baseline "$d/kernel.cu" "${vs[@]}" \
			--sanitize --no-time --sizes tiny,small --sanitize-size small --quiet \
			--report "$out/bad-$name.md" --json "$out/bad-$name.json" >"$out/bad-$name.log" 2>&1
		echo "bad $name: gpu_bench exit $? (the old rewrite is expected to fail)" >>"$out/summary.txt"
	done
	;;
esac
case " $parts " in *" samples "*)
	# shellcheck disable=SC2086 # SAMPLES_ARGS: extra gpu_bench options, split
	timeout "${SAMPLES_LIMIT_S:-3000}" python3 "$bench" --all "$root/gpu-out" --sanitize --no-hand --no-ref --quiet \
		${SAMPLES_ARGS:-} --report "$out/samples.md" --json "$out/samples.json" >"$out/samples.log" 2>&1
	rc=$?
	echo "samples: gpu_bench exit $rc" >>"$out/summary.txt"
	[ $rc = 0 ] || status=1
	;;
esac
cat "$out/summary.txt"
# the device tool brings back few files: one archive of everything
tar -C "$out" -czf "$out/../gpu-wrongcode.tgz" . && mv "$out/../gpu-wrongcode.tgz" "$out/all.tgz"
exit $status

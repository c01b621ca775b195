# lib.sh - shared by tests/cpudiff/samples.sh and fuzz.sh (sourced, not run):
# the variants every rewrite is checked in, and one kpipe run per variant.
#
#   cpudiff_variants            array: cp-async, register, register-ca,
#                               register-2bar, cp-async:3, cp-async:4, or
#                               the words of $CPUDIFF_VARIANTS
#   cpudiff_rewrite KPIPE SRC V OUTDIR LOGDIR
#       runs `KPIPE rewrite --variant ... SRC -o OUTDIR/NAME.TAG.cu` for the
#       variant V ("cp-async:3" = --stages 3; bulk, sm_90 and
#       newer, with --arch sm_90), its stderr in
#       LOGDIR/NAME.TAG.kpipe; sets cpudiff_tag and cpudiff_out; returns 0
#       when a rewrite was written, 1 when kpipe refused (exit 0, the input
#       written unchanged), 2 on anything else.
# shellcheck shell=bash

# shellcheck disable=SC2034 # used by the scripts that source this
cpudiff_variants=("cp-async" "register" "register-ca" "register-2bar" "cp-async:3" "cp-async:4")
if [ -n "${CPUDIFF_VARIANTS:-}" ]; then
	read -r -a cpudiff_variants <<<"$CPUDIFF_VARIANTS"
fi

cpudiff_rewrite() {
	local kpipe=$1 src=$2 v=$3 outdir=$4 logdir=$5
	local name variant rc=0
	name=$(basename "$src" .cu)
	variant="${v%%:*}"
	# --no-verify: the check that follows is kpipe's verification with
	# more seeds (docs/verify.md); running both would double the time
	local args=(--no-verify --variant "$variant")
	cpudiff_tag="$variant"
	if [ "$v" != "$variant" ]; then
		args+=(--stages "${v#*:}")
		cpudiff_tag="$variant-${v#*:}stages"
	fi
	case "$variant" in bulk* | tma*) args+=(--arch sm_90) ;; esac
	cpudiff_out="$outdir/$name.$cpudiff_tag.cu"
	"$kpipe" rewrite "${args[@]}" "$src" -o "$cpudiff_out" 2>"$logdir/$name.$cpudiff_tag.kpipe" || rc=$?
	# nothing pipelined: exit 0, the input written unchanged
	if [ $rc -eq 0 ] && cmp -s "$cpudiff_out" "$src"; then
		return 1
	elif [ $rc -ne 0 ] || [ ! -s "$cpudiff_out" ]; then
		return 2
	fi
	return 0
}

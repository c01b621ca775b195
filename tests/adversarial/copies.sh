# shellcheck shell=bash disable=SC2154 # run.sh sets limit, tmp, in, nvcc, root
# tests/adversarial/copies.sh - sourced by run.sh (its kp, check, refused,
# rewritten, $in, $tmp): copies that are not what they look like (issue 31)
# and source passes that change their meaning.  Each input says in its first
# lines what it expects.

# forced NAME FILE VARIANT: rewrite -v --variant VARIANT, output in
# $tmp/NAME.VARIANT.rw.cu, stderr in $tmp/NAME.VARIANT.err
forced() {
	local name="$1" f="$2" v="$3"
	kp "$name.$v" "$limit" rewrite -v --variant "$v" "$f" -o "$tmp/$name.$v.rw.cu"
	check "$name --variant $v: answers cleanly" clean "$name.$v"
	check "$name --variant $v: exits 0" is_rc 0 "$name.$v"
}
# cp_async_at NAME LINE: the loop at LINE was pipelined with cp-async
cp_async_at() {
	check "$1: the loop at line $2 uses cp.async" \
		has "$1.cp-async" "\.cu:$2:5: note: pipelined with cp-async"
}
# no_cp_async_at NAME LINE PATTERN: the loop at LINE was refused cp.async, saying PATTERN
no_cp_async_at() {
	check "$1: the loop at line $2 is refused cp.async" \
		has "$1.cp-async" "\.cu:$2:5: warning: cp\.async was requested but .*$3.*\[kpipe-variant-unavailable\]"
}

# --- a source pointer into shared memory ----------------------------------------
rewritten copies_shared_source "$in/copies_shared_source.cu"
forced copies_shared_source "$in/copies_shared_source.cu" cp-async
no_cp_async_at copies_shared_source 26 "'hp' is not proven to point to global memory"
no_cp_async_at copies_shared_source 44 "'src' is not proven to point to global memory"
for line in 70 93 110 127; do cp_async_at copies_shared_source $line; done
forced copies_shared_source "$in/copies_shared_source.cu" register-ca
check "copies_shared_source: no __ldca on the shared source" \
	test "$(grep -c '__ldca(&(src\[' "$tmp/copies_shared_source.register-ca.rw.cu")" = 0
check "copies_shared_source: __ldca on the global sources" \
	test "$(grep -c '__ldca(&(A\[' "$tmp/copies_shared_source.register-ca.rw.cu")" -ge 3

# --- a 16-byte copy of a type aligned to 4 bytes -----------------------------------
rewritten copies_misaligned "$in/copies_misaligned.cu"
forced copies_misaligned "$in/copies_misaligned.cu" cp-async
no_cp_async_at copies_misaligned 28 "16 B of 'const Quad', whose alignment is 4 B"
for line in 47 66; do cp_async_at copies_misaligned $line; done

# --- two copies into one tile element ---------------------------------------------
rewritten copies_same_element "$in/copies_same_element.cu"
forced copies_same_element "$in/copies_same_element.cu" cp-async
no_cp_async_at copies_same_element 20 "the copies into 'As' at lines 21 and 22 are not proven to write different elements"
no_cp_async_at copies_same_element 36 "each trip writes the same element"
for line in 53 70 88 107; do cp_async_at copies_same_element $line; done

# --- tiles of a type that is not trivially copyable ----------------------------------
rewritten copies_nontrivial "$in/copies_nontrivial.cu"
for line in 35:9 50:9; do
	check "copies_nontrivial: the loop with the copy at $line refused" has copies_nontrivial.r \
		"copies_nontrivial\.cu:$line: warning: the elements of 'As' are of type '(Counted|Derived)', which is not trivially copyable.*\[kpipe-copy-not-trivial\]"
done
check "copies_nontrivial: k_tmpl refused for its instantiation <Counted>" has copies_nontrivial.r \
	"copies_nontrivial\.cu:82:9: warning: for instantiation <Counted>: the elements of 'As' are of type 'Counted'.*\[kpipe-copy-not-trivial\]"
check "copies_nontrivial: k_plain pipelined" has copies_nontrivial.r "copies_nontrivial\.cu:65:5: note: pipelined with"

# --- a copy loop without trips in one instantiation ----------------------------------
rewritten copies_zero_trips "$in/copies_zero_trips.cu"
check "copies_zero_trips: k_zero refused for <8, 512>" has copies_zero_trips.r \
	"copies_zero_trips\.cu:17:9: warning: for instantiation <8, 512>: the copy loop at line 17 runs no trip.*\[kpipe-loop-shape\]"
check "copies_zero_trips: k_some pipelined" has copies_zero_trips.r "copies_zero_trips\.cu:38:5: note: pipelined with"
forced copies_zero_trips "$in/copies_zero_trips.cu" register
if [ -n "$nvcc" ]; then
	check "copies_zero_trips: the register form compiles" \
		"$nvcc" -arch=sm_90 -c "$tmp/copies_zero_trips.register.rw.cu" -o "$tmp/copies_zero_trips.o"
fi

# The CPU checks below keep their builds and runs in the tests' cpudiff
# cache (KPIPE_CPUDIFF_CACHE, by content): the sanitizer tree's run checks
# the plain tree's rewrites, the same bytes (CI time).
# --- a zero fill that is no zero ---------------------------------------------------
rewritten copies_zero_fill "$in/copies_zero_fill.cu"
forced copies_zero_fill "$in/copies_zero_fill.cu" cp-async
no_cp_async_at copies_zero_fill 21 "line 22: the value stored when the guard fails, .make_far\(\)., is not a zero kpipe can prove"
for line in 52 68 84; do cp_async_at copies_zero_fill $line; done
kp copies_zero_fill.far "$limit" rewrite --kernel k_far "$in/copies_zero_fill.cu" -o "$tmp/copies_zero_fill.far.cu"
check "copies_zero_fill: k_far's rewrite matches the original on the CPU" \
	bash "$root/tests/cpudiff/cpudiff.sh" "$in/copies_zero_fill.cu" "$tmp/copies_zero_fill.far.cu" \
	--spec "$in/copies_zero_fill.launch.json" --jobs 1 -q \
	--cache "${KPIPE_CPUDIFF_CACHE:-$tmp/cpudiff-cache}"

# --- a macro parameter followed by a member ----------------------------------------
rewritten copies_macro_member "$in/copies_macro_member.cu"
check "copies_macro_member: A_AT(pos, kk) expanded with pos" \
	grep -qE 'acc \+= As(\[kp_stage\])?\[pos\.r\]\[kk\] \* \(float\)\(kk \+ 1\);' "$tmp/copies_macro_member.rw.cu"
check "copies_macro_member: B_AT(pp, kk) expanded with pp" \
	grep -qF 'acc += Bs[kp_stage][kk][pp->c];' "$tmp/copies_macro_member.rw.cu"
kp copies_macro_member.k "$limit" rewrite --kernel k_member "$in/copies_macro_member.cu" -o "$tmp/copies_macro_member.k.cu"
check "copies_macro_member: k_member's rewrite matches the original on the CPU" \
	bash "$root/tests/cpudiff/cpudiff.sh" "$in/copies_macro_member.cu" "$tmp/copies_macro_member.k.cu" \
	--spec "$in/copies_macro_member.launch.json" --jobs 1 -q \
	--cache "${KPIPE_CPUDIFF_CACHE:-$tmp/cpudiff-cache}"

# --- a macro redefined inside the loop ----------------------------------------------
rewritten copies_macro_redefined "$in/copies_macro_redefined.cu"
check "copies_macro_redefined: k_redef refused" has copies_macro_redefined.r \
	"copies_macro_redefined\.cu:19:5: warning: line 22: the macro 'ROW' is #undef'd inside the loop.*\[kpipe-macro-redefined\]"
for line in 38 55; do
	check "copies_macro_redefined: the loop at line $line pipelined" has copies_macro_redefined.r \
		"copies_macro_redefined\.cu:$line:5: note: pipelined with"
done

# --- the next tile's store reads a per-tile descriptor ------------------------------
rewritten copies_next_descriptor "$in/copies_next_descriptor.cu"
for v in register register-2bar; do
	forced copies_next_descriptor "$in/copies_next_descriptor.cu" $v
	check "copies_next_descriptor --variant $v: the store reading rot[t + 1] is guarded" \
		grep -qzE 'if \(kp_has_next[_0-9]*\) \{[[:space:]]*As(\[kp_stage \^ 1\])?\[ty\]\[\(tx \+ \(rot\[\(t \+ 1\)\]' \
		"$tmp/copies_next_descriptor.$v.rw.cu"
	check "copies_next_descriptor --variant $v: the plain store is not" \
		grep -qzE ';[[:space:]]*\{[[:space:]]*As(\[kp_stage \^ 1\])?\[ty\]\[\(tx \+ \(t \+ 1\)\) % T\] = kp_reg0\[0\];' \
		"$tmp/copies_next_descriptor.$v.rw.cu"
done

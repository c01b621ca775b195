#!/usr/bin/env bash
# safety.sh - "never lose code": a rewrite interrupted by SIGTERM or SIGINT
# while it writes (-o, -i, a batch with -j 2) leaves no temporary file and
# no partial output, exits with the signal's status and leaves an -i input
# as it was; -o naming the input (also as ./dir/../FILE or a symbolic link)
# behaves like -i; -i keeps the mode (0640, 0755) and --backup-suffix makes
# a byte-identical copy with the same mode; an unwritable destination, a
# file-size limit (ulimit -f: EFBIG, kpipe must not die of SIGXFSZ) and a
# full file system (ENOSPC, a 16 KiB tmpfs) are reported with "cannot
# write" and exit 3, leaving the original intact; in a batch the failing
# file is reported and the others are still written.
#
# Interruption is made deterministic with the test hook
# KPIPE_TEST_WRITE_DELAY_MS (docs/reliability.md): kpipe sleeps between
# writing its temporary file and renaming it; the test waits for the
# .kpipe-tmp-* file, then sends the signal.
#
# Checks that need what the machine does not offer (a non-root user for
# chmod 0555, root and mount namespaces for tmpfs and read-only binds)
# print "SKIP: ..." and do not fail.  Prints "N passed, N failed".
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
kp_tmpdir safety
# how long to wait for the temporary file (kpipe may run under valgrind)
wait_s="${SAFETY_WAIT_S:-300}"
same() { cmp -s "$1" "$2"; }
mode_of() { stat -c %a "$1"; }
no_tmp() { ! find "$1" -name '.kpipe-tmp-*' | grep -q .; }
has() { grep -q -- "$2" "$1"; }
# a batch's precompiled headers (kpipe-batch-*; kpipe-stub-UID is a cache)
no_batch_dir() { ! ls -A "$1" | grep -q '^kpipe-batch-'; }
no_worker() { ! pgrep -f "rewrite $1" >/dev/null; } # no sh -c: it would match itself
cd "$root" || exit 1
sample=samples/matmul_32x32.cu # its rewrite is 2.5 KiB
# the reference: the sample alone (without its launch description)
mkdir -p "$tmp/refsrc"
cp "$sample" "$tmp/refsrc/k.cu"
"$kpipe" rewrite "$tmp/refsrc/k.cu" -o "$tmp/ref.cu" 2>/dev/null
if [ ! -s "$tmp/ref.cu" ]; then
	echo "FAIL: cannot rewrite $sample"
	exit 1
fi

# A background job of a non-interactive shell starts with SIGINT ignored,
# and kpipe (rightly) leaves an ignored signal alone: give it the default.
if env --default-signal=INT true 2>/dev/null; then
	dflt=(env --default-signal=INT,TERM,HUP)
else
	dflt=(perl -e '$SIG{$_} = "DEFAULT" for qw(INT TERM HUP); exec @ARGV or die')
fi

# Waits until a .kpipe-tmp-* file exists under DIR (or the job is gone).
wait_tmp() { # DIR PID
	local n=$((wait_s * 10))
	while [ $n -gt 0 ]; do
		find "$1" -name '.kpipe-tmp-*' 2>/dev/null | grep -q . && return 0
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.1
		n=$((n - 1))
	done
	return 1
}

# --- interrupted while writing ------------------------------------------------
interrupt() { # SIG -o|-i
	local sig="$1" mode="$2" d="$tmp/sig-$1$2" args
	mkdir -p "$d"
	cp "$sample" "$d/k.cu"
	chmod 0640 "$d/k.cu"
	cp -p "$d/k.cu" "$tmp/sig-$1$2.before"
	# the write is what is interrupted: no verification or ptxas probe
	# before it (under load they took longer than SAFETY_WAIT_S), and no
	# cache: the delay is every atomic write's, and the re-parse guard's
	# entry (a cold cache) is written before the output
	if [ "$mode" = -o ]; then args=(k.cu -o out.cu); else args=(-i k.cu); fi
	args+=(--no-verify --no-ptxas)
	(cd "$d" && KPIPE_CACHE_DIR=off KPIPE_TEST_WRITE_DELAY_MS=600000 exec "${dflt[@]}" "$kpipe" rewrite "${args[@]}") \
		2>"$tmp/sig-$1$2.err" &
	local pid=$!
	check "$sig $mode: a temporary file appears while writing" wait_tmp "$d" $pid
	kill -s "$sig" $pid 2>/dev/null
	wait $pid
	local rc=$?
	check "$sig $mode: exit status is the signal's (got $rc)" test $rc -eq $((128 + $(kill -l "$sig")))
	check "$sig $mode: no temporary file left" no_tmp "$d"
	if [ "$mode" = -o ]; then
		check "$sig $mode: no output written" test ! -e "$d/out.cu"
		check "$sig $mode: only the input left" test "$(ls -A "$d")" = k.cu
	else
		check "$sig $mode: the input is byte-identical" same "$d/k.cu" "$tmp/sig-$1$2.before"
		check "$sig $mode: the input keeps its mode" test "$(mode_of "$d/k.cu")" = 640
	fi
}
for sig in TERM INT; do
	for mode in -o -i; do
		interrupt $sig $mode
	done
done

# --- -o naming the input behaves like -i --------------------------------------
d="$tmp/same"
mkdir -p "$d/sub"
for spelling in k.cu ./sub/../k.cu "$d/k.cu" link.cu; do
	cp "$sample" "$d/k.cu"
	chmod 0640 "$d/k.cu"
	ln -sfn k.cu "$d/link.cu"
	(cd "$d" && "$kpipe" rewrite k.cu -o "$spelling") >"$tmp/same.out" 2>"$tmp/same.err"
	rc=$?
	check "-o $spelling (the input): exit 0 (got $rc)" test $rc -eq 0
	check "-o $spelling (the input): rewritten in place" same "$d/k.cu" "$tmp/ref.cu"
	check "-o $spelling (the input): mode kept" test "$(mode_of "$d/k.cu")" = 640
	check "-o $spelling (the input): the link is still a link" test -L "$d/link.cu"
	check "-o $spelling (the input): no other file" test "$(ls -A "$d" | tr '\n' ' ')" = "k.cu link.cu sub "
	check "-o $spelling (the input): nothing on stdout" test ! -s "$tmp/same.out"
done
# -i through a symbolic link writes the file it points to
cp "$sample" "$d/k.cu"
(cd "$d" && "$kpipe" rewrite -i link.cu) 2>/dev/null
check "-i LINK: the link stays a link" test -L "$d/link.cu"
check "-i LINK: its target is rewritten" same "$d/k.cu" "$tmp/ref.cu"

# --- -i keeps the mode; --backup-suffix ---------------------------------------
for m in 640 755; do
	d="$tmp/mode$m"
	mkdir -p "$d"
	cp "$sample" "$d/k.cu"
	chmod "$m" "$d/k.cu"
	"$kpipe" rewrite -i "$d/k.cu" 2>/dev/null
	check "-i: exit 0, mode $m" test $? -eq 0
	check "-i: mode $m kept" test "$(mode_of "$d/k.cu")" = $m
	check "-i: rewritten (mode $m)" same "$d/k.cu" "$tmp/ref.cu"
	cp "$sample" "$d/b.cu"
	chmod "$m" "$d/b.cu"
	"$kpipe" rewrite -i --backup-suffix .orig "$d/b.cu" 2>/dev/null
	check "--backup-suffix: exit 0 (mode $m)" test $? -eq 0
	check "--backup-suffix: the copy is byte-identical (mode $m)" same "$d/b.cu.orig" "$sample"
	check "--backup-suffix: the copy has mode $m" test "$(mode_of "$d/b.cu.orig")" = $m
	check "--backup-suffix: the file is rewritten, mode $m" \
		test "$(mode_of "$d/b.cu")" = $m -a "$(cmp -s "$d/b.cu" "$tmp/ref.cu" && echo y)" = y
	check "--backup-suffix: no temporary file (mode $m)" no_tmp "$d"
done

# --- unwritable destinations ---------------------------------------------------
# expect_fail NAME RC ERRFILE: "cannot write" reported, exit 3
expect_fail() {
	check "$1: exit 3 (got $2)" test "$2" -eq 3
	check "$1: 'cannot write' reported" has "$3" "cannot write"
}
d="$tmp/unw"
mkdir -p "$d"
cp "$sample" "$d/k.cu"
cp "$sample" "$d/file"
"$kpipe" rewrite "$d/k.cu" -o "$d/file/out.cu" 2>"$tmp/e"
expect_fail "-o under a regular file" $? "$tmp/e"
"$kpipe" rewrite "$d/k.cu" -o /proc/kpipe-no-such-dir/out.cu 2>"$tmp/e"
expect_fail "-o under /proc" $? "$tmp/e"
mkdir -p "$d/isdir.cu"
"$kpipe" rewrite "$d/k.cu" -o "$d/isdir.cu" 2>"$tmp/e"
expect_fail "-o naming a directory" $? "$tmp/e"
check "unwritable: input intact, nothing else written" \
	test "$(ls -A "$d" | tr '\n' ' ')" = "file isdir.cu k.cu " -a "$(cmp -s "$d/k.cu" "$sample" && echo y)" = y
check "unwritable: the directory named by -o is untouched" test -z "$(ls -A "$d/isdir.cu")"
# --backup-suffix whose copy cannot be written: the input is not touched
mkdir -p "$d/k.cu.orig"
"$kpipe" rewrite -i --backup-suffix .orig "$d/k.cu" 2>"$tmp/e"
expect_fail "-i, backup path is a directory" $? "$tmp/e"
check "-i, backup path is a directory: input intact" same "$d/k.cu" "$sample"
check "unwritable: no temporary file" no_tmp "$d"

if [ "$(id -u)" != 0 ]; then
	d="$tmp/ro"
	mkdir -p "$d"
	cp "$sample" "$d/k.cu"
	chmod 0555 "$d"
	"$kpipe" rewrite -i "$d/k.cu" 2>"$tmp/e"
	expect_fail "-i in a 0555 directory" $? "$tmp/e"
	check "-i in a 0555 directory: input intact" same "$d/k.cu" "$sample"
	"$kpipe" rewrite "$sample" -o "$d/out.cu" 2>"$tmp/e"
	expect_fail "-o into a 0555 directory" $? "$tmp/e"
	check "0555 directory: nothing added" test "$(ls -A "$d")" = k.cu
	chmod 0755 "$d"
else
	echo "SKIP: running as root, which ignores chmod 0555: read-only bind mount instead (below)"
fi

# --- file-size limit: ulimit -f (EFBIG, not death by SIGXFSZ) ------------------
d="$tmp/fsize"
mkdir -p "$d"
cp "$sample" "$d/k.cu"
(ulimit -f 1 && exec "$kpipe" rewrite "$d/k.cu" -o "$d/out.cu") 2>"$tmp/e"
rc=$?
expect_fail "ulimit -f 1, -o" $rc "$tmp/e"
check "ulimit -f 1, -o: not killed by SIGXFSZ" test $rc -ne $((128 + $(kill -l XFSZ)))
check "ulimit -f 1, -o: the error is the size limit" has "$tmp/e" "File too large"
check "ulimit -f 1, -o: no output" test ! -e "$d/out.cu"
(ulimit -f 1 && exec "$kpipe" rewrite -i "$d/k.cu") 2>"$tmp/e"
expect_fail "ulimit -f 1, -i" $? "$tmp/e"
check "ulimit -f 1, -i: input intact" same "$d/k.cu" "$sample"
check "ulimit -f 1: no temporary file, nothing else" test "$(ls -A "$d")" = k.cu

# --- a full file system (tmpfs) and a read-only one: root only ------------------
# In a private mount namespace, so nothing stays mounted whatever happens.
ns_ok=0
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null &&
	unshare -m --propagation private sh -c "mount -t tmpfs -o size=16k tmpfs '$tmp'" 2>/dev/null; then
	ns_ok=1
fi
if [ $ns_ok = 1 ]; then
	d="$tmp/full"
	mkdir -p "$d/mnt"
	cp "$sample" "$d/k.cu"
	# mount 16 KiB, put the input in, fill the rest, then rewrite
	unshare -m --propagation private bash -c '
		set -e
		mount -t tmpfs -o size=16k tmpfs "$1/mnt"
		cp "$1/k.cu" "$1/mnt/k.cu"
		dd if=/dev/zero of="$1/mnt/fill" bs=1k count=64 2>/dev/null || true
		set +e
		"$2" rewrite "$1/mnt/k.cu" -o "$1/mnt/out.cu" 2>"$1/e-o"; echo $? >"$1/rc-o"
		"$2" rewrite -i --backup-suffix .orig "$1/mnt/k.cu" 2>"$1/e-b"; echo $? >"$1/rc-b"
		rm -f "$1/mnt/k.cu.orig"
		"$2" rewrite -i "$1/mnt/k.cu" 2>"$1/e-i"; echo $? >"$1/rc-i"
		cp "$1/mnt/k.cu" "$1/after.cu"
		ls -A "$1/mnt" | tr "\n" " " >"$1/ls"
	' _ "$d" "$kpipe"
	expect_fail "full tmpfs, -o" "$(cat "$d/rc-o")" "$d/e-o"
	check "full tmpfs: the error is ENOSPC" has "$d/e-o" "No space left on device"
	expect_fail "full tmpfs, -i --backup-suffix" "$(cat "$d/rc-b")" "$d/e-b"
	expect_fail "full tmpfs, -i" "$(cat "$d/rc-i")" "$d/e-i"
	check "full tmpfs, -i: input intact" same "$d/after.cu" "$sample"
	check "full tmpfs: no output, no temporary file, no backup" test "$(cat "$d/ls")" = "fill k.cu "

	d="$tmp/robind"
	mkdir -p "$d/ro"
	cp "$sample" "$d/ro/k.cu"
	unshare -m --propagation private bash -c '
		mount --bind "$1/ro" "$1/ro" && mount -o remount,bind,ro "$1/ro" || exit 99
		"$2" rewrite -i "$1/ro/k.cu" 2>"$1/e-i"; echo $? >"$1/rc-i"
		"$2" rewrite "$1/ro/k.cu" -o "$1/ro/out.cu" 2>"$1/e-o"; echo $? >"$1/rc-o"
	' _ "$d" "$kpipe"
	if [ -f "$d/rc-i" ]; then
		expect_fail "read-only mount, -i" "$(cat "$d/rc-i")" "$d/e-i"
		expect_fail "read-only mount, -o" "$(cat "$d/rc-o")" "$d/e-o"
		check "read-only mount: input intact, nothing added" \
			test "$(ls -A "$d/ro")" = k.cu -a "$(cmp -s "$d/ro/k.cu" "$sample" && echo y)" = y
	else
		echo "SKIP: cannot remount a bind read-only here: read-only destination not tested"
	fi
else
	echo "SKIP: no tmpfs in a private mount namespace (needs root and unshare -m): ENOSPC and read-only mounts not tested"
fi

# --- batches ------------------------------------------------------------------
# four files; rewritten sizes: matmul_32x32 2.5 KiB, matmul_tilecount 2.3 KiB,
# sgemm_128x128x8 4.9 KiB, wmma_fp16_64x64x32 6.2 KiB
mk_tree() { # DIR
	mkdir -p "$1/b"
	cp samples/matmul_32x32.cu "$1/a.cu"
	cp samples/sgemm_128x128x8.cu "$1/b/c.cu"
	cp samples/matmul_tilecount.cu "$1/d.cu"
	cp samples/wmma_fp16_64x64x32.cu "$1/e.cu"
	cp -r "$1" "$1.before"
}
d="$tmp/batch1"
mk_tree "$d/src"
mkdir -p "$d/out"
printf 'not a directory\n' >"$d/out/b" # b/c.cu cannot go there
"$kpipe" rewrite "$d/src" --out-dir "$d/out" -j 2 2>"$tmp/e"
check "batch --out-dir, one unwritable: exit 3" test $? -eq 3
check "batch --out-dir, one unwritable: the file is reported" has "$tmp/e" "b/c.cu"
check "batch --out-dir, one unwritable: the others are written" \
	test -s "$d/out/a.cu" -a -s "$d/out/d.cu" -a -s "$d/out/e.cu"
check "batch --out-dir, one unwritable: the inputs are untouched" diff -r "$d/src" "$d/src.before"
check "batch --out-dir: no temporary file" no_tmp "$d"

d="$tmp/batch2"
mk_tree "$d/src"
mkdir -p "$d/out" "$d/t"
(ulimit -f 3 && TMPDIR="$d/t" exec "$kpipe" rewrite "$d/src" --out-dir "$d/out" -j 2) 2>"$tmp/e"
check "batch --out-dir, ulimit -f 3: exit 3" test $? -eq 3
check "batch --out-dir, ulimit -f 3: the big ones are reported" \
	test "$(grep -c 'cannot write.*File too large' "$tmp/e")" -eq 2
check "batch --out-dir, ulimit -f 3: the small ones are written" \
	test "$(cd "$d/out" && find . -type f | sort | tr '\n' ' ')" = "./a.cu ./d.cu "
check "batch --out-dir, ulimit -f 3: no temporary file" no_tmp "$d"
check "batch --out-dir, ulimit -f 3: no batch directory left" no_batch_dir "$d/t"
# the precompiled header a batch builds first is megabytes: under the limit
# it is skipped with a reason, not written until LLVM aborts on EFBIG (the
# worker used to die by SIGXFSZ/SIGABRT and the note said nothing)
rm -rf "$d/out"
(ulimit -f 3 && TMPDIR="$d/t" exec "$kpipe" rewrite -v "$d/src" --out-dir "$d/out" -j 2) 2>"$tmp/e"
check "batch --out-dir, ulimit -f 3: no precompiled header, and why" \
	grep -q 'no precompiled header for .*file-size limit (ulimit -f) is below 64 MiB' "$tmp/e"

d="$tmp/batch3"
mk_tree "$d/src"
mkdir -p "$d/src/a.cu.orig" # a.cu's backup cannot be written
(ulimit -f 3 && exec "$kpipe" rewrite -i --backup-suffix .orig "$d/src" -j 2) 2>"$tmp/e"
check "batch -i, backup and size failures: exit 3" test $? -eq 3
check "batch -i: the failing files are reported" \
	test "$(grep -c 'cannot write' "$tmp/e")" -eq 3
check "batch -i: a.cu (backup failed) untouched" same "$d/src/a.cu" "$d/src.before/a.cu"
check "batch -i: b/c.cu (too large) untouched" same "$d/src/b/c.cu" "$d/src.before/b/c.cu"
check "batch -i: e.cu (too large) untouched" same "$d/src/e.cu" "$d/src.before/e.cu"
check "batch -i: d.cu rewritten" test "$(cmp -s "$d/src/d.cu" "$d/src.before/d.cu" || echo changed)" = changed
check "batch -i: d.cu's backup is the original" same "$d/src/d.cu.orig" "$d/src.before/d.cu"
check "batch -i: no temporary file" no_tmp "$d"

# interrupted batches: the parent passes the signal on, every child removes
# its temporary file, and none of them goes on writing
interrupt_batch() { # SIG --out-dir|-i
	local sig="$1" mode="$2" d="$tmp/bsig-$1$2" args
	mk_tree "$d/src"
	mkdir -p "$d/out" "$d/t"
	if [ "$mode" = -i ]; then args=(-i); else args=(--out-dir "$d/out"); fi
	args+=(--no-verify --no-ptxas)
	# (no cache: the guard's entries would be the first writes delayed)
	(TMPDIR="$d/t" KPIPE_CACHE_DIR=off KPIPE_TEST_WRITE_DELAY_MS=600000 exec "${dflt[@]}" "$kpipe" rewrite "$d/src" \
		"${args[@]}" -j 2) 2>"$tmp/bsig.err" &
	local pid=$!
	check "batch $sig $mode: a temporary file appears" wait_tmp "$d" $pid
	kill -s "$sig" $pid 2>/dev/null
	wait $pid
	local rc=$?
	check "batch $sig $mode: exit status is the signal's (got $rc)" \
		test $rc -eq $((128 + $(kill -l "$sig")))
	check "batch $sig $mode: no temporary file" no_tmp "$d"
	check "batch $sig $mode: no output" test -z "$(find "$d/out" -type f)"
	check "batch $sig $mode: inputs untouched" diff -r "$d/src" "$d/src.before"
	check "batch $sig $mode: no batch directory left" no_batch_dir "$d/t"
	check "batch $sig $mode: no worker still running" no_worker "$d/src"
}
interrupt_batch TERM --out-dir
interrupt_batch INT -i

kp_summary

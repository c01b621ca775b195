#!/usr/bin/env bash
# keep_occupancy.sh - `rewrite --keep-occupancy` and `--raise-occupancy`
# (src/rewrite/occ_bound.c, issue 35), with ptxas: a rewrite that loses a
# block per SM to registers gets __launch_bounds__(THREADS, MINBLOCKS)
# (THREADS from the launch description, or a second argument added to the
# kernel's own bound), the bounded kernel verified on the CPU emulator as
# any rewrite; a bound that makes ptxas spill is dropped; a kernel with a
# minimum already, a K-loop in a __device__ function, an unknown block, a
# launch whose block kpipe does not read are refused with the reason; a
# rewrite that loses nothing is left as the variant writes it; without the
# option nothing changes; tune builds V+occ.  Figures from CUDA 13.0's
# ptxas for sm_90 (the registers are matched loosely where another ptxas
# may differ by a few).
# Exit 77 (skipped) when nvcc is missing.
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
kp_find_nvcc
unset KPIPE_NO_PTXAS
kp_tmpdir keep-occupancy
s="$root/samples"
note='\[kpipe-keep-occupancy\]'

# occ NAME VARIANT [OPTION]: rewrite samples/NAME.cu (its launch
# description beside it) into $tmp/NAME-VARIANT.cu, notes in .err
occ() {
	"$kpipe" rewrite "$s/$1.cu" --variant "$2" "${3:---keep-occupancy}" -v \
		-o "$tmp/$1-$2.cu" 2>"$tmp/$1-$2.err"
}

# 1. register staging of matmul_vec_loader: 64 -> 70 registers, 4 -> 3
# blocks of 256 threads (the launch description's block); the bound keeps 4
occ matmul_vec_loader register
check "vec_loader: exit 0" test $? = 0
check "vec_loader: bound added before the kernel's name" \
	grep -q '__global__ void __launch_bounds__(256, 4) matmul_vec_loader(' "$tmp/matmul_vec_loader-register.cu"
check "vec_loader: the note gives the figures" \
	grep -q "note: __launch_bounds__(256, 4) added (ptxas: 64 -> [0-9]* registers, 4 -> 3 blocks of 256 threads per SM.*THREADS from launch description): with it [0-9]* registers, 4 blocks per SM, no more spills $note" "$tmp/matmul_vec_loader-register.err"
check "vec_loader: verified on the CPU emulator (no warning)" \
	bash -c "! grep -q 'warning:' '$tmp/matmul_vec_loader-register.err'"
"$kpipe" rewrite "$s/matmul_vec_loader.cu" --variant register -o "$tmp/plain.cu" 2>/dev/null
check "vec_loader: the bound is the only difference" \
	bash -c "diff '$tmp/plain.cu' '$tmp/matmul_vec_loader-register.cu' | grep '^[<>]' | grep -v '^[<>] __global__ void' | wc -l | grep -qx 0"
check "without the option: no bound" bash -c "! grep -q '__launch_bounds__' '$tmp/plain.cu'"
nvcc -arch=sm_90 -cubin -Xptxas -v -I "$s" -o "$tmp/b.cubin" "$tmp/matmul_vec_loader-register.cu" 2>"$tmp/ptxas.txt"
check "vec_loader: ptxas holds it to 64 registers" grep -q 'Used 64 registers' "$tmp/ptxas.txt"

# 2. the kernel's own __launch_bounds__(NT): a second argument added
occ matmul_tile_pointer register
check "tile_pointer: (NT, 3)" grep -q '__global__ void __launch_bounds__(NT, 3)' "$tmp/matmul_tile_pointer-register.cu"
check "tile_pointer: THREADS from its bound" \
	grep -q "__launch_bounds__(256, 3) added (ptxas: 80 -> [0-9]* registers, 3 -> 2 blocks.*THREADS from the kernel's __launch_bounds__)" "$tmp/matmul_tile_pointer-register.err"

# 3. the spill rule: cp-async of matmul_tile_pointer at 80 registers spills
occ matmul_tile_pointer cp-async
check "tile_pointer cp-async: dropped for the spills" \
	grep -q "note: dropped: __launch_bounds__(256, 3) (ptxas: 80 -> [0-9]* registers, 3 -> 2 blocks.*but with it ptxas spills (80 registers, [1-9][0-9]* B of spill stores and loads) where it spilled nothing $note" "$tmp/matmul_tile_pointer-cp-async.err"
check "tile_pointer cp-async: its bound as written" grep -q '__global__ void __launch_bounds__(NT)$' "$tmp/matmul_tile_pointer-cp-async.cu"
# --raise-occupancy keeps it and says what it spills
occ matmul_tile_pointer cp-async --raise-occupancy
check "--raise-occupancy: kept with its spills" \
	grep -q "__launch_bounds__(256, 3) added.*[1-9][0-9]* B of spill stores and loads where it had 0 (--raise-occupancy keeps it" "$tmp/matmul_tile_pointer-cp-async.err"
check "--raise-occupancy: (NT, 3)" grep -q '__launch_bounds__(NT, 3)' "$tmp/matmul_tile_pointer-cp-async.cu"

# 4. a minimum of blocks already: left as written
sed 's/__launch_bounds__(NT)/__launch_bounds__(NT, 1)/' "$s/matmul_tile_pointer.cu" >"$tmp/min1.cu"
cp "$s/matmul_tile_pointer.launch.json" "$tmp/min1.launch.json"
"$kpipe" rewrite "$tmp/min1.cu" --variant register --keep-occupancy -o "$tmp/min1-out.cu" 2>"$tmp/min1.err"
check "a minimum already: left as written" \
	grep -q "no __launch_bounds__ added: the kernel already has __launch_bounds__ with a minimum of blocks per SM, left as written $note" "$tmp/min1.err"
check "a minimum already: (NT, 1) kept" grep -q '__launch_bounds__(NT, 1)$' "$tmp/min1-out.cu"

# 5. no block kpipe knows (matmul_ptr_bump without its launch
# description): refused, the loop pipelined anyway
cp "$s/matmul_ptr_bump.cu" "$tmp/noblock.cu"
"$kpipe" rewrite "$tmp/noblock.cu" --variant register --keep-occupancy -o "$tmp/noblock-out.cu" 2>"$tmp/noblock.err"
check "unknown block: refused with the reason" \
	grep -q "no __launch_bounds__ added: the block size is not known.*$note" "$tmp/noblock.err"
check "unknown block: pipelined, no bound" \
	bash -c "grep -q kp_reg '$tmp/noblock-out.cu' && ! grep -q __launch_bounds__ '$tmp/noblock-out.cu'"

# 6. a launch whose block kpipe does not read; a __device__ function's loop
occ matmul_template register
check "unread launch block: refused" \
	grep -q "no __launch_bounds__ added: the launch at line [0-9]* has a block kpipe does not read: a bound of 1024 threads could make it fail $note" "$tmp/matmul_template-register.err"
occ matmul_device_fn register
check "__device__ function: refused" \
	grep -q "no __launch_bounds__ added: the K-loop is in a __device__ function; the bound would go on the kernels that call it $note" "$tmp/matmul_device_fn-register.err"

# 7. a rewrite that loses no block: nothing added, the variant's text
occ sgemm_128x128x8 cp-async
"$kpipe" rewrite "$s/sgemm_128x128x8.cu" --variant cp-async -o "$tmp/sgemm-plain.cu" 2>/dev/null
check "no block lost: not needed" grep -q "note: not needed: the rewrite loses no blocks per SM to registers (ptxas: .*$note" "$tmp/sgemm_128x128x8-cp-async.err"
check "no block lost: the variant's text" cmp -s "$tmp/sgemm-plain.cu" "$tmp/sgemm_128x128x8-cp-async.cu"

# 8. the options' usage errors
"$kpipe" rewrite "$s/matmul_vec_loader.cu" --keep-occupancy --raise-occupancy -o /dev/null 2>"$tmp/both.err"
check "both options: usage error (exit 2)" test $? = 2
check "both options: said" grep -q 'give one' "$tmp/both.err"
"$kpipe" rewrite "$s/matmul_vec_loader.cu" --keep-occupancy --pad-only -o /dev/null 2>"$tmp/po.err"
check "with --pad-only: usage error" grep -q 'pipelines nothing' "$tmp/po.err"

# 9. tune builds V+occ (and V+raise) where the bound changes the rewrite
"$kpipe" tune "$s/matmul_vec_loader.cu" -o "$tmp/t.cu" --gpu-dir "$tmp/gd" >"$tmp/t.out" 2>"$tmp/t.err"
check "tune: register+occ written with the bound" grep -q '__launch_bounds__(256, 4) matmul_vec_loader(' "$tmp/gd/register+occ.cu"
check "tune: register+occ is rewrite --keep-occupancy's text" \
	cmp -s "$tmp/gd/register+occ.cu" "$tmp/matmul_vec_loader-register.cu"
# each variant's rewrite has ptxas's budget of one `kpipe rewrite`: the
# later variants' bounds are built too
check "tune: cp-async+raise (256, 5), past the first variants' compilations" \
	grep -q '__launch_bounds__(256, 5) matmul_vec_loader(' "$tmp/gd/cp-async+raise.cu"
check "tune: no cp-async+occ (cp-async loses no block)" test ! -e "$tmp/gd/cp-async+occ.cu"
check "tune: only the +occ and +raise builds are bounded" \
	bash -c "cd '$tmp/gd' && ! grep -l __launch_bounds__ *.cu | grep -v '+occ.cu\$\|+raise.cu\$'"

kp_summary

// Fixture of tests/cli/swizzle.sh: a 48 KB half tile (384 rows of 128
// bytes) filled with 16-byte cp.async copies and read by ldmatrix.x4 and
// by 16-byte vector loads down a column, 8-way conflicts.  Padding its rows
// by the 8 halfs that keep 16-byte rows would take 55296 bytes, over the
// static limit, so --pad-only swizzles its 16-byte chunks instead:
// t[r][c ^ ((r & 7) << 3)].
#include <cuda_fp16.h>
#include <cuda_pipeline.h>

__global__ void ldm_big(const half *g, float *out)
{
	__shared__ __align__(128) half t[384][64];
	const int tx = threadIdx.x;
	// lane L copies 16-byte chunk L % 8 of row r + L / 8
	for (int r = 0; r < 384; r += 4)
		__pipeline_memcpy_async(&t[r + tx / 8][(tx % 8) * 8],
					&g[(r + tx / 8) * 64 + (tx % 8) * 8], 16);
	__pipeline_commit();
	__pipeline_wait_prior(0);
	__syncthreads();
	t[5][tx] = __float2half(1.0f);
	__syncthreads();
	unsigned r0, r1, r2, r3;
	// lane L gives row L % 16, 16-byte column L / 16
	unsigned a = static_cast<unsigned>(
		__cvta_generic_to_shared(&t[tx % 16][(tx / 16) * 8]));
	asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
		     : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
		     : "r"(a));
	uint4 v = *reinterpret_cast<const uint4 *>(&t[tx][8]);
	out[tx] = (float)(r0 + r1 + r2 + r3 + v.x + v.w);
}

void launch(const half *g, float *out)
{
	ldm_big<<<1, 32>>>(g, out);
}

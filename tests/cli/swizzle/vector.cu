// Fixture of tests/cli/swizzle.sh: float4 accesses of rows 64 bytes long.
// The column read of w (8 lanes per phase, rows 64 bytes apart) is a
// 4-way conflict: two rows share 128 bytes, so the swizzle that removes it
// leaves the row's bit 0 out, w[r][c ^ (((r >> 1) & 3) << 2)], in units of
// 4 floats that keep every float4 whole.  Padding (4 floats) works too:
// --swizzle picks the swizzle.
__global__ void vec(const float4 *g, float *out)
{
	__shared__ __align__(16) float w[64][16];
	const int tx = threadIdx.x;
	for (int r = 0; r < 64; r += 8)
		*reinterpret_cast<float4 *>(&w[r + tx / 4][(tx % 4) * 4]) = g[r * 4 + tx];
	__syncthreads();
	float4 v = *reinterpret_cast<const float4 *>(&w[tx][0]);
	out[tx] = v.x + v.y + v.z + v.w + w[tx / 4][tx % 16];
}

void launch(const float4 *g, float *out)
{
	vec<<<1, 32>>>(g, out);
}

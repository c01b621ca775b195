// Fixture of tests/cli/swizzle.sh: template kernels, judged for every
// instantiation.  big<96>'s tile is 48 KB, so no padding fits it (big<32>'s
// would): big is swizzled.  tr<48>'s rows of 48 floats let an XOR permute
// blocks of 16 floats at most, which leaves tr<32>'s column read 2-way: with
// --swizzle, tr is padded all the same.
template <int R>
__global__ void big(const float *in, float *out)
{
	__shared__ float s[R][128];
	const int tx = threadIdx.x;
	for (int r = 0; r < R; ++r)
		s[r][tx] = in[r * 128 + tx];
	__syncthreads();
	for (int c = 0; c < 128; ++c)
		out[c * 32 + tx] = s[tx][c];
}

template <int W>
__global__ void tr(const float *in, float *out)
{
	__shared__ float t[32][W];
	const int tx = threadIdx.x;
	for (int r = 0; r < 32; ++r)
		t[r][tx] = in[r * W + tx];
	__syncthreads();
	for (int c = 0; c < 32; ++c)
		out[c * 32 + tx] = t[tx][c];
}

void launch(const float *in, float *out)
{
	big<32><<<1, 32>>>(in, out);
	big<96><<<1, 32>>>(in, out);
	tr<32><<<1, 32>>>(in, out);
	tr<48><<<1, 32>>>(in, out);
}

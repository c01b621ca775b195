// Fixture of tests/cli/swizzle.sh: conflicted arrays no swizzle may touch,
// each for its own reason (analysed with --block 32).  Padding works for
// some of them: --swizzle then pads and says why it did not swizzle.
#define AT(a, r, c) a[r][c]

__device__ int pick(int r)
{
	return r;
}

__global__ void refusals(float *out)
{
	const int tx = threadIdx.x;
	float acc = 0;
	// an access written by a macro
	__shared__ float m1[32][32];
	m1[0][tx] = 1;
	acc += AT(m1, tx, 0);
	// named in a branch of #if that is not compiled
	__shared__ float m2[32][32];
	m2[0][tx] = 1;
	acc += m2[tx][0];
#if 0
	acc += m2[1][tx];
#endif
	// a row index that calls a function
	__shared__ float m3[32][32];
	m3[pick(tx)][0] = 1;
	acc += m3[tx][0];
	// a column index that reads shared memory
	__shared__ float m4[32][32];
	__shared__ int sel[32];
	sel[tx] = tx;
	acc += m4[tx][0] + m4[tx][sel[tx] % 2];
	// rows of 33 floats: no power-of-two block of columns to permute, and
	// every padding leaves rows an even number of banks apart
	__shared__ float m5[64][33];
	acc += m5[2 * tx][0];
	// a column index before its row's start: the last element of the row
	// before
	__shared__ float m6[32][32];
	m6[0][tx] = 1;
	acc += m6[tx][tx / 32 - 1];
	out[tx] = acc;
}

// A loop pipelined by hand with one barrier, its two buffers swapped through
// pointers: kpipe does not see a copy into shared memory behind a barrier,
// so the loop is no K-loop and its refusals are remarks, never warnings
// (issue 33: quiet by default).
#define TS 16
__global__ void hand_swap(const float *A, float *C, int K)
{
	__shared__ float buf0[TS * TS];
	__shared__ float buf1[TS * TS];
	int tx = threadIdx.x, ty = threadIdx.y;
	float acc = 0.0f;
	float *cur = buf0, *nxt = buf1;
	cur[ty * TS + tx] = A[ty * K + tx];
	__syncthreads();
	for (int k0 = 0; k0 < K; k0 += TS) {
		if (k0 + TS < K)
			nxt[ty * TS + tx] = A[ty * K + k0 + TS + tx];
		for (int kk = 0; kk < TS; ++kk)
			acc += cur[ty * TS + kk];
		__syncthreads();
		float *t = cur;
		cur = nxt;
		nxt = t;
	}
	C[ty * TS + tx] = acc;
}

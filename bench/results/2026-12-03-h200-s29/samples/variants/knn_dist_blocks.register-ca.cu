// knn_dist_blocks.cu - the squared Euclidean distance between every
// reference point and every query point (the first step of a brute-force
// k-nearest-neighbours search), for points stored one dimension per row:
// ref[d * nref + i] is dimension d of reference point i, qry likewise.
// dist[i * nq + j] = sum over d of (ref[d][i] - qry[d][j])^2.  16x16 thread
// blocks, one distance per thread, any nref, nq and dim.
//
// The K-loop walks the dimensions 16 at a time.  Each step stages 16
// dimensions of 16 reference points and of 16 query points, and writes
// the two tiles in one if/else whose branches are blocks:
//
//     if (d0 + ty < dim) {
//         Rs[ty][tx] = rin ? ref[...] : 0.0f;
//         Qs[ty][tx] = qin ? qry[...] : 0.0f;
//     } else {
//         Rs[ty][tx] = 0.0f;
//         Qs[ty][tx] = 0.0f;
//     }
//
// (the shape of a well-known kNN CUDA code).  The analysis reads an
// if/else as a guarded copy only when each branch is one copy.
//
// kpipe: PIPELINE.  The "canon" pass splits the if/else into one if/else
// per tile (the condition has no side effect and reads no memory the
// copies write), and the pipeline pass pipelines the loop with register
// staging; cp.async does not apply to a ternary guard nested in an if.

#define BD 16

__global__ void knn_dist_blocks(const float *__restrict__ ref, int nref,
                                const float *__restrict__ qry, int nq, int dim,
                                float *__restrict__ dist)
{
    __shared__ float Rs[2][BD][BD];
    __shared__ float Qs[2][BD][BD];

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int r0 = blockIdx.y * BD;
    const int q0 = blockIdx.x * BD;
    // the points this thread copies exist (fixed for the whole loop)
    const bool rin = r0 + tx < nref;
    const bool qin = q0 + tx < nq;
    float ssd = 0.0f;

    // kpipe: register staging (no tile read from a const __restrict__ parameter: plain loads), 2 buffers: requested with --variant register-ca
    {
        int d0 = 0;
        int kp_stage = 0;
        float kp_reg0[1] = {}; // kpipe: one-element arrays, not scalars: fewer registers (docs/design.md)
        float kp_reg1[1] = {};
        if (d0 < dim) {
            // dimension d0 + ty of both point sets; past the last one, zeros
            if (d0 + ty < dim)
                Rs[0][ty][tx] = rin ? ref[(size_t)(d0 + ty) * nref + r0 + tx] : 0.0f;
            else
                Rs[0][ty][tx] = 0.0f;
            if (d0 + ty < dim)
                Qs[0][ty][tx] = qin ? qry[(size_t)(d0 + ty) * nq + q0 + tx] : 0.0f;
            else
                Qs[0][ty][tx] = 0.0f;
        }
        __syncthreads();
        for (; d0 < dim; d0 += BD) {
            const bool kp_has_next = (d0 + BD) < dim;
            if (kp_has_next) {
                // dimension d0 + ty of both point sets; past the last one, zeros
                if ((d0 + BD) + ty < dim)
                    kp_reg0[0] = rin ? ref[(size_t)((d0 + BD) + ty) * nref + r0 + tx] : 0.0f;
                else
                    kp_reg0[0] = 0.0f;
                if ((d0 + BD) + ty < dim)
                    kp_reg1[0] = qin ? qry[(size_t)((d0 + BD) + ty) * nq + q0 + tx] : 0.0f;
                else
                    kp_reg1[0] = 0.0f;
                __syncwarp(); // kpipe: keeps the loads above the math (ptxas)
            }

            for (int k = 0; k < BD; ++k) {
                const float t = Rs[kp_stage][k][ty] - Qs[kp_stage][k][tx];
                ssd += t * t;
            }
            {
                Rs[kp_stage ^ 1][ty][tx] = kp_reg0[0];
                Qs[kp_stage ^ 1][ty][tx] = kp_reg1[0];
            }
            __syncthreads();
            kp_stage ^= 1;
        }
    }

    if (r0 + ty < nref && q0 + tx < nq)
        dist[(size_t)(r0 + ty) * nq + q0 + tx] = ssd;
}

// ---- launch shim of bench/heldout_gpu.py (ours, not the project's): the
// launch descriptions have no float4 buffers, so p and v come as float
// arrays of 4 * n and are passed to calculateBodyForce as n_body.cu's main
// passes them (calculateBodyForce<<<nBlocks, BLOCK_SIZE>>>(pos, vel, dt, n))
// kpipe-launch: launcher(calculateBodyForce) = heldout_launch_calculateBodyForce
static void heldout_launch_calculateBodyForce(dim3 grid, dim3 block, size_t smem,
                                              cudaStream_t stream, float *p, float *v,
                                              float dt, int n)
{
    calculateBodyForce<<<grid, block, smem, stream>>>((float4 *)p, (float4 *)v, dt, n);
}

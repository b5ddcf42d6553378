// A kernel with no race on which compute-sanitizer's racecheck reports one: the reason
// `getrf_lookahead` (kernels/batched_lu.cu) has warp 0 pass barriers of its own
// (`pass_barriers`). Warp 0 works alone while warps 1.. pass named barrier 1 among themselves
// ROUNDS times; then, between two block-wide barriers, warp WRITER writes 32 shared words, and
// after the second one warp 0 reads them. Every access is ordered by __syncthreads, yet with
// warps 1.. ahead of warp 0 by a few barrier-1 passes racecheck reports a RAW hazard between
// the write and the read; with PAD = 1 warp 0 passes as many barriers of its own (named barrier
// 2, 32 threads) and the report goes away.
//
// Usage: racecheck_barrier_count THREADS ROUNDS WRITER PAD
//   compute-sanitizer --tool racecheck ./racecheck_barrier_count 256 3 2 0   # 1 hazard
//   compute-sanitizer --tool racecheck ./racecheck_barrier_count 256 3 2 1   # 0 hazards
#include <cstdio>
#include <cstdlib>

__device__ __forceinline__ void sync1() { asm volatile("bar.sync 1, %0;" ::"r"(blockDim.x - 32) : "memory"); }

extern "C" __global__ void barrier_count(double* out, int rounds, int writer, int pad) {
    __shared__ double s[512];
    const int t = threadIdx.x, w = t >> 5, lane = t & 31;
    double acc = 0;
    for (int i = t; i < 512; i += blockDim.x) s[i] = i;
    __syncthreads();
    for (int it = 0; it < 4; ++it) {
        if (w == 0) {
            // Warp 0 alone on s[256..288).
            for (int k = 0; k < 8; ++k) {
                acc += s[256 + lane];
                s[256 + lane] = acc;
                __syncwarp();
            }
            if (pad)
                for (int k = 0; k < 2 * rounds; ++k) asm volatile("bar.sync 2, 32;" ::: "memory");
        } else {
            // Warps 1.. on s[0..64), ordered by named barrier 1.
            const int g = t - 32;
            for (int k = 0; k < rounds; ++k) {
                sync1();
                if (g < 64) s[g] = acc + g;
                sync1();
                if (g < 64) acc += s[63 - g];
            }
        }
        __syncthreads();
        if (w == writer) s[128 + lane] = acc + lane;
        __syncthreads();
        if (w == 0) acc += s[128 + (lane * 7) % 32];
        __syncthreads();
    }
    out[blockIdx.x * blockDim.x + t] = acc;
}

int main(int argc, char** argv) {
    if (argc != 5) {
        printf("usage: racecheck_barrier_count THREADS ROUNDS WRITER PAD\n");
        return 2;
    }
    const int threads = atoi(argv[1]), rounds = atoi(argv[2]), writer = atoi(argv[3]), pad = atoi(argv[4]);
    if (threads < 64 || threads > 256 || threads % 32 || writer < 1 || writer >= threads / 32) {
        printf("THREADS: 64..256, a multiple of 32; WRITER: 1..THREADS/32-1\n");
        return 2;
    }
    double* o;
    cudaMalloc(&o, sizeof(double) * 2 * threads);
    barrier_count<<<2, threads>>>(o, rounds, writer, pad);
    printf("threads %d rounds %d writer %d pad %d: %s\n", threads, rounds, writer, pad,
           cudaGetErrorString(cudaDeviceSynchronize()));
    return 0;
}

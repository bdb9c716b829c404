/*
 * MPI_Allreduce benchmark printing the same columns as nccl-tests / ./jccl perf (out-of-place only), so
 * bench/sweeps/compare-openmpi.sh can put Open MPI beside JCCL from the same run.
 * Usage: mpirun -np N allreduce_bench MIN_BYTES MAX_BYTES FACTOR ITERS WARMUP
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    long minb = argc > 1 ? atol(argv[1]) : 8, maxb = argc > 2 ? atol(argv[2]) : 1 << 20;
    long factor = argc > 3 ? atol(argv[3]) : 4;
    int iters = argc > 4 ? atoi(argv[4]) : 100, warm = argc > 5 ? atoi(argv[5]) : 10;
    size_t cap = (size_t) maxb / sizeof(float) + 1;
    float *send = malloc(cap * sizeof(float)), *recv = malloc(cap * sizeof(float));
    if (rank == 0) {
        printf("# openmpi allreduce ranks %d\n#       size         count      type   redop    root     time   algbw   busbw  #wrong\n", n);
    }
    for (long bytes = minb; bytes <= maxb; bytes *= factor) {
        long count = bytes / sizeof(float);
        for (long i = 0; i < count; i++) send[i] = (float) ((rank + i) % 7);
        for (int i = 0; i < warm; i++) MPI_Allreduce(send, recv, (int) count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int i = 0; i < iters; i++) MPI_Allreduce(send, recv, (int) count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        double t = (MPI_Wtime() - t0) / iters, avg;
        MPI_Allreduce(&t, &avg, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        avg /= n;
        long wrong = 0;
        for (long i = 0; i < count; i++) {
            float exp = 0;
            for (int r = 0; r < n; r++) exp += (float) ((r + i) % 7);
            if (recv[i] != exp) wrong++;
        }
        long allWrong;
        MPI_Allreduce(&wrong, &allWrong, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        double algbw = bytes / avg / 1e9, busbw = algbw * 2.0 * (n - 1) / n;
        if (rank == 0) {
            printf("%12ld  %12ld     float     sum      -1  %7.2f  %6.2f  %6.2f  %6ld\n", bytes, count, avg * 1e6, algbw,
                   busbw, allWrong);
            fflush(stdout);
        }
        if (factor <= 1) break;
    }
    free(send);
    free(recv);
    MPI_Finalize();
    return 0;
}

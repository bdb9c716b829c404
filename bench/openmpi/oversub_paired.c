/*
 * Open MPI's side of io.jccl.bench.OversubscriptionBench: MPI_Allreduce (float sum, out of place) on all N ranks
 * against the same on two of them (world ranks 0 and N/2, split off with MPI_Comm_split), in alternating phases of
 * one job, so both sides of every round's ratio see the same machine. While the pair runs, the other ranks wait in
 * an MPI_Ibarrier polled every millisecond with a sleep in between, so they take no CPU from it (a plain MPI_Barrier would
 * poll the whole time). Prints the same table as the Java bench.
 * Usage: mpirun -np N oversub_paired MIN_BYTES MAX_BYTES FACTOR ROUNDS [PHASE_MS]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double phase(MPI_Comm c, const float *send, float *recv, long count, int calls) {
    MPI_Barrier(c);
    double t0 = MPI_Wtime();
    for (int i = 0; i < calls; i++) MPI_Allreduce(send, recv, (int) count, MPI_FLOAT, MPI_SUM, c);
    return (MPI_Wtime() - t0) / calls;
}

static double over(MPI_Comm c, double v, MPI_Op op) {
    double r;
    MPI_Allreduce(&v, &r, 1, MPI_DOUBLE, op, c);
    return r;
}

/* A world barrier that sleeps between polls, for ranks with nothing to do while the pair runs. */
static void quiet_barrier(void) {
    MPI_Request req;
    int done = 0;
    struct timespec ts = {0, 1000000};
    MPI_Ibarrier(MPI_COMM_WORLD, &req);
    for (MPI_Test(&req, &done, MPI_STATUS_IGNORE); !done; MPI_Test(&req, &done, MPI_STATUS_IGNORE)) nanosleep(&ts, NULL);
}

static int calls_for(double budget_s, double per_call_s) {
    double c = budget_s / (per_call_s > 1e-9 ? per_call_s : 1e-9);
    return c < 3 ? 3 : c > 1e6 ? 1000000 : (int) c;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

static double quantile(double *v, int n, double q) {
    qsort(v, n, sizeof *v, cmp);
    double pos = q * (n - 1);
    int lo = (int) pos, hi = lo + 1 < n ? lo + 1 : n - 1;
    return v[lo] + (v[hi] - v[lo]) * (pos - lo);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (argc < 5 || n < 3) {
        if (rank == 0) fprintf(stderr, "usage: mpirun -np N (N >= 3) oversub_paired MIN MAX FACTOR ROUNDS [PHASE_MS]\n");
        MPI_Finalize();
        return 2;
    }
    long minb = atol(argv[1]), maxb = atol(argv[2]), factor = atol(argv[3]);
    int rounds = atoi(argv[4]);
    double phase_s = (argc > 5 ? atof(argv[5]) : 30) / 1e3;
    int in_pair = rank == 0 || rank == n / 2;
    MPI_Comm pair;
    MPI_Comm_split(MPI_COMM_WORLD, in_pair ? 0 : MPI_UNDEFINED, rank, &pair);
    size_t cap = (size_t) maxb / sizeof(float) + 1;
    float *send = malloc(cap * sizeof(float)), *recv = malloc(cap * sizeof(float));
    for (size_t i = 0; i < cap; i++) send[i] = (float) (rank + 1);
    int nsizes = 0;
    long sizes[64];
    for (long b = minb; b <= maxb && nsizes < 64; b *= factor) sizes[nsizes++] = b / 4 * 4;
    int calls[64];
    long wrong = 0;
    for (int s = 0; s < nsizes; s++) {
        long count = sizes[s] / 4;
        if (in_pair) {
            double t = over(pair, phase(pair, send, recv, count, 3), MPI_MAX);
            for (int k = 0; k < 5; k++) t = over(pair, phase(pair, send, recv, count, calls_for(phase_s, t)), MPI_MAX);
            for (long i = 0; i < count; i++) wrong += recv[i] != (float) (2 + n / 2);
        }
        double t = over(MPI_COMM_WORLD, phase(MPI_COMM_WORLD, send, recv, count, 3), MPI_MAX);
        for (int k = 0; k < 5; k++) {
            t = over(MPI_COMM_WORLD, phase(MPI_COMM_WORLD, send, recv, count, calls_for(phase_s, t)), MPI_MAX);
        }
        for (long i = 0; i < count; i++) wrong += recv[i] != (float) (n * (n + 1) / 2);
        calls[s] = calls_for(phase_s, t);
    }
    double *tp = calloc((size_t) nsizes * rounds, sizeof(double)), *tw = calloc((size_t) nsizes * rounds, sizeof(double));
    for (int r = -2; r < rounds; r++) {
        for (int s = 0; s < nsizes; s++) {
            long count = sizes[s] / 4;
            int pair_first = ((r + s) % 2 + 2) % 2 == 0;
            double p = 0, w = 0;
            for (int half = 0; half < 2; half++) {
                if (pair_first == (half == 0)) {
                    if (in_pair) {
                        p = over(pair, phase(pair, send, recv, count, calls[s]), MPI_SUM) / 2;
                    }
                    quiet_barrier(); /* an MPI_Ibarrier on every rank: it does not match a blocking MPI_Barrier */
                } else {
                    w = over(MPI_COMM_WORLD, phase(MPI_COMM_WORLD, send, recv, count, calls[s]), MPI_SUM) / n;
                    MPI_Barrier(MPI_COMM_WORLD);
                }
            }
            if (r >= 0) {
                tp[s * rounds + r] = p;
                tw[s * rounds + r] = w;
            }
        }
    }
    long all_wrong;
    MPI_Allreduce(&wrong, &all_wrong, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("# openmpi: allReduce float sum, out of place: %d ranks against 2 of them (world ranks 0 and %d) in "
               "alternating phases of one job, %d round(s), phases of ~%.0f ms\n", n, n / 2, rounds, phase_s * 1e3);
        char nr[16];
        snprintf(nr, sizeof nr, "%dr_us", n);
        printf("# %10s %7s %11s %11s %9s %9s %9s %9s\n", "bytes", "calls", "2r_us", nr, "ratio", "pair_p10",
               "pair_med", "pair_p90");
        double *a = malloc(rounds * sizeof(double)), *b = malloc(rounds * sizeof(double)), *q = malloc(rounds * sizeof(double));
        for (int s = 0; s < nsizes; s++) {
            for (int r = 0; r < rounds; r++) {
                a[r] = tp[s * rounds + r];
                b[r] = tw[s * rounds + r];
                q[r] = b[r] / a[r];
            }
            double pm = quantile(a, rounds, 0.5), wm = quantile(b, rounds, 0.5);
            double q10 = quantile(q, rounds, 0.1), q50 = quantile(q, rounds, 0.5), q90 = quantile(q, rounds, 0.9);
            printf("  %10ld %7d %11.2f %11.2f %9.2f %9.2f %9.2f %9.2f\n", sizes[s], calls[s], pm * 1e6, wm * 1e6, wm / pm,
                   q10, q50, q90);
        }
        printf("# wrong elements: %ld\n", all_wrong);
    }
    if (pair != MPI_COMM_NULL) MPI_Comm_free(&pair);
    free(send);
    free(recv);
    MPI_Finalize();
    return all_wrong == 0 ? 0 : 1;
}

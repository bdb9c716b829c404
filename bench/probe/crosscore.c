/*
 * Cross-core probe for bench/sweeps/oversubscribe-ratio.sh: prints the round-trip time in ns of a cache line bounced
 * between CPU 0 and CPU 1 (two threads, pinned). On a 2-vCPU VM it tells where the host put the two vCPUs: about
 * 120-170 ns when they share a last-level cache, 500+ ns when they do not (and then every cross-core copy is ~3.5x
 * slower too), so allReduce times measured in the two states are not comparable.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

#define ROUNDS 100000
static _Atomic long ping __attribute__((aligned(128)));
static _Atomic long pong __attribute__((aligned(128)));

static void pin(int cpu) {
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(cpu, &s);
    pthread_setaffinity_np(pthread_self(), sizeof s, &s);
}

static void *responder(void *arg) {
    (void) arg;
    pin(1);
    for (long i = 1; i <= ROUNDS; i++) {
        while (atomic_load_explicit(&ping, memory_order_acquire) != i) {
        }
        atomic_store_explicit(&pong, i, memory_order_release);
    }
    return NULL;
}

int main(void) {
    pthread_t t;
    pin(0);
    pthread_create(&t, NULL, responder, NULL);
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (long i = 1; i <= ROUNDS; i++) {
        atomic_store_explicit(&ping, i, memory_order_release);
        while (atomic_load_explicit(&pong, memory_order_acquire) != i) {
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    pthread_join(t, NULL);
    printf("%.0f\n", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / ROUNDS);
    return 0;
}

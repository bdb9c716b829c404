#!/usr/bin/env python3
"""Gloo allreduce benchmark (torch.distributed, backend "gloo") printing the same columns as nccl-tests,
./jccl perf and bench/openmpi/allreduce_bench.c (out-of-place only), so scripts can put them side by side.

Usage: RANK=r WORLD_SIZE=n MASTER_ADDR=a MASTER_PORT=p [GLOO_SOCKET_IFNAME=if] \
       python3 allreduce_bench.py MIN_BYTES MAX_BYTES FACTOR ITERS WARMUP
Every rank checks its result (float32 sum of (rank + i) % 7, exact in float) and rank 0 prints the total of
wrong elements. Each size times ITERS calls after WARMUP calls; the time is the average over ranks.
"""
import os
import sys
import time
from datetime import timedelta

import torch
import torch.distributed as dist


def main():
    minb, maxb, factor, iters, warm = (int(a) for a in sys.argv[1:6])
    dist.init_process_group("gloo", init_method="env://", timeout=timedelta(seconds=120))
    rank, n = dist.get_rank(), dist.get_world_size()
    if rank == 0:
        print(f"# gloo allreduce ranks {n} (torch {torch.__version__})")
        print("#       size         count      type   redop    root     time   algbw   busbw  #wrong", flush=True)
    nbytes = minb
    while nbytes <= maxb:
        count = max(1, nbytes // 4)
        idx = torch.arange(count, dtype=torch.int64)
        src = ((idx + rank) % 7).to(torch.float32)
        buf = src.clone()
        for _ in range(warm):
            buf.copy_(src)
            dist.all_reduce(buf)
        dist.barrier()
        t0 = time.perf_counter()
        for _ in range(iters):
            buf.copy_(src)   # allreduce is in place in torch: restore the input (a memcpy, as JCCL's out-of-place)
            dist.all_reduce(buf)
        t = torch.tensor([(time.perf_counter() - t0) / iters], dtype=torch.float64)
        dist.all_reduce(t)
        avg = t.item() / n
        expected = sum(((idx + r) % 7).to(torch.float32) for r in range(n))
        wrong = torch.tensor([int((buf != expected).sum().item())], dtype=torch.int64)
        dist.all_reduce(wrong)
        algbw = nbytes / avg / 1e9
        busbw = algbw * 2.0 * (n - 1) / n
        if rank == 0:
            print(f"{nbytes:12d}  {count:12d}     float     sum      -1  {avg * 1e6:7.2f}  {algbw:6.2f}  {busbw:6.2f}  "
                  f"{wrong.item():6d}", flush=True)
        if factor <= 1:
            break
        nbytes *= factor
    dist.destroy_process_group()


if __name__ == "__main__":
    main()

# Reads the sweep log of tune.sh (blocks "### cfg <algorithm> <pushChunk>" followed by perf tables) and prints
# the JVM flags that pick, per size, the fastest allReduce kernel of the sweep: the push pipeline chunk that was
# fastest over 4..32 MiB, the largest size up to which push beats both pull forms at every size (pullFromBytes), then
# the largest size up to which one-shot beats two-shot (oneShotMaxBytes). With -v table=1 prints the times instead.
/^### cfg / { cfg = $3 " " $4; next }
/^ +[0-9]+ +[0-9]+ / { t[cfg, $1] = $6; sizes[$1] = 1; cfgs[cfg] = 1 }
function mib(b) { return b / 1048576 }
END {
    n = 0
    for (s in sizes) list[++n] = s + 0
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (list[j] < list[i]) { x = list[i]; list[i] = list[j]; list[j] = x }
    if (table) {
        printf "# sweep (us)  %12s", "size"
        for (c in cfgs) printf " %12s", c
        printf "\n"
        for (i = 1; i <= n; i++) {
            printf "# sweep       %12d", list[i]
            for (c in cfgs) printf " %12s", t[c, list[i]]
            printf "\n"
        }
        exit
    }
    best = ""; bestSum = 1e30
    for (c in cfgs) {
        if (c !~ /^push /) continue
        sum = 0
        for (i = 1; i <= n; i++) if (list[i] >= 4194304) sum += t[c, list[i]]
        if (sum < bestSum) { bestSum = sum; best = c }
    }
    split(best, parts, " ")
    pushMax = list[1]
    for (i = 1; i <= n; i++) {
        p = t[best, list[i]]; o = t["oneshot 16K", list[i]]; w = t["twoshot 16K", list[i]]
        if (p > o || p > w) break
        pushMax = list[i]
    }
    oneMax = pushMax
    for (i = 1; i <= n; i++) {
        if (list[i] <= pushMax) continue
        if (t["oneshot 16K", list[i]] > t["twoshot 16K", list[i]]) break
        oneMax = list[i]
    }
    printf "-Djccl.cuda.pushChunkBytes=%s -Djccl.cuda.pullFromBytes=%dM -Djccl.cuda.oneShotMaxBytes=%dM\n", parts[2], mib(pushMax), mib(oneMax)
}

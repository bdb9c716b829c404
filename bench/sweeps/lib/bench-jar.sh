# Sourced (from the repository root) by the sweeps that run classes of the bench module (io.jccl.bench): sets
# BENCH_JAR to its jar, for ./jccl run -cp and ./jccl java -cp. ./jccl rebuilds when sources change; this builds
# once more when the jar is missing (a checkout built before the bench module existed).
BENCH_JAR="$PWD/bench/target/jccl-bench.jar"
if [ ! -f "$BENCH_JAR" ]; then
  ./jccl build
fi
[ -f "$BENCH_JAR" ] || { echo "no $BENCH_JAR after ./jccl build" >&2; exit 1; }

#!/usr/bin/env bash
# Builds jccl-core and jccl-cuda and puts what the GPU machine needs into <repo>/.device/cuda/: the jars, the test
# classes, JUnit's console launcher with AssertJ (to run the @Tag("gpu") tests there, where there is no Maven), and
# gpu-run.sh. The GPU machine already gets a Java 25 runtime from <repo>/.device/java (shared/device/make-jre.sh).
#   jccl-cuda/device/bundle.sh [repo-root-that-travels]      (default: this worktree)
# Then on the GPU machine, from that repo root:  .device/cuda/gpu-run.sh info tests dump bench
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
dst="${1:-$src}/.device/cuda"
export JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
(cd "$src" && mvn -q -DskipTests -pl jccl-cuda -am package)
rm -rf "$dst" && mkdir -p "$dst"
cp "$src"/jccl-core/target/jccl-core-*.jar "$dst/jccl-core.jar"
cp "$src"/jccl-cuda/target/jccl-cuda-*.jar "$dst/jccl-cuda.jar"
"$JAVA_HOME/bin/jar" cf "$dst/jccl-cuda-tests.jar" -C "$src/jccl-cuda/target/test-classes" .
for a in org.junit.platform:junit-platform-console-standalone:1.14.1 org.assertj:assertj-core:3.27.7 \
         net.bytebuddy:byte-buddy:1.18.3; do
  (cd /tmp && mvn -q dependency:copy -Dartifact="$a" -DoutputDirectory="$dst/test-lib" >/dev/null)
done
cp "$here/gpu-run.sh" "$dst/"
chmod +x "$dst/gpu-run.sh"
du -sh "$dst"

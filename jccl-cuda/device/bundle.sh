#!/usr/bin/env bash
# Builds JCCL and puts what the GPU machine needs into <repo>/.device/gpu/ (the GPU machine has no JDK or Maven;
# its Java 25 runtime is <repo>/.device/java, from shared/device/make-jre.sh):
#   lib/      jccl-core, jccl-cuda, jccl-tools and the tools' dependencies (what ./jccl runs)
#   cubin/    every PTX module assembled for sm_90 with ptxas (-Djccl.cuda.cubinDir: no JIT on first use)
#   jccl      the launcher script (run it with JCCL_JAVA=.device/java JCCL_LIB=.device/gpu/lib)
#   test/     jccl-cuda's test classes, JUnit's console launcher and AssertJ (the @Tag("gpu") tests), gpu-tests.txt
#             (the *GpuTest classes that gpu-run.sh tests runs)
#   gpu-run.sh
#   jccl-cuda/device/bundle.sh [repo-root-that-travels]      (default: this worktree)
# Then on the GPU machine, from that repo root:  .device/gpu/gpu-run.sh info tests ar
# The device tool copies the tracked tree (about 31 MB, 29 of them committed PTX) plus what it carries (.device/java,
# .device/jre.tar.xz, .device/gpu: about 38 MB with the cubins pruned to copy + reduce_f32_sum) and refuses more than
# 64 MiB. The GPU machine reads the PTX from the jccl-cuda jar, so for the call the PTX sources may be moved aside:
#   mv jccl-cuda/src/main/resources/io/jccl/cuda/kernels/*.ptx DIR/   (DIR outside the tree; move them back after)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
dst="${1:-$src}/.device/gpu"
export JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
# package, not install: the reactor resolves the sibling modules, and nothing needs the install plugin (a fresh
# machine may not have it). A failed build stops here: stale jars in target/ would otherwise travel unnoticed.
log=$(mktemp)
if ! (cd "$src" && mvn -q -DskipTests package >"$log" 2>&1); then
  grep -v -e 'sun.misc.Unsafe' -e 'terminally deprecated' -e 'consider reporting' -e 'will be removed' "$log" | tail -30
  echo "bundle.sh: the build failed (cd $src && mvn -DskipTests package)" >&2
  exit 1
fi
rm -f "$log"
rm -rf "$dst" && mkdir -p "$dst/lib" "$dst/cubin" "$dst/test"
cp "$src"/jccl-tools/target/jccl-tools-*-SNAPSHOT.jar "$dst/lib/"
cp "$src"/jccl-tools/target/lib/*.jar "$dst/lib/"
"$JAVA_HOME/bin/jar" cf "$dst/test/jccl-cuda-tests.jar" -C "$src/jccl-cuda/target/test-classes" .
# the GPU test classes, listed here: the bundled runtime has no jar file system (jdk.zipfs) for JUnit to scan the jar
(cd "$src/jccl-cuda/target/test-classes" && find . -name '*GpuTest.class' | sed 's#^\./##; s#\.class$##; s#/#.#g' | sort) \
  > "$dst/test/gpu-tests.txt"
for a in org.junit.platform:junit-platform-console-standalone:1.14.1 org.assertj:assertj-core:3.27.7; do
  (cd /tmp && mvn -q dependency:copy -Dartifact="$a" -DoutputDirectory="$dst/test" >/dev/null)
done
ls "$src"/jccl-cuda/src/main/resources/io/jccl/cuda/kernels/*.ptx \
  | xargs -P "$(nproc)" -I{} sh -c 'ptxas -arch=sm_90 -O3 -o "$1/cubin/$(basename "$2" .ptx).cubin" "$2"' _ "$dst" {}
cp "$src/jccl" "$here/gpu-run.sh" "$dst/"
chmod +x "$dst/jccl" "$dst/gpu-run.sh"
du -sh "$dst"

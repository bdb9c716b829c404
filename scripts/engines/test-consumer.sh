#!/usr/bin/env bash
# Engine test: a new user's program. Does what the README's "Use it from Maven/Gradle" says: "mvn -DskipTests
# install" of this checkout, then builds scripts/engines/consumer (its own pom imports the BOM and names jccl-core
# exactly as the README shows; its Main does Communicator.fromEnvironment() and a verified float allReduce) as a
# separate project in a temporary copy, and runs the jar under ./jccl run -np 2, mpirun -np 2 and torchrun with
# 2 workers (the last two with plain java and the jars Maven copied, as docs/launchers.md shows for "your program").
#
# The artifacts go into a temporary local repository, not ~/.m2: it links to every group of ~/.m2/repository
# (JCCL_CONSUMER_M2 names another) except io/jccl, so Maven runs offline (-o) when ~/.m2 holds the plugins, and the
# caller's ~/.m2 gets no io.jccl artifacts. When offline Maven lacks a third-party artifact it runs again online
# (JCCL_ENGINES_OFFLINE=1 forbids that). Exits 0 when all passed (a part whose engine is missing says "engines:
# consumer SKIPPED:"), 77 when Maven cannot get third-party artifacts at all (an environment reason), 1 on any
# failure ("engines: consumer FAILED:").
set -uo pipefail
here="$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")"
cd "$here/../.."
root="$PWD"
count=65536
main=com.example.allreduce.Main
start=$SECONDS

say() { echo "engines: consumer: $*"; }
fail() {
    echo "engines: consumer FAILED: $*"
    exit 1
}
skip() { echo "engines: consumer SKIPPED: $*"; }

work="$(mktemp -d "${TMPDIR:-/tmp}/jccl-consumer.XXXXXX")"
trap 'rm -rf "$work"' EXIT
# nothing that names a root or a rank: each launcher below must be what the program finds
clean=(env -u JCCL_COMM_ID -u NCCL_COMM_ID -u MASTER_ADDR -u MASTER_PORT -u RANK -u WORLD_SIZE -u JCCL_RANK
    -u JCCL_WORLD_SIZE -u JCCL_RENDEZVOUS -u JCCL_COMM_SECRET -u TORCHELASTIC_RESTART_COUNT
    NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=BOOTSTRAP JCCL_TIMEOUT_MS=60000)

# --- the versions the README, the consumer's pom and the build name must agree ---------------------------------
version="$(sed -n '/<artifactId>jccl-parent<\/artifactId>/,/<\/version>/s:.*<version>\(.*\)</version>.*:\1:p' pom.xml)"
[[ -n "$version" ]] || fail "no version of jccl-parent in pom.xml"
section="$(sed -n '/^## Use it from Maven\/Gradle/,/^## /p' README.md)"
[[ -n "$section" ]] || fail "README.md has no section 'Use it from Maven/Gradle'"
grep -q "<version>$version</version>" <<<"$section" || fail "README.md's BOM snippet does not name version $version"
grep -q "io.jccl:jccl-bom:$version" <<<"$section" || fail "README.md's Gradle line does not name version $version"
grep -q "<version>$version</version>" scripts/engines/consumer/pom.xml \
    || fail "scripts/engines/consumer/pom.xml does not import jccl-bom $version"

# --- the JDK ./jccl uses, and the Maven it uses ------------------------------------------------------------------
printf 'class JavaHome { public static void main(String[] a) { System.out.println(System.getProperty("%s")); } }\n' \
    java.home >"$work/JavaHome.java"
jdk="$(./jccl java "$work/JavaHome.java" 2>"$work/jdk.err")" && [[ -x "$jdk/bin/javac" ]] \
    || { cat "$work/jdk.err"; fail "./jccl found no JDK (./jccl java printed '$jdk')"; }
if command -v mvn >/dev/null && [[ "${JCCL_USE_MVNW:-0}" != 1 ]]; then
    maven=(mvn)
else
    maven=("$root/mvnw")
fi

# --- a local repository of its own, seeded from ~/.m2 ------------------------------------------------------------
m2="${JCCL_CONSUMER_M2:-$HOME/.m2/repository}"
repo="$work/m2"
mkdir -p "$repo/io"
for d in "$m2"/* "$m2"/io/*; do
    [[ -e "$d" ]] || continue
    case "${d#"$m2"/}" in io | io/jccl) continue ;; esac
    ln -s "$d" "$repo/${d#"$m2"/}"
done

# $1 log name, $2 directory, then Maven's arguments: runs Maven there, offline first; sets rc. The log is
# $work/<name>.log.
offline=(-o)
run_maven() {
    local name="$1" dir="$2"
    shift 2
    (cd "$dir" && JAVA_HOME="$jdk" "${maven[@]}" -B -q "${offline[@]}" "-Dmaven.repo.local=$repo" "$@") \
        >"$work/$name.log" 2>&1
    rc=$?
    if ((rc != 0)) && [[ ${#offline[@]} -gt 0 ]] && grep -q "offline mode" "$work/$name.log" \
        && [[ "${JCCL_ENGINES_OFFLINE:-0}" != 1 ]]; then
        say "$name: offline Maven lacks artifacts (e.g. $(grep -o "artifact [^ ]* has not been downloaded" \
            "$work/$name.log" | head -1 | cut -d' ' -f2)): again online"
        offline=()
        (cd "$dir" && JAVA_HOME="$jdk" "${maven[@]}" -B -q "-Dmaven.repo.local=$repo" "$@") >"$work/$name.log" 2>&1
        rc=$?
    fi
    if ((rc != 0)); then
        grep -v -e 'sun\.misc\.Unsafe' -e 'terminally deprecated' -e 'consider reporting' "$work/$name.log" | tail -25
        # a third-party artifact Maven cannot get is the machine's network, not JCCL; io.jccl ones are JCCL's
        if grep -Eq "offline mode|Could not transfer|could not be resolved|Could not resolve" "$work/$name.log" \
            && ! grep -Eq "io\.jccl:[a-z-]+:(jar|pom)" "$work/$name.log"; then
            echo "engines: consumer SKIPPED: Maven cannot get third-party artifacts here ($name; see above)"
            exit 77
        fi
    fi
}

# --- 1. mvn -DskipTests install of this checkout ----------------------------------------------------------------
t0=$SECONDS
run_maven install "$root" -DskipTests install
((rc == 0)) || fail "mvn -DskipTests install of the checkout exited $rc"
for a in jccl-bom/$version/jccl-bom-$version.pom jccl-parent/$version/jccl-parent-$version.pom \
    jccl-core/$version/jccl-core-$version.jar; do
    [[ -f "$repo/io/jccl/$a" ]] || fail "mvn install left no io/jccl/$a in the local repository"
done
say "mvn -DskipTests install of the checkout: io.jccl $version installed in $((SECONDS - t0)) s" \
    "(Maven ${offline[*]:-online})"

# --- 2. the consumer project, built on its own -------------------------------------------------------------------
t0=$SECONDS
cp -r scripts/engines/consumer "$work/consumer"
rm -rf "$work/consumer/target"
run_maven consumer "$work/consumer" package
((rc == 0)) || fail "mvn package of the consumer project exited $rc"
jar="$work/consumer/target/jccl-consumer-1.0.jar"
[[ -f "$jar" ]] || fail "the consumer build left no $jar"
libs="$(cd "$work/consumer/target/lib" 2>/dev/null && ls)"
[[ "$libs" == "jccl-core-$version.jar" ]] \
    || fail "the consumer's runtime class path is '$(tr '\n' ' ' <<<"$libs")', not jccl-core-$version.jar alone"
cmp -s "$work/consumer/target/lib/jccl-core-$version.jar" "$repo/io/jccl/jccl-core/$version/jccl-core-$version.jar" \
    || fail "the consumer got another jccl-core jar than the one just installed"
say "consumer project built against the BOM in $((SECONDS - t0)) s: $(basename "$jar"), runtime class path" \
    "jccl-core-$version.jar alone"
cp=("$jar:$work/consumer/target/lib/*")
java=("$jdk/bin/java" --add-modules jdk.incubator.vector --enable-native-access=ALL-UNNAMED -cp "${cp[0]}")

# $1 case, $2 file with the ranks' stdout, $3 file with their stderr, $4 rendezvous: both ranks verified it
check() {
    local r
    for r in 0 1; do
        grep -qF "consumer: rank $r of 2: allReduce of $count floats correct (element 6 = 13.0)" "$2" \
            || { tail -n 20 "$2" "$3"; fail "$1: rank $r printed no correct allReduce"; }
        grep -qF "rendezvous $4): rank $r of 2" "$3" || { tail -n 20 "$3"; fail "$1: rank $r did not use rendezvous $4"; }
    done
    say "$1: 2 ranks verified (allReduce of $count floats), rendezvous $4 in $((SECONDS - t0)) s"
}

# --- 3. ./jccl run -np 2 -cp consumer.jar ------------------------------------------------------------------------
t0=$SECONDS
"${clean[@]}" timeout 120 ./jccl run -np 2 -cp "$jar" -- "$main" "$count" >"$work/run.log" 2>&1
rc=$?
((rc == 0)) || { tail -n 20 "$work/run.log"; fail "./jccl run -np 2 of the consumer exited $rc"; }
check "./jccl run -np 2" "$work/run.log" "$work/run.log" address

# --- 4. mpirun -np 2 java -cp consumer.jar:lib/* -----------------------------------------------------------------
if command -v mpirun >/dev/null; then
    t0=$SECONDS
    # --tag-output: mpirun then forwards the ranks' output line by line ([1,r]<stdout>: ...); without it a line of
    # one rank can reach the file in pieces with the other rank's output between them
    "${clean[@]}" timeout 120 mpirun --allow-run-as-root --oversubscribe --tag-output -np 2 "${java[@]}" "$main" \
        "$count" >"$work/mpirun.out" 2>"$work/mpirun.err"
    rc=$?
    ((rc == 0)) || { tail -n 20 "$work/mpirun.out" "$work/mpirun.err"; fail "mpirun -np 2 of the consumer exited $rc"; }
    check "mpirun -np 2 java" "$work/mpirun.out" "$work/mpirun.err" pmix
else
    skip "mpirun is not installed (scripts/engines/install.sh installs openmpi-bin): the mpirun part did not run"
fi

# --- 5. torchrun with 2 workers, --no_python java ... ------------------------------------------------------------
torchrun="${TORCHRUN:-/usr/bin/torchrun}"
if [[ -x "$torchrun" ]]; then
    t0=$SECONDS
    if grep -q -- '--no[-_]python' <<<"$("$torchrun" --help 2>&1)"; then
        entry=(--no_python)
    else
        printf 'import os, sys\nos.execvp(sys.argv[1], sys.argv[1:])\n' >"$work/exec.py"
        entry=("$work/exec.py")
    fi
    # --standalone's rendezvous on a free port (another run may hold its 29400); -r 2 -t 1: Debian's torch 1.13
    # cannot parse the default redirects (docs/launchers.md)
    port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
    "${clean[@]}" timeout 120 "$torchrun" --nnodes 1 --rdzv_backend c10d --rdzv_endpoint "127.0.0.1:$port" \
        --nproc_per_node 2 -r 2 -t 1 --log_dir "$work/torchrun" "${entry[@]}" "${java[@]}" "$main" "$count" \
        >"$work/torchrun.log" 2>&1
    rc=$?
    ((rc == 0)) || { tail -n 20 "$work/torchrun.log"; fail "torchrun with 2 workers of the consumer exited $rc"; }
    cat "$work"/torchrun/*/attempt_0/*/stdout.log >"$work/torchrun.out" 2>/dev/null
    cat "$work"/torchrun/*/attempt_0/*/stderr.log >"$work/torchrun.err" 2>/dev/null
    check "torchrun --nproc_per_node 2" "$work/torchrun.out" "$work/torchrun.err" torchrun
else
    skip "no $torchrun (scripts/engines/install.sh installs python3-torch): the torchrun part did not run"
fi
say "passed in $((SECONDS - start)) s"
echo "engines: consumer passed"

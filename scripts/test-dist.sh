#!/usr/bin/env bash
# Checks the binary distribution as a user gets it: builds both tarballs (./jccl dist, ./jccl dist --jlink) into a
# temporary directory outside the tree, checks what they hold, unpacks them there and runs their bin/jccl:
#   - the --jlink one with no JDK anywhere (JAVA_HOME unset, the JDK search pointed at an empty directory, and java,
#     javac, jar, mvn on PATH replaced by stubs that fail): demo -np 2 (a verified allReduce, then a perf table whose
#     #wrong column is checked), params, the threads example through bin/jccl java; test must refuse (source tree);
#   - the plain one with JAVA_HOME as the only Java: run -np 2 of the allReduce example.
# ./jccl test runs it after mvn verify (JCCL_TEST_DIST=0 skips it); alone: JAVA_HOME=<JDK 25+> scripts/test-dist.sh
# Prints one line per check and last "test-dist: N passed, N failed"; exits 1 when any check failed.
set -uo pipefail

root="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)"
jdk="${JAVA_HOME:-}"
[[ -x "$jdk/bin/jlink" ]] || { echo "test-dist: JAVA_HOME must be a JDK 25+ with jlink (got '$jdk')" >&2; exit 2; }
tmp="$(mktemp -d "${TMPDIR:-/tmp}/jccl-test-dist.XXXXXX")"
case "$tmp/" in "$root"/*) echo "test-dist: the temporary directory $tmp is inside the tree" >&2; exit 2 ;; esac
trap 'rm -rf "$tmp"' EXIT

passed=0
failed=0
last="$tmp/last.log"

# check NAME COMMAND...: runs COMMAND with its output in $last, counts it, prints one line (and the output on failure).
check() {
    local name="$1" start=$SECONDS rc=0
    shift
    "$@" >"$last" 2>&1 || rc=$?
    if [[ $rc -eq 0 ]]; then
        passed=$((passed + 1))
        printf '  %-68s ok %4d s\n' "dist: $name" $((SECONDS - start))
    else
        failed=$((failed + 1))
        printf '  %-68s FAILED (exit code %d) %d s\n' "dist: $name" "$rc" $((SECONDS - start))
        sed 's/^/    | /' "$last" | tail -n 40
    fi
}

# expect_lines FILE LINE...: every LINE occurs in FILE as a whole line; says which do not.
expect_lines() {
    local file="$1" line missing=0
    shift
    for line in "$@"; do
        if ! grep -q -F -x -e "$line" "$file"; then
            echo "missing line: $line"
            missing=1
        fi
    done
    return "$missing"
}

# The environment of a machine without a JDK: nothing inherited, stubs for the JDK's and Maven's commands.
mkdir -p "$tmp/stubs" "$tmp/nojdk" "$tmp/home"
for tool in java javac jar jlink mvn; do
    printf '#!/bin/sh\necho "test-dist: %s was called, but this machine has no JDK" >&2\nexit 97\n' "$tool" \
        >"$tmp/stubs/$tool"
    chmod +x "$tmp/stubs/$tool"
done
no_jdk() {
    env -i HOME="$tmp/home" TMPDIR="${TMPDIR:-/tmp}" PATH="$tmp/stubs:/usr/bin:/bin" JCCL_JDK_SEARCH="$tmp/nojdk" "$@"
}
only_java_home() {
    env -i HOME="$tmp/home" TMPDIR="${TMPDIR:-/tmp}" PATH="$tmp/stubs:/usr/bin:/bin" JCCL_JDK_SEARCH="$tmp/nojdk" \
        JAVA_HOME="$jdk" "$@"
}

make_tarballs() {
    JAVA_HOME="$jdk" "$root/jccl" dist -o "$tmp/out" >"$tmp/plain.path" || return 1
    JAVA_HOME="$jdk" "$root/jccl" dist --jlink -o "$tmp/out" >"$tmp/jlink.path" || return 1
    ls -l "$tmp/out"
}

# contents TARBALL jlink|plain: one top directory jccl-<version>/ with the launcher, the jars (no test, sources or
# Javadoc jars), README.md and LICENSE; runtime/ exactly when made with --jlink.
contents() {
    local tarball="$1" kind="$2" list version top
    list="$(tar -tzf "$tarball")" || return 1
    top="$(printf '%s\n' "$list" | cut -d / -f 1 | sort -u)"
    version="${top#jccl-}"
    [[ "$top" == jccl-* && "$(printf '%s\n' "$top" | wc -l)" -eq 1 ]] || { echo "top directories: $top"; return 1; }
    [[ "${tarball##*/}" == "$top"*.tar.gz ]] || { echo "file ${tarball##*/} is not named after $top"; return 1; }
    local need=("$top/bin/jccl" "$top/README.md" "$top/LICENSE")
    local m
    for m in core cuda tools examples; do
        need+=("$top/lib/jccl-$m-$version.jar")
    done
    [[ "$kind" == jlink ]] && need+=("$top/runtime/bin/java" "$top/runtime/release")
    printf '%s\n' "$list" >"$tmp/list"
    expect_lines "$tmp/list" "${need[@]}" || return 1
    grep -q -x "$top/lib/picocli-.*\.jar" "$tmp/list" || { echo "no picocli jar in lib/"; return 1; }
    if grep -E -e '-(tests|sources|javadoc)\.jar$' "$tmp/list"; then
        echo "test, sources or Javadoc jars in the tarball"
        return 1
    fi
    if [[ "$kind" == plain ]] && grep -q "^$top/runtime/" "$tmp/list"; then
        echo "runtime/ in the tarball made without --jlink"
        return 1
    fi
    mkdir -p "$tmp/$kind" && tar -xzf "$tarball" -C "$tmp/$kind" || return 1
    ln -s "$tmp/$kind/$top" "$tmp/$kind-home"
}

demo_without_jdk() {
    no_jdk "$tmp/jlink-home/bin/jccl" demo -np 2 >"$tmp/demo.out" || { cat "$tmp/demo.out"; return 1; }
    cat "$tmp/demo.out"
    expect_lines "$tmp/demo.out" \
        "[0] Device 0 correctly received sum: 1" "[0] Device 0 correctly received sum: 3" \
        "[1] Device 1 correctly received sum: 1" "[1] Device 1 correctly received sum: 3" \
        "# Out of bounds values : 0 OK" || return 1
    # every perf row (size, count, type, redop, root, then time, algbw, busbw, #wrong twice): #wrong is 0
    awk '$1 ~ /^[0-9]+$/ && NF == 13 { rows++; if ($9 != 0 || $13 != 0) bad++ }
        END { if (rows == 0 || bad > 0) { print "perf rows: " rows ", with #wrong > 0: " bad + 0; exit 1 } }' \
        "$tmp/demo.out"
}

params_without_jdk() {
    no_jdk "$tmp/jlink-home/bin/jccl" params NCCL_ALGO >"$tmp/params.out" 2>&1 || { cat "$tmp/params.out"; return 1; }
    grep -q NCCL_ALGO "$tmp/params.out" || { cat "$tmp/params.out"; return 1; }
    # the distribution's own runtime ran it: its release file names the Vector API module
    grep -q 'jdk.incubator.vector' "$tmp/jlink-home/runtime/release"
}

java_without_jdk() {
    no_jdk "$tmp/jlink-home/bin/jccl" java io.jccl.examples.ThreadsExample 2 >"$tmp/java.out" 2>&1 \
        || { cat "$tmp/java.out"; return 1; }
    expect_lines "$tmp/java.out" "Thread of rank 0 received sums 1 and 3: correct" \
        "Thread of rank 1 received sums 1 and 3: correct"
}

test_refused() {
    local rc=0
    no_jdk "$tmp/jlink-home/bin/jccl" test >"$tmp/refused.out" 2>&1 || rc=$?
    cat "$tmp/refused.out"
    [[ $rc -ne 0 ]] && grep -q 'needs the source tree' "$tmp/refused.out"
}

run_with_java_home() {
    only_java_home "$tmp/plain-home/bin/jccl" run -np 2 io.jccl.examples.AllReduceExample 1000 >"$tmp/run.out" 2>&1 \
        || { cat "$tmp/run.out"; return 1; }
    expect_lines "$tmp/run.out" "[0] Device 0 correctly received sum: 1" "[1] Device 1 correctly received sum: 3" \
        || { cat "$tmp/run.out"; return 1; }
}

start=$SECONDS
check "./jccl dist and ./jccl dist --jlink (outside the tree)" make_tarballs
if [[ -s "$tmp/plain.path" && -s "$tmp/jlink.path" ]]; then
    check "the plain tarball: bin, lib (no test jars), README, LICENSE" contents "$(cat "$tmp/plain.path")" plain
    check "the --jlink tarball: the same and runtime/" contents "$(cat "$tmp/jlink.path")" jlink
fi
if [[ -d "$tmp/jlink-home" ]]; then
    check "--jlink, no JDK: bin/jccl demo -np 2 (sums and perf #wrong)" demo_without_jdk
    check "--jlink, no JDK: bin/jccl params" params_without_jdk
    check "--jlink, no JDK: bin/jccl java (threads example)" java_without_jdk
    check "--jlink: bin/jccl test says it needs the source tree" test_refused
fi
if [[ -d "$tmp/plain-home" ]]; then
    check "plain, only JAVA_HOME: bin/jccl run -np 2 (allReduce example)" run_with_java_home
fi
echo "test-dist: $passed passed, $failed failed in $((SECONDS - start)) s"
[[ $failed -eq 0 ]]

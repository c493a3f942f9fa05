#!/usr/bin/env bash
# Builds the libFuzzer targets (Fuzz/LightboxFuzz) with the fuzzer and address sanitizers and runs
# each for FUZZ_SECONDS, one after the other. Prints each target's executions and findings; exits
# non-zero when any target crashed, leaked, hung or ran out of memory. `make fuzz` runs this.
#
#   FUZZ_SECONDS=60 Fuzz/run.sh            every target
#   FUZZ_SECONDS=300 Fuzz/run.sh jpeg wire some of them
#
# Work (seeds, the corpus each run grows, crash files) goes to FUZZ_WORK (.build-fuzz/work), which
# git ignores; a finding to keep is copied to Tests/Fixtures/fuzz-regressions/<target>/ by hand,
# fixed, and then replayed by `make test` (FuzzRegressionTests).
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
SECONDS_PER_TARGET=${FUZZ_SECONDS:-60}
WORK=${FUZZ_WORK:-$ROOT/.build-fuzz/work}
ALL_TARGETS=(wire zmtp connection jpeg png webp gif heif movie exif strip motion)
TARGETS=("$@")
[ ${#TARGETS[@]} -eq 0 ] && TARGETS=("${ALL_TARGETS[@]}")

# One product at a time: building the whole package would also build the root package's own
# executables with -sanitize=fuzzer, which cannot link. lld (from the Swift toolchain): GNU gold
# fails on these executables' debug info.
# The fuzz package builds the repository's sources from outside its own folder, so SwiftPM does not
# notice a source file added or removed there: the build plan is made afresh each run.
rm -f "$ROOT/.build-fuzz/debug.yaml" "$ROOT"/.build-fuzz/*/debug/description.json
for target in "${TARGETS[@]}"; do
    swift build --package-path Fuzz/LightboxFuzz -c debug --scratch-path .build-fuzz --product "fuzz-$target" \
        -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -use-ld=lld 2>&1 \
        | grep -v "Cannot export local symbol"
    [ "${PIPESTATUS[0]}" -eq 0 ] || { echo "fuzz: fuzz-$target did not build" >&2; exit 2; }
done
BIN=$(swift build --package-path Fuzz/LightboxFuzz -c debug --scratch-path .build-fuzz --show-bin-path)

rm -rf "$WORK/seeds"
python3 Fuzz/seeds.py "$ROOT" "$WORK" "${TARGETS[@]}" || exit 2

failed=0
summary=()
for target in "${TARGETS[@]}"; do
    corpus=$WORK/corpus/$target
    artifacts=$WORK/artifacts/$target
    mkdir -p "$corpus" "$artifacts"
    log=$WORK/$target.log
    marker=$WORK/.started-$target
    touch "$marker"
    echo "fuzz: $target for ${SECONDS_PER_TARGET}s (log: $log)"
    # The connection target serves real connections on swift-nio's threads: what they hold lives in
    # Swift enums whose class payloads are tagged in a pointer's spare bits, which LeakSanitizer does
    # not follow (it reported NIO's socket addresses and opened frames as leaked, one per input, while
    # the picker's memory stays flat under 200,000 frames in TransportBoundsTests). Its memory is
    # bounded by -rss_limit_mb instead.
    extra=()
    asan=allocator_may_return_null=1
    [ "$target" = connection ] && extra=(-detect_leaks=0) && asan+=:detect_leaks=0
    # Leaks are findings too (libFuzzer checks each input that allocates more than it frees).
    ASAN_OPTIONS=$asan LSAN_OPTIONS=suppressions=$ROOT/Fuzz/lsan-suppressions.txt \
    "$BIN/fuzz-$target" "$corpus" "$WORK/seeds/$target" "${extra[@]}" \
        -max_total_time="$SECONDS_PER_TARGET" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=2048 \
        -max_len=262144 -print_final_stats=1 -artifact_prefix="$artifacts/" >"$log" 2>&1
    status=$?
    executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    findings=$(find "$artifacts" -type f -newer "$marker" 2>/dev/null | sort)
    if [ $status -ne 0 ]; then
        failed=1
        echo "fuzz: $target FAILED (exit $status) after ${executions:-?} executions:"
        grep -m1 -E "ERROR: (AddressSanitizer|libFuzzer)|Fatal error|deadly signal" "$log" | sed 's/^/    /'
        grep -m3 -E "^ *#[0-9]+ .* in " "$log" | sed 's/^/    /'
        echo "$findings" | sed '/^$/d; s/^/    finding: /'
    fi
    summary+=("$(printf '%-6s %12s executions  %s' "$target" "${executions:-?}" "$([ $status -eq 0 ] && echo "no findings" || echo "FAILED (exit $status)")")")
done

echo "fuzz: summary (${SECONDS_PER_TARGET}s per target)"
printf '    %s\n' "${summary[@]}"
exit $failed

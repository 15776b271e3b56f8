#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# CI step: build the libFuzzer targets (clang, ASan+UBSan) and run each for a
# bounded time from its committed seed corpus. Fails on any crash, leak,
# sanitizer report, timeout or out-of-memory. Run from the repository root.
#   FUZZ_SECONDS   seconds per target (default: 90 s shared among targets,
#                  at most 35 s each)
#   FUZZ_BUILD     build directory (default build-ci-fuzz; reused if present)
set -u
cd "$(dirname "$0")/../.."
build=${FUZZ_BUILD:-build-ci-fuzz}
if [ ! -f "$build/build.ninja" ]; then
	log=$(mktemp)
	CC=clang meson setup "$build" -Dfuzz=true -Dtests=false -Db_sanitize=address,undefined \
		-Db_lundef=false >"$log" 2>&1 || { tail -30 "$log"; rm -f "$log"; exit 1; }
	rm -f "$log"
fi
# One target per corpus folder, plus the nanopb-checked reader on the
# reader's corpus.
targets="$(cd tests/fuzz/corpus && ls) reader_verify"
ninja -C "$build" $(for t in $targets; do echo "tests/fuzz/fuzz_$t"; done) >"$build/ci-fuzz-ninja.log" 2>&1 \
	|| { tail -30 "$build/ci-fuzz-ninja.log"; exit 1; }
n=$(echo "$targets" | wc -w)
secs=${FUZZ_SECONDS:-$((90 / n))}
[ "$secs" -gt 35 ] && [ -z "${FUZZ_SECONDS:-}" ] && secs=35
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
for t in $targets; do
	# A scratch copy: the committed corpus stays as it is.
	mkdir -p "$work/$t/corpus" "$work/$t/art"
	cp tests/fuzz/corpus/"${t%_verify}"/* "$work/$t/corpus/"
	log=$work/$t/log
	# -close_fd_mask=2 keeps the tools' own error messages out of the log;
	# libFuzzer and the sanitizers still report on a duplicate of stderr.
	"$build/tests/fuzz/fuzz_$t" -max_total_time="$secs" -timeout=60 -rss_limit_mb=2048 \
		-max_len=8192 -close_fd_mask=2 -print_final_stats=1 -artifact_prefix="$work/$t/art/" \
		"$work/$t/corpus" >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	cov=$(grep -a 'DONE\|INITED' "$log" | tail -1 | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
	if [ $rc -ne 0 ] || ls "$work/$t/art/"* >/dev/null 2>&1; then
		echo "FUZZ FAIL $t (exit $rc, ${execs:-?} execs)"
		grep -a -B2 -A25 'ERROR\|INVARIANT\|runtime error' "$log" | head -60
		for a in "$work/$t/art/"*; do
			[ -e "$a" ] || continue
			echo "input $(basename "$a") (hex): $(od -An -tx1 -v "$a" | tr -d ' \n' | head -c 2000)"
		done
		fail=1
	else
		echo "fuzz ok   $t: ${execs:-?} execs in ${secs}s, cov ${cov:-?}"
	fi
done
exit $fail

#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The command line: --help written from each command's option
# table, nested commands named as typed in messages and hints, number
# errors naming the command, did-you-mean for commands and options, sizes
# with suffixes, the progress bar with a total and a percentage.
set -u
C=${CHAKRA_EXE:?}
D=${CHAKRA_SHARED:?}/data
T=$(mktemp -d "${TMPDIR:-/tmp}/cli.XXXXXX") || exit 1
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
# run RC ARGS...: run chakra, stdout/stderr to $T/out, $T/err; check the exit status
run() { want=$1; shift; "$C" "$@" >"$T/out" 2>"$T/err"; got=$?; [ $got -eq "$want" ] || { fail "chakra $*: exit $got, wanted $want"; cat "$T/err" >&2; }; }
has() { grep -qF -- "$2" "$T/$1" || { fail "$1 of the last command lacks: $2"; sed 's/^/  | /' "$T/$1" >&2; }; }
ET=$D/astra-sim/microbenchmarks/all_reduce/4npus_1MB/all_reduce.0.et

# --help from the tables: the usage line names the command, every option is listed
for c in jsonize pack validate "bench read" feed "bench feed" "generate synthetic" stats visualize timeline; do
	run 0 $c --help
	has out "usage: chakra $c "
	has out "  -h, --help            this help"
done
run 0 validate --help; has out "  --max-errors N        error lines shown per file (default 100, 0 = all);"
run 0 stats --help; has out "  --deps KIND           data (default), ctrl or both"
run 0 jsonize --help; has out "  -o, --output FILE     write here instead of stdout ('-' = stdout)"

# nested commands say their whole name, in the message and in the hint
run 2 generate synthetic
has err "chakra generate synthetic: missing N (node count)"
has err "Try 'chakra generate synthetic --help'."
run 2 bench feed
has err "chakra bench feed: missing TRACE"
has err "Try 'chakra bench feed --help'."
run 2 generate micro --npus x --collective all_reduce --size 1 -o "$T/m"
has err "chakra generate micro: --npus: expected a non-negative integer, got 'x'"
has err "Try 'chakra generate micro --help'."
run 2 convert text --npus 4
has err "Try 'chakra convert text --help'."

# number and choice errors name the command and give the hint
run 2 validate --max-errors x "$ET"
has err "chakra validate: --max-errors: expected a non-negative integer, got 'x'"
has err "Try 'chakra validate --help'."
run 2 stats --deps foo "$ET"
has err "chakra stats: --deps: expected data, ctrl or both, got 'foo'"
run 2 timeline "$ET" --npus 0 --frequency 1 -o "$T/t.json"
has err "chakra timeline: --npus must be between 1 and 16777216"
run 2 visualize "$ET" --depth 2 -o "$T/v.dot"
has err "chakra visualize: --depth goes with --around"
run 2 jsonize
has err "chakra jsonize: missing TRACE"
run 2 jsonize a b
has err "chakra jsonize: one TRACE expected, got 2 ('a' and 'b')"
run 2 pack "$ET" -o
has err "chakra pack: -o needs a value (FILE)"

# did you mean
run 2 stat "$ET"
has err "chakra: unknown command 'stat'; did you mean 'stats'?"
run 2 valdate "$ET"
has err "did you mean 'validate'?"
run 2 bench fed
has err "chakra bench: unknown command 'fed'; expected one of:"
run 2 validate --max-eror 3 "$ET"
has err "chakra validate: unknown option '--max-eror' (did you mean '--max-errors'?)"
run 2 jsonize --protobuf "$ET"
has err "unknown option '--protobuf' (did you mean '--protobuf-json'?)"
run 2 zzzzzz
has err "chakra: unknown command 'zzzzzz'"

# options anywhere, --name=value, -- ends the options
run 0 jsonize --pretty "$ET" --output="$T/j.json"
run 0 jsonize -f -o "$T/j.json" -- "$ET"
[ -s "$T/j.json" ] || fail "jsonize with -- wrote nothing"

# sizes with suffixes, as ASTRA-sim's folder names use them (1MB = 2^20 bytes)
for s in 1MB 1MiB 1048576 1024KB 1mb; do
	rm -f "$T/m".*
	run 0 generate micro --collective all_reduce --npus 4 --size $s -o "$T/m"
	cmp -s "$T/m.0.et" "$ET" || fail "generate micro --size $s: not ASTRA-sim's 4npus_1MB file"
done
run 2 generate micro --collective all_reduce --npus 4 --size 1XB -o "$T/m2"
has err "chakra generate micro: --size: expected a size in bytes"
run 2 generate micro --collective all_reduce --npus 4 --size 99999999999TB -o "$T/m2"

# the progress bar: a total, a percentage, the nodes (shown when forced;
# not under valgrind, where the run is too slow to be worth it)
case $C in *valgrind*) ;; *)
	run 0 generate synthetic 800000 -o "$T/s.et"
	gzip -1 -c "$T/s.et" >"$T/s.et.gz"
	# plain: the file's size; gzip: the size from its trailer
	for cf in "validate $T/s.et" "stats $T/s.et.gz"; do
		f=${cf#* }
		env -u CHAKRA_NO_PROGRESS CHAKRA_PROGRESS=1 CHAKRA_PROGRESS_INTERVAL=0.005 "$C" $cf >/dev/null 2>"$T/err"
		tr '\r' '\n' <"$T/err" | grep -qE "^$f: \[[#.]{20}\] +[0-9]+%  [0-9]+ nodes, [0-9.]+ MB of 70\.[0-9] MB" ||
			{ fail "$cf: no progress bar with a total"; tr '\r' '\n' <"$T/err" | head -3 >&2; }
	done
	"$C" stats - <"$T/s.et" >/dev/null 2>"$T/err" # stdin: no total, no bar (and not forced here)
	[ -s "$T/err" ] && fail "stats -: progress shown without a terminal"
	;;
esac
rm -rf "$T"
[ $fails -eq 0 ] && echo "command line: all checks passed"
exit $fails

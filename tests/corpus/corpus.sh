#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The conformance corpus (tests/corpus/manifest.txt): every trace converts
# (alone, and with its pair), the output validates, and each ProfilerStep
# (else the whole trace) replays once within 1% of its recorded duration and
# within 10% with --modelled-gaps; a step the manifest says is refused is
# refused by name, and no other is.
#
#   sh corpus.sh data|cache [--table]
#
# data: the traces in tests/data ($CHAKRA_SHARED/data); cache: those fetch.sh
# put in $CHAKRA_CORPUS (default ${XDG_CACHE_HOME:-~/.cache}/libchakra-corpus),
# skipped (exit 77) when none is there. --table prints the rows of the table in
# docs/convert.md ("Conformance corpus").
set -u
exe=${CHAKRA_EXE:?}
here=$(dirname "$0")
place=${1:?usage: corpus.sh data|cache [--table]}
table=0
[ "${2:-}" = --table ] && table=1
case $place in
data) root=${CHAKRA_SHARED:?}/data ;;
cache) root=${CHAKRA_CORPUS:-${XDG_CACHE_HOME:-$HOME/.cache}/libchakra-corpus} ;;
*) echo "usage: corpus.sh data|cache [--table]" >&2; exit 2 ;;
esac
tmp=$(mktemp -d /tmp/chakra-corpus-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail=0
ran=0
say() { echo "FAIL: $*"; fail=1; }
row() { [ "$table" = 1 ] && echo "$*"; return 0; }

# JSON field of `chakra sim --replay --json` (a number)
field() { # file key
	sed -n "s/.*\"$2\":\\([-0-9.]*\\).*/\\1/p" "$1" | head -1
}
# percent difference of $1 against $2, and whether it is within $3 percent
pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%+.2f", b ? (a - b) / b * 100 : 0 }'; }
within() { awk -v a="$1" -v b="$2" -v l="$3" 'BEGIN { d = b ? (a - b) / b * 100 : 0; exit !(d <= l && d >= -l) }'; }
us() { awk -v a="$1" 'BEGIN { printf "%.1f", a }'; }

# Replay one converted window: recorded vs once, and with modelled gaps.
replay_row() { # id source events nodes what et
	"$exe" sim --replay --workload "$6" --json >"$tmp/r" 2>"$tmp/re" ||
		{ say "$1 $5: replay"; head -3 "$tmp/re"; return; }
	"$exe" sim --replay --workload "$6" --json --modelled-gaps >"$tmp/m" 2>"$tmp/me" ||
		{ say "$1 $5: replay --modelled-gaps"; head -3 "$tmp/me"; return; }
	rec=$(field "$tmp/r" recorded_us)
	win=$(field "$tmp/r" replayed_window_us)
	loop=$(field "$tmp/r" iteration_us)
	mg=$(field "$tmp/m" replayed_window_us)
	if [ -z "$rec" ] || [ -z "$win" ] || [ -z "$mg" ]; then
		say "$1 $5: the replay printed no window"
		return
	fi
	within "$win" "$rec" 1 || say "$1 $5: replayed $win us against $rec us recorded ($(pct "$win" "$rec")%)"
	within "$mg" "$rec" 10 ||
		say "$1 $5: --modelled-gaps $mg us against $rec us recorded ($(pct "$mg" "$rec")%)"
	row "| \`$1\` | $2 | $3 | $4 | $5 | $(us "$rec") | $(us "$win") ($(pct "$win" "$rec")%) |" \
		"$(us "$mg") ($(pct "$mg" "$rec")%) | $(us "$loop") |"
}

convert_ok() { # what out log -- command...
	what=$1 out=$2 log=$3
	shift 4
	"$exe" "$@" -o "$out" -f 2>"$log" || { say "$what: $(tail -1 "$log")"; return 1; }
	"$exe" validate "$out" >"$tmp/v" 2>&1 || { say "$what: validate: $(tail -1 "$tmp/v")"; return 1; }
	return 0
}

count() { # log pattern: the number after it
	sed -n "s/^$2 \\([0-9]*\\).*/\\1/p" "$1" | head -1
}

while read -r id pl kind file pair src expect; do
	case $id in '#'* | '') continue ;; esac
	[ "$pl" = "$place" ] || continue
	f=$root/$file
	if [ ! -f "$f" ]; then
		[ "$place" = data ] && say "$id: $f is missing"
		continue
	fi
	p=-
	[ "$pair" = - ] || p=$root/$pair
	ran=$((ran + 1))
	refuse=
	case $expect in refuse=*) refuse=",${expect#refuse=}," ;; esac
	if [ "$kind" = kineto ]; then
		convert_ok "$id" "$tmp/all.et" "$tmp/all.log" -- convert kineto "$f" || continue
		events=$(count "$tmp/all.log" "read:")
		nodes=$(count "$tmp/all.log" "wrote:")
		steps=$("$exe" jsonize "$tmp/all.et" | head -1 | grep -o 'ProfilerStep#[0-9]*' |
			sed 's/ProfilerStep#//' | sort -un)
		if [ -z "$steps" ]; then
			replay_row "$id" "$src" "$events" "$nodes" "whole trace" "$tmp/all.et"
			continue
		fi
		for s in $steps; do
			if ! "$exe" convert kineto "$f" --step "$s" -o "$tmp/s.et" -f -q 2>"$tmp/se"; then
				case $refuse in
				*",$s,"*)
					grep -q "event [0-9]*: 'ProfilerStep#$s' .*holds nothing to convert" "$tmp/se" ||
						say "$id step $s: refused without naming it: $(cat "$tmp/se")"
					row "| \`$id\` | $src | $events | $nodes | $s | refused: $(sed 's/^chakra: [^:]*: //' "$tmp/se") | | | |"
					;;
				*) say "$id step $s: $(cat "$tmp/se")" ;;
				esac
				continue
			fi
			case $refuse in *",$s,"*) say "$id step $s: converted, but should be refused" ;; esac
			"$exe" validate "$tmp/s.et" >"$tmp/v" 2>&1 || say "$id step $s: validate: $(tail -1 "$tmp/v")"
			replay_row "$id" "$src" "$events" "$nodes" "$s" "$tmp/s.et"
		done
	else
		convert_ok "$id" "$tmp/et.et" "$tmp/et.log" -- convert pytorch --et "$f" || continue
		events=$(count "$tmp/et.log" "read:")
		nodes=$(count "$tmp/et.log" "wrote:")
		if [ "$p" = - ]; then
			row "| \`$id\` | $src | $events | $nodes | (no Kineto trace) | | | | |"
			continue
		fi
		[ -f "$p" ] || { say "$id: its pair $p is missing"; continue; }
		convert_ok "$id + Kineto" "$tmp/pair.et" "$tmp/pair.log" -- convert pytorch --et "$f" --kineto "$p" ||
			continue
		grep -q 'kernels with a host op' "$tmp/pair.log" || say "$id + Kineto: no link summary"
		replay_row "$id" "$src" "$events" "$(count "$tmp/pair.log" "wrote:")" "+ Kineto (linked span)" \
			"$tmp/pair.et"
	fi
done <"$here/manifest.txt"
if [ "$ran" = 0 ]; then
	echo "SKIP: no trace of the corpus in $root (sh tests/corpus/fetch.sh fetches them)"
	exit 77
fi
[ "$fail" = 0 ] && echo "corpus ($place): $ran traces converted, validated and replayed within bounds"
exit $fail

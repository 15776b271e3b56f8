#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Every reference number of simulation-model.md, to the cycle, in both
# network models (ASTRA-sim 2.0's analytical backends).
set -u
. "$(dirname "$0")/../need.sh" && need_data data/astra-sim
X="$CHAKRA_EXE"
D="$CHAKRA_SHARED/data/astra-sim"
fails=0
finish() { # workload network system model -> finish_cycles
	"$X" sim --workload "$1" --network "$2" --system "$3" --model "$4" --json |
		sed -n 's/^{"finish_cycles":\([0-9]*\),.*/\1/p'
}
expect() { # want got what
	if [ "$1" != "$2" ]; then
		echo "FAIL $3: want $1 got '$2'"
		fails=$((fails + 1))
	else
		echo "ok   $3: $2"
	fi
}
for m in unaware aware; do
	for spec in all_reduce:4:43000 all_reduce:8:64440 all_reduce:16:99640 \
	            all_gather:4:64744 all_gather:8:151016 all_gather:16:323560 \
	            reduce_scatter:4:22240 reduce_scatter:8:33080 reduce_scatter:16:50740 \
	            all_to_all:4:41560 all_to_all:8:125480 all_to_all:16:391240; do
		c=${spec%%:*}; rest=${spec#*:}; n=${rest%%:*}; want=${rest#*:}
		got=$(finish "$D/microbenchmarks/$c/${n}npus_1MB/$c" "$D/network/Ring_${n}npus.yml" \
			"$D/system/Ring_4chunks.json" $m)
		expect "$want" "$got" "$c $n NPUs ($m)"
	done
done
got=$(finish "$D/microbenchmarks/all_reduce/8npus_1MB/all_reduce" \
	"$D/network/HGX-H100-validated.yml" "$D/system/HGX-H100-validated.json" unaware)
expect 55222 "$got" "HGX-H100 all_reduce (unaware)"
got=$(finish "$D/microbenchmarks/all_reduce/8npus_1MB/all_reduce" \
	"$D/network/HGX-H100-validated.yml" "$D/system/HGX-H100-validated.json" aware)
expect 57426 "$got" "HGX-H100 all_reduce (aware: switch links queue)"

# rt_template with ASTRA-sim's own option spellings; every NPU must finish
# at the cycle of expected_stdout.txt.
want=$(sed -n 's/^sys\[0\] finished, \([0-9]*\) cycles.*/\1/p' "$D/rt_template/expected_stdout.txt")
expect 117780 "$want" "rt_template expected_stdout.txt"
for m in unaware aware; do
	out=$("$X" sim --workload-configuration="$D/microbenchmarks/all_reduce/8npus_1MB/all_reduce" \
		--network-configuration="$D/rt_template/network_cfg.yml" \
		--system-configuration="$D/rt_template/system_cfg.json" \
		--remote-memory-configuration="$D/rt_template/remote_memory_cfg.json" --model $m)
	n=$(printf '%s\n' "$out" | awk '$1 ~ /^[0-9]+$/ && $2 == '"$want"' && $4 == '"$want"' { c++ } END { print c + 0 }')
	expect 8 "$n" "rt_template NPUs finishing at $want with all of it exposed ($m)"
done
# ASTRA-sim's own output lines, as in expected_stdout.txt.
"$X" sim --workload "$D/microbenchmarks/all_reduce/8npus_1MB/all_reduce" \
	--network "$D/rt_template/network_cfg.yml" --system "$D/rt_template/system_cfg.json" \
	--astra-sim-log >"${TMPDIR:-/tmp}/sim-rt-$$.txt"
grep '^sys\[[0-9]*\] finished' "$D/rt_template/expected_stdout.txt" |
	cmp -s - "${TMPDIR:-/tmp}/sim-rt-$$.txt" && echo "ok   rt_template finished lines identical" ||
	{ echo "FAIL rt_template lines differ"; fails=$((fails + 1)); }
rm -f "${TMPDIR:-/tmp}/sim-rt-$$.txt"
exit $fails

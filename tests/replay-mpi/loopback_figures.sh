#!/bin/sh
# The figures of docs/replay-mpi.md, "Replayed vs simulated": the all-reduce
# microbenchmarks (chakra generate micro, ASTRA-sim's layout) replayed at 2,
# 4 and 8 ranks on this machine, over shared memory and over TCP on the
# loopback interface, beside chakra sim's prediction for a network
# calibrated on the same machine and transport:
#   1. a 2-rank send/recv ring at 8 B .. 4 MiB gives latency L and
#      bandwidth B (least squares of the receive times, t = L + S / B);
#   2. the network is one FullyConnected dimension of N NPUs with that L
#      and B, ring all-reduce, one chunk, no endpoint delay, local-mem-bw B;
#   3. each microbenchmark is replayed with --network/--system.
# Not a test (it takes minutes). Usage:
#   tests/replay-mpi/loopback_figures.sh BUILD_DIR [SIZES] [REPEATS]
# SIZES default "65536 1048576 16777216"; REPEATS (default 3) runs of each
# configuration, the median replayed time is printed with the range.
set -eu
B=${1:?usage: loopback_figures.sh BUILD_DIR [SIZES] [REPEATS]}
SIZES=${2:-"65536 1048576 16777216"}
REP=${3:-3}
C=$B/tools/chakra
R=$B/tools/replay-mpi/chakra-replay
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_oob_tcp_if_include=lo
T=$(mktemp -d "${TMPDIR:-/tmp}/replay-figures.XXXXXX")
trap 'rm -rf "$T"' EXIT
echo "# $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(mpirun --version | head -1)"

iters() { # fewer iterations for large messages
	if [ "$1" -ge 16777216 ]; then echo 20; elif [ "$1" -ge 1048576 ]; then echo 50; else echo 200; fi
}

for transport in shm tcp; do
	if [ $transport = shm ]; then
		MCA="--mca btl self,vader"
	else
		MCA="--mca btl self,tcp --mca btl_tcp_if_include lo"
	fi
	# 1. calibration
	: >"$T/cal"
	for s in 8 65536 1048576 4194304; do
		"$C" generate micro --send-recv-ring --npus 2 --size $s -o "$T/ring$s" -f >/dev/null
		mpirun $MCA -np 2 "$R" "$T/ring$s" --iters "$(iters $s)" --warmup 5 --json >"$T/ring.json"
		/usr/bin/python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
t = [o["time_us"] for o in r["operations"] if o["op"] == "RECV"][0]
print(sys.argv[2], t)' "$T/ring.json" $s >>"$T/cal"
	done
	# t_us = a + b * S  ->  L = a * 1000 ns, B = 1 / (b * 1000) bytes/ns
	set -- $(/usr/bin/python3 -c '
import sys
pts = [tuple(map(float, l.split())) for l in open(sys.argv[1])]
n = len(pts); sx = sum(p[0] for p in pts); sy = sum(p[1] for p in pts)
sxx = sum(p[0] ** 2 for p in pts); sxy = sum(p[0] * p[1] for p in pts)
b = (n * sxy - sx * sy) / (n * sxx - sx * sx); a = (sy - b * sx) / n
lat_ns = max(a, 0) * 1000; bpns = 1 / (b * 1000)
print("%.1f %.4f %.3f" % (lat_ns, bpns * 1e9 / 2 ** 30, bpns))' "$T/cal")
	lat=$1 gib=$2 lbw=$3
	echo "## $transport: calibration (2-rank ring, receive time):" $(awk '{printf "%s B %.2f us; ", $1, $2}' "$T/cal")
	echo "##   latency $lat ns, bandwidth $gib GiB/s ($lbw GB/s)"
	cat >"$T/sys.json" <<EOF
{"scheduling-policy": "LIFO", "endpoint-delay": 0, "active-chunks-per-dimension": 1,
 "preferred-dataset-splits": 1, "all-reduce-implementation": ["ring"],
 "all-gather-implementation": ["ring"], "reduce-scatter-implementation": ["ring"],
 "all-to-all-implementation": ["ring"], "collective-optimization": "localBWAware",
 "local-mem-bw": $lbw, "boost-mode": 0}
EOF
	echo "| transport | ranks | size | replayed (us) | range (us) | busbw (GB/s) | simulated (us) | sim busbw (GB/s) | replayed / simulated |"
	echo "|---|---|---|---|---|---|---|---|---|"
	for n in 2 4 8; do
		printf 'topology: [ FullyConnected ]\nnpus_count: [ %s ]\nbandwidth: [ %s ]\nlatency: [ %s ]\n' \
			$n "$gib" "$lat" >"$T/net$n.yml"
		for s in $SIZES; do
			"$C" generate micro --collective all_reduce --npus $n --size $s -o "$T/ar$n-$s" -f >/dev/null
			: >"$T/runs"
			i=0
			while [ $i -lt "$REP" ]; do
				mpirun $MCA -np $n "$R" "$T/ar$n-$s" --iters "$(iters $s)" --warmup 5 --json \
					--network "$T/net$n.yml" --system "$T/sys.json" >"$T/ar.json"
				/usr/bin/python3 -c '
import json, sys
o = json.load(open(sys.argv[1]))["operations"][0]
print(o["time_us"], o["busbw_gbps"], o["sim_time_us"], o["sim_busbw_gbps"])' "$T/ar.json" >>"$T/runs"
				i=$((i + 1))
			done
			/usr/bin/python3 -c '
import sys
runs = sorted(tuple(map(float, l.split())) for l in open(sys.argv[1]))
t, bw, st, sbw = runs[len(runs) // 2]
print("| %s | %s | %s | %.1f | %.1f-%.1f | %.3f | %.1f | %.3f | %.1fx |" % (sys.argv[2], sys.argv[3],
      sys.argv[4], t, runs[0][0], runs[-1][0], bw, st, sbw, t / st))' "$T/runs" $transport $n $s
		done
	done
done
echo "# load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"

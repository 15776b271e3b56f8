#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The figures of docs/replay-mpi.md, "Replayed vs simulated": the all-reduce
# microbenchmarks (chakra generate micro, ASTRA-sim's layout) replayed at 2,
# 4 and 8 ranks on this machine, over shared memory and over TCP on the
# loopback interface, beside the simulator's prediction for a network
# calibrated on the same machine and transport:
# Times are means per operation; of REPEATS runs the one with the lowest
# mean is kept (on a shared machine the least disturbed one), and the
# fastest single operation of all runs is printed too.
#   1. a 2-rank send/recv ring measures the time t(m) of an exchange of m
#      bytes (both ranks send and receive at once, as in a ring step), for
#      m = 8 (latency L = t(8)) and for m = S/N, the message a ring
#      all-reduce of S bytes on N ranks sends at each step; bandwidth
#      B = m / (t(m) - L). The model is then exact for those messages
#      (caches make one B for every size wrong by up to 10x here);
#   2. a 1-rank all-reduce of m bytes (a copy: m read, m written) gives the
#      memory bandwidth M = 2m / t for the simulator's reduction cost
#      (3 m / M: two reads, one write);
#   3. the network is one FullyConnected dimension of N NPUs with that L
#      and B, ring all-reduce, one chunk, no endpoint delay, local-mem-bw M;
#   4. each microbenchmark is replayed with --network/--system.
# Not a test (it takes minutes). Usage:
#   tests/replay-mpi/loopback_figures.sh BUILD_DIR [SIZES] [REPEATS] [TRANSPORTS]
# SIZES default "65536 1048576 16777216"; REPEATS (default 5) runs of each
# configuration and calibration point. TRANSPORTS default "shm tcp".
set -eu
B=${1:?usage: loopback_figures.sh BUILD_DIR [SIZES] [REPEATS] [TRANSPORTS]}
SIZES=${2:-"65536 1048576 16777216"}
REP=${3:-5}
TRANSPORTS=${4:-"shm tcp"}
C=$B/tools/chakra
R=$B/tools/replay-mpi/chakra-replay
PY=/usr/bin/python3
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_oob_tcp_if_include=lo
T=$(mktemp -d "${TMPDIR:-/tmp}/replay-figures.XXXXXX")
trap 'rm -rf "$T"' EXIT
echo "# $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(mpirun --version | head -1)"

iters() { # fewer iterations for large messages
	if [ "$1" -ge 16777216 ]; then echo 20; elif [ "$1" -ge 1048576 ]; then echo 50; else echo 200; fi
}

# The best mean 2-rank exchange of $1 bytes (us; the later of its send and
# receive), cached.
exchange() {
	f=$T/cal-$transport-$1
	if [ ! -f "$f" ]; then
		"$C" generate micro --send-recv-ring --npus 2 --size "$1" -o "$T/ring$1" -f >/dev/null
		best=""
		i=0
		while [ $i -lt "$REP" ]; do
			mpirun $MCA -np 2 "$R" "$T/ring$1" --iters "$(iters "$1")" --warmup 5 --json >"$T/ring.json"
			best=$($PY -c '
import json, sys
r = json.load(open(sys.argv[1]))
t = max(o["time_us"] for o in r["operations"])  # the step ends when both are done
print(min(t, float(sys.argv[2])) if sys.argv[2] else t)' "$T/ring.json" "$best")
			i=$((i + 1))
		done
		echo "$best" >"$f"
	fi
	cat "$f"
}

# The best time (us) of a 1-rank all-reduce of $1 bytes: a memory copy.
copy() {
	f=$T/copy-$1
	if [ ! -f "$f" ]; then
		"$C" generate micro --collective all_reduce --npus 1 --size "$1" -o "$T/one$1" -f >/dev/null
		best=""
		i=0
		while [ $i -lt "$REP" ]; do
			mpirun --mca btl self -np 1 "$R" "$T/one$1" --iters "$(iters "$1")" --warmup 5 --json >"$T/one.json"
			best=$($PY -c '
import json, sys
t = json.load(open(sys.argv[1]))["operations"][0]["time_us"]
print(min(t, float(sys.argv[2])) if sys.argv[2] else t)' "$T/one.json" "$best")
			i=$((i + 1))
		done
		echo "$best" >"$f"
	fi
	cat "$f"
}

for transport in $TRANSPORTS; do
	if [ "$transport" = shm ]; then
		MCA="--mca btl self,vader"
	else
		MCA="--mca btl self,tcp --mca btl_tcp_if_include lo"
	fi
	lat_us=$(exchange 8)
	echo
	echo "## $transport: latency (2-rank exchange of 8 bytes, best of $REP runs): $lat_us us"
	echo "| transport | ranks | size (B) | step message (B) | exchange (us) | link GiB/s | memory GB/s | replayed (us) | fastest op (us) | busbw (GB/s) | simulated (us) | sim busbw (GB/s) | replayed / simulated |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
	for n in 2 4 8; do
		for s in $SIZES; do
			m=$((s / n))
			t_m=$(exchange $m)
			c_m=$(copy $m)
			set -- $($PY -c '
import sys
m, t, l, c = map(float, sys.argv[1:5])
if t <= l:
    sys.exit("an exchange of %d bytes (%.1f us) was not slower than one of 8 bytes (%.1f us): "
             "the machine is too busy to calibrate" % (m, t, l))
bpns = m / ((t - l) * 1000)
print("%.1f %.4f %.4f" % (l * 1000, bpns * 1e9 / 2 ** 30, 2 * m / max(c * 1000, 1e-9)))' \
				$m "$t_m" "$lat_us" "$c_m")
			lat=$1 gib=$2 lbw=$3
			printf 'topology: [ FullyConnected ]\nnpus_count: [ %s ]\nbandwidth: [ %s ]\nlatency: [ %s ]\n' \
				$n "$gib" "$lat" >"$T/net.yml"
			cat >"$T/sys.json" <<EOF
{"scheduling-policy": "LIFO", "endpoint-delay": 0, "active-chunks-per-dimension": 1,
 "preferred-dataset-splits": 1, "all-reduce-implementation": ["ring"],
 "all-gather-implementation": ["ring"], "reduce-scatter-implementation": ["ring"],
 "all-to-all-implementation": ["ring"], "collective-optimization": "localBWAware",
 "local-mem-bw": $lbw, "boost-mode": 0}
EOF
			"$C" generate micro --collective all_reduce --npus $n --size $s -o "$T/ar$n-$s" -f >/dev/null
			: >"$T/runs"
			i=0
			while [ $i -lt "$REP" ]; do
				mpirun $MCA -np $n "$R" "$T/ar$n-$s" --iters "$(iters $s)" --warmup 5 --json \
					--network "$T/net.yml" --system "$T/sys.json" >"$T/ar.json"
				$PY -c '
import json, sys
o = json.load(open(sys.argv[1]))["operations"][0]
print(o["min_us"], o["time_us"], o["sim_time_us"])' "$T/ar.json" >>"$T/runs"
				i=$((i + 1))
			done
			$PY -c '
import sys
runs = [tuple(map(float, l.split())) for l in open(sys.argv[1])]
a = sys.argv[2:]
n, s = int(a[1]), int(a[2])
tmin = min(r[0] for r in runs)
tmean = min(r[1] for r in runs)
st = runs[0][2]
busbw = lambda t: s / (t * 1e-6) / 1e9 * 2 * (n - 1) / n
print("| %s | %d | %d | %s | %.1f | %.2f | %.1f | %.1f | %.1f | %.3f | %.1f | %.3f | %.2fx |" % (a[0],
      n, s, a[3], float(a[4]), float(a[5]), float(a[6]), tmean, tmin, busbw(tmean), st, busbw(st),
      tmean / st))' "$T/runs" "$transport" $n $s $m "$t_m" "$gib" "$lbw"
		done
	done
done
echo
echo "# load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"

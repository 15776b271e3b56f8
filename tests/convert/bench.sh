#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Benchmark (suite 'bench'): the ResNet-50 host ET alone and with its Kineto
# trace, beside the YAJL-only floor, against the reference tool chain's
# figures (Chakra's Python converter: 4.0 s / 145 MiB for the ET; trace
# linker 11.4 s + converter 5.3 s, 288 MiB peak, for the pair; measured on a
# 2-core machine like this one, ../shared/README.md). Targets: 50x faster at
# <= 1/5 of the memory. The times are wall clock, and meson runs other tests
# beside this one, so the gate is what a loaded machine cannot distort: peak
# memory, and the time beside the YAJL floor measured in the same run (at
# most 3x; 1.5-1.7x measured). The speedup over the reference is printed; it
# is enforced only with BENCH_STRICT=1 (run it so on an idle machine).
set -u
exe=${CHAKRA_EXE:?}
data=${CHAKRA_SHARED:?}/data
et=$data/pytorch/param-resnet50-ddp/resnet_1gpu_et.json.gz
k=$data/kineto/hta-nccl/nccl_data.json.gz
[ -f "$et" ] && [ -f "$k" ] || exit 77
out=$("$exe" bench convert --et "$et" --kineto "$k" --repeat "${BENCH_REPEAT:-5}") || exit 1
echo "$out"
echo "$out" | awk -v strict="${BENCH_STRICT:-0}" '
	/ET: convert/           { et_t = $3; et_m = $5; et_r = $7 }
	/ET\+Kineto: convert/   { p_t = $3; p_m = $5; p_r = $7 }
	END {
		fail = 0
		if (et_t == "" || p_t == "" || et_r == "" || p_r == "") { print "  figures missing"; exit 1 }
		printf "  ET alone:  %.3f s = %.0fx faster than the reference 4.0 s; %.1f MiB = 1/%.0f of its 145 MiB\n", et_t, 4.0 / et_t, et_m, 145 / et_m
		printf "  ET+Kineto: %.3f s = %.0fx faster than the reference 16.7 s; %.1f MiB = 1/%.0f of its 288 MiB\n", p_t, 16.7 / p_t, p_m, 288 / p_m
		if (4.0 / et_t < 50 || 16.7 / p_t < 50) {
			print "  time target (50x) missed" (strict ? "" : " (not enforced: BENCH_STRICT=1 to enforce)")
			if (strict) fail = 1
		}
		if (et_r + 0 > 3 || p_r + 0 > 3) { print "  more than 3x the YAJL floor"; fail = 1 }
		if (145 / et_m < 5 || 288 / p_m < 5) { print "  memory target (1/5) missed"; fail = 1 }
		exit fail
	}'

#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Fetches the conformance corpus's larger traces (tests/corpus/manifest.txt,
# place "cache") into a cache outside the source tree:
#
#   sh tests/corpus/fetch.sh [DIR]
#
# DIR defaults to $CHAKRA_CORPUS, else ${XDG_CACHE_HOME:-~/.cache}/libchakra-corpus,
# where the corpus-cache test looks (it skips when the cache is absent). Each
# file comes from its repository at a pinned commit, is checked against its
# SHA-256 before it is kept, and tarballs are unpacked beside themselves
# (NAME.tar.gz -> NAME.d/). Files already present and correct are not fetched
# again. CHAKRA_CORPUS_URL replaces https://raw.githubusercontent.com (a
# mirror, or file:// of a local copy laid out as OWNER/REPO/COMMIT/PATH).
set -u
dir=${1:-${CHAKRA_CORPUS:-${XDG_CACHE_HOME:-$HOME/.cache}/libchakra-corpus}}
base=${CHAKRA_CORPUS_URL:-https://raw.githubusercontent.com}
hta=facebookresearch/HolisticTraceAnalysis/f4d0062c382f42bd8a74838bcdad1916c7d5d2da
param=facebookresearch/param/1e115ffc62c6d048405d9b963191736c13811b1d

# destination (under DIR) | source (OWNER/REPO/COMMIT/PATH) | sha256; licenses:
# HolisticTraceAnalysis and PARAM are MIT (tests/data/SOURCES.md)
list() {
	cat <<EOF
hta/trace_diff/control.json.gz $hta/tests/data/trace_diff/control/control.json.gz 43ed872e4c5dc2e8da5946d761ed61923a75c6c799cc62be9e1c859d440a56fd
hta/ns_resolution/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz $hta/tests/data/ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz e279d7280e73719e8dd9550e120cfe081fbe268596bd297fe5fcbf63e2b75a09
hta/df_index_resolver/df_index_resolver.json.gz $hta/tests/data/df_index_resolver/df_index_resolver.json.gz 769af9ab5262468eb7baf6a7bfdb138ef15542264c72c0c313758d951b16dc15
hta/mtia_single_rank/mtia_rank_0.json.gz $hta/tests/data/mtia_trace_single_rank/mtia_rank_0.json.gz 74786104b3c45f02b805a5c346a8202c3ecc318a566a65e0b47c56d706374f80
hta/timeline_analysis/sampled_rank-0.json.gz $hta/tests/data/timeline_analysis/sampled_rank-0.json.gz 71b98c30a2751cc56d9bf78f8fb76467acd56e0be6a1f0da23c600941d29aafd
hta/trace_filter/sampled_rank-1.json.gz $hta/tests/data/trace_filter/sampled_rank-1.json.gz 2f9a65fd5f319ec8e60468a22dc9a624eb4b40369c729f6f897259d587eca57e
hta/distributed_info_unavailable/distributed_info_not_found.json.gz $hta/tests/data/distributed_info_unavailable/distributed_info_not_found.json.gz 2294b134930afc9253c9cc80c31ff7b40709f4114b51a37301dc7a19046bf7d2
hta/rank_unavailable/rank_not_found.json.gz $hta/tests/data/rank_unavailable/rank_not_found.json.gz 5d7c951ffc8455aceef0deaa2378cc5718d247173abcaec9f45af6d0826864b5
hta/critical_path_overlaid/overlaid_critical_path_trace.json.gz $hta/tests/data/critical_path/end_to_end/simple_add/output/overlaid_critical_path_trace.json.gz 36e89621c59a8834394764aabdb0ca952c70d95799e1b82a3ee273778841b2e7
param/resnet/resnet_et.json.gz $param/et_replay/tests/inputs/resnet_et.json.gz 4021d68f6718741133079ec1c86699cf0c1d725b693081325d0df606ad7dd8d1
param/resnet/resnet_kineto.json.gz $param/et_replay/tests/inputs/resnet_kineto.json.gz 9467d74ddb0cd577859b294cfe4cf742e476e940d29d99dc0e25eed104088276
param/resnet_2gpu/resnet_2gpu_et.json.gz $param/et_replay/tests/inputs/1.1.0-chakra.0.0.4/resnet_2gpu_et.json.gz 39e2726041f5c97942930818d7df8f9c9803d76f37b832d8c309a3ca007677f6
param/hf_gpt2/hf_GPT2_et.json.tar.gz $param/et_replay/tests/inputs/hf_GPT2_et.json.tar.gz 9f3bf734bad0f274a0e4afc5bc422f389548274e8556d7cfa286b00e8b32c809
param/resnet_1gpu_111/resnet_1gpu_et.json.tar.gz $param/et_replay/tests/inputs/resnet_1gpu_et.json.tar.gz 8a5ece06a17ccc0df40f946a83a72911365b2b8bc8404974476ed83e4aa6b8c3
param/dlrm/dlrm_kineto.tar.gz $param/et_replay/tests/inputs/dlrm_kineto.tar.gz cdeb818c32d6f11d7d6f3eed89f2561811ad4860fefd799322eed4522db2fcd0
param/dlrm/dlrm_pytorch_et.tar.gz $param/et_replay/tests/inputs/dlrm_pytorch_et.tar.gz 1b0a3770c54862744a91497f97793d852680a0c20c58895a786c41e37d8eca6e
EOF
}

sum_of() {
	sha256sum "$1" 2>/dev/null | cut -c1-64
}

if command -v curl >/dev/null 2>&1; then
	get() { curl -fsSL --retry 2 -o "$2" "$1"; }
elif command -v wget >/dev/null 2>&1; then
	get() { wget -q -O "$2" "$1"; }
else
	echo "fetch.sh: neither curl nor wget is installed" >&2
	exit 1
fi

mkdir -p "$dir" || exit 1
rm -f "$dir/.fetch-failed"
# the loop runs in a subshell (a pipeline): a failure leaves a mark file
list | while read -r dest src sum; do
	out=$dir/$dest
	bad=0
	if [ "$(sum_of "$out")" != "$sum" ]; then
		mkdir -p "$(dirname "$out")" || exit 1
		tmp=$out.part.$$
		if ! get "$base/$src" "$tmp"; then
			echo "fetch.sh: $base/$src: download failed" >&2
			rm -f "$tmp"
			: >"$dir/.fetch-failed"
			continue
		fi
		have=$(sum_of "$tmp")
		if [ "$have" != "$sum" ]; then
			echo "fetch.sh: $base/$src: SHA-256 $have, expected $sum: not kept" >&2
			rm -f "$tmp"
			: >"$dir/.fetch-failed"
			continue
		fi
		mv -f "$tmp" "$out" || exit 1
	fi
	case $out in
	*.tar.gz)
		d=${out%.tar.gz}.d
		if [ ! -d "$d" ]; then
			mkdir -p "$d.part.$$" && tar -xzf "$out" -C "$d.part.$$" 2>/dev/null &&
				mv "$d.part.$$" "$d" || { echo "fetch.sh: $out: cannot unpack" >&2; rm -rf "$d.part.$$"; bad=1; }
		fi
		;;
	esac
	[ "$bad" = 0 ] && echo "$dest"
	[ "$bad" = 0 ] || : >"$dir/.fetch-failed"
done
if [ -e "$dir/.fetch-failed" ]; then
	rm -f "$dir/.fetch-failed"
	echo "fetch.sh: some files could not be fetched (above); the corpus-cache test skips what is absent" >&2
	exit 1
fi
echo "fetch.sh: the corpus cache is complete in $dir"

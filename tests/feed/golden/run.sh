#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Test feed-golden: `chakra feed` on 60-odd generated traces and the real
# chakra.0.et under 13 option sets must print exactly the recorded ids,
# stderr and exit status (expected/*.txt). Logic in make_cases.py.
. "$(dirname "$0")/../../need.sh" && need_data data/chakra/chakra.0.et.gz
py=/usr/bin/python3
if [ ! -x "$py" ]; then
	echo "skipped: $py not found"
	exit 77
fi
exec "$py" "$(dirname "$0")/make_cases.py" --check "${CHAKRA_EXE:?}" "${CHAKRA_SHARED:?}"

#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Every source file carries an SPDX license line in its first lines (the
# license is LICENSE: Apache-2.0, as meson.build declares). Sources: C, C++,
# Python, shell, meson and CMake files tracked by git (test data excluded).
# Skips outside a git checkout (a release tarball).
set -u
cd "${CHAKRA_SOURCE:?}" || exit 1
command -v git >/dev/null && git rev-parse --git-dir >/dev/null 2>&1 ||
	{ echo "SKIP: not a git checkout"; exit 77; }
missing=$(git ls-files | grep -E '\.(c|h|cpp|hpp|py|sh)$|(^|/)meson\.build$|CMakeLists\.txt$|^\.ci/' |
	grep -v '^tests/data/' | while IFS= read -r f; do
		[ -f "$f" ] || continue
		head -n 5 "$f" | grep -q 'SPDX-License-Identifier: Apache-2.0' || echo "$f"
	done)
if [ -n "$missing" ]; then
	echo "FAIL: no 'SPDX-License-Identifier: Apache-2.0' line in the first 5 lines of:"
	printf '  %s\n' $missing
	exit 1
fi
echo "ok: every source file has its SPDX line"

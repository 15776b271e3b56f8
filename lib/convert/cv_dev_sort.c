/* SPDX-License-Identifier: Apache-2.0 */
/* The device pass's sort of event indices: stable, by (key1 asc, key2
 * desc, index asc), merge sort with insertion sort for short runs. */
#include <string.h>

#include "cv.h"

static int before(const int64_t *k1, const int64_t *k2, uint32_t a, uint32_t b)
{
	if (k1[a] != k1[b])
		return k1[a] < k1[b];
	if (k2 && k2[a] != k2[b])
		return k2[a] > k2[b];
	return a < b;
}

void chakra__cv_dev_msort(uint32_t *v, size_t n, const int64_t *k1, const int64_t *k2,
                          uint32_t *tmp)
{
	if (n < 12) {
		for (size_t i = 1; i < n; i++) {
			uint32_t x = v[i];
			size_t j = i;
			while (j && before(k1, k2, x, v[j - 1])) {
				v[j] = v[j - 1];
				j--;
			}
			v[j] = x;
		}
		return;
	}
	size_t h = n / 2;
	chakra__cv_dev_msort(v, h, k1, k2, tmp);
	chakra__cv_dev_msort(v + h, n - h, k1, k2, tmp);
	size_t i = 0, j = h, o = 0;
	while (i < h && j < n)
		tmp[o++] = before(k1, k2, v[j], v[i]) ? v[j++] : v[i++];
	while (i < h)
		tmp[o++] = v[i++];
	while (j < n)
		tmp[o++] = v[j++];
	memcpy(v, tmp, n * sizeof *v);
}

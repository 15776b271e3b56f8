/* SPDX-License-Identifier: Apache-2.0 */
/* Device pass, step 3b (mode B, with an ET): each significant runtime
 * call belongs to the host op its enclosing cpu_ops are linked to. */

#include "cv.h"

void chakra__cv_dev_anchor_linked(cv_dev *d)
{
	for (size_t i = 0; i < d->n; i++) {
		if (d->k->ev[i].kind != CV_K_RUNTIME || !d->inwin[i])
			continue;
		uint32_t j = d->par[i], steps = 0;
		while (j != CV_NONE && d->o->link[j] == CV_NONE && steps++ < 256)
			j = d->par[j];
		d->anchor[i] = j != CV_NONE ? d->o->link[j] : CV_NONE;
	}
}

/* SPDX-License-Identifier: Apache-2.0 */
/* ASTRA-sim configuration files, what their parsers share: messages,
 * reading a file whole. The formats each have a file: the network YAML
 * (sim_config_network.c, libyaml), the system JSON (sim_config_system.c,
 * over lib/json's flat JSON reader) and the communicator groups
 * (sim_config_groups.c, lib/json's groups reader). Errors name the file, the line and the key,
 * because these files are hand-edited. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sim_config.h"

/* strndup through the allocator hook. */
char *chakra__sim_cfg_strndup(const char *s, size_t len)
{
	char *d = chakra_malloc(len + 1);
	if (d) {
		memcpy(d, s, len);
		d[len] = 0;
	}
	return d;
}

/* A message in err (SIM_ERR_LEN) and CHAKRA_ECONFIG. */
int chakra__sim_cfg_fail(char *err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, SIM_ERR_LEN, fmt, ap);
	va_end(ap);
	return CHAKRA_ECONFIG;
}

int chakra__sim_cfg_nomem(char *err, const char *path)
{
	snprintf(err, SIM_ERR_LEN, "%s: out of memory", path);
	return CHAKRA_ENOMEM;
}

/* The whole file, NUL-terminated (read(2): no stdio buffer to run out of). */
char *chakra__sim_cfg_slurp(const char *path, size_t *len, char *err, int *code)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	*code = CHAKRA_EIO;
	if (fd < 0) {
		fail(err, "%s: %s", path, strerror(errno));
		*code = errno == ENOMEM ? CHAKRA_ENOMEM : CHAKRA_EIO;
		return NULL;
	}
	size_t cap = 4096, n = 0;
	char *buf = chakra_malloc(cap + 1);
	for (;;) {
		if (!buf) {
			close(fd);
			*code = nomem(err, path);
			return NULL;
		}
		ssize_t got = read(fd, buf + n, cap - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			fail(err, "%s: %s", path, strerror(errno));
			*code = errno == ENOMEM ? CHAKRA_ENOMEM : CHAKRA_EIO;
			chakra_free(buf);
			close(fd);
			return NULL;
		}
		if (got == 0)
			break;
		n += (size_t)got;
		if (n < cap)
			continue;
		if (cap >= SIM_CONFIG_MAX) {
			chakra_free(buf);
			close(fd);
			fail(err, "%s: larger than %zu MiB: not a configuration file", path,
			     SIM_CONFIG_MAX >> 20);
			*code = CHAKRA_ECONFIG;
			return NULL;
		}
		cap *= 2;
		char *nb = chakra_realloc(buf, cap + 1);
		if (!nb)
			chakra_free(buf);
		buf = nb;
	}
	close(fd);
	buf[n] = 0;
	*len = n;
	return buf;
}

/* Copies the message into the caller's buffer (any size). */
int chakra__sim_cfg_report(int rc, const char *e, char *err, size_t errlen)
{
	if (rc && err && errlen)
		snprintf(err, errlen, "%s", e);
	return rc;
}

/* SPDX-License-Identifier: Apache-2.0 */
/* The hint for JSON given where a Chakra ET is expected (hint.h). Apart
 * from common.c because it reads the file through zlib. */
#include "hint.h"

#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "common.h"

const char *tool_json_hint(const char *path)
{
	if (!path || !strcmp(path, "-"))
		return NULL;
	struct stat st;
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return NULL; /* never consume a FIFO's data for a hint */
	gzFile g = gzopen(path, "rb"); /* reads plain files as they are */
	if (!g)
		return NULL;
	unsigned char b[256];
	int n = gzread(g, b, sizeof b);
	gzclose(g);
	if (n <= 0)
		return NULL;
	int i = 0;
	if (n >= 3 && b[0] == 0xef && b[1] == 0xbb && b[2] == 0xbf)
		i = 3; /* UTF-8 byte order mark */
	while (i < n && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r'))
		i++;
	if (i >= n || (b[i] != '{' && b[i] != '['))
		return NULL;
	unsigned char open = b[i++];
	while (i < n && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r'))
		i++;
	if (i < n && !(b[i] == '"' || (open == '{' && b[i] == '}') ||
	               (open == '[' && strchr("[]{\"-0123456789tfn", b[i]))))
		return NULL;
	return "looks like JSON, not a Chakra ET: use chakra pack (for jsonize's, Chakra's "
	       "jsonizer or workload_graph JSON), or chakra convert pytorch|kineto (for PyTorch "
	       "and Kineto traces)";
}

int tool_trace_err(const char *path, const char *msg)
{
	const char *hint = tool_json_hint(path);
	if (hint)
		return tool_err("%s: %s", path, hint);
	return tool_err("%s", msg);
}

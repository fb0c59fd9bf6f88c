/*
 * ibdev2netdev (MLNX OFED): which network device each HCA port drives and
 * whether it is up: "mlx5_0 port 1 ==> ib0 (Up)", one line per port.
 * {"ok", "ports": [{"device", "port", "netdev", "up"}]}. Other layouts
 * (-v, with PCI address and firmware) are an error naming the line, never
 * a guess.
 */
#include "parse.h"
#include "parse-util.h"

#include <stdio.h>
#include <string.h>

static int ibdev_line(void *state, struct pline *ln, struct err *err)
{
	json_t *root = state, *p;
	char dev[64], netdev[64], st[16];
	long long port;
	int used = 0;

	if (!*ln->text)
		return 0;
	if (parse_tool_line(root, ln->tool, ln->text, NULL, 0, NULL))
		return 0;
	if (sscanf(ln->text, "%63s port %lld ==> %63s (%15[^)])%n", dev, &port, netdev, st,
		   &used) != 4 || ln->text[used] || (strcmp(st, "Up") && strcmp(st, "Down")))
		return pline_error(ln, err, "expected 'DEVICE port N ==> NETDEV (Up|Down)'");
	p = jarray_new_object(json_object_get(root, "ports"));
	jset_str(p, "device", dev);
	jset_int(p, "port", port);
	jset_str(p, "netdev", netdev);
	jset_bool(p, "up", !strcmp(st, "Up"));
	return 0;
}

int parse_ibdev2netdev(const char *buf, size_t len, json_t **ret, struct err *err)
{
	json_t *root = json_object();
	int rc;

	jarray_at(root, "ports");
	rc = parse_lines("ibdev2netdev", buf, len, ibdev_line, root, err);
	if (!rc && !parse_failed(root) && !json_array_size(json_object_get(root, "ports")))
		rc = parse_error_end("ibdev2netdev", err, "no port line");
	return parse_done(rc, root, ret);
}

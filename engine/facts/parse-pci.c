/*
 * lspci -vvv: per device its address, class and description, and the PCIe
 * link it can do (LnkCap) against the link it trained to (LnkSta), with the
 * (ok)/(downgraded) verdicts newer lspci prints. Also takes the output of
 * `lspci -vvv | grep 'LnkCap\|LnkSta'`, which has no device lines.
 */
#include "parse.h"
#include "parse-util.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

struct pci_state {
	json_t *root, *devices, *dev;
	bool real;      /* a device address or a LnkCap/LnkSta line was seen */
};

/* "17:03.0" or "0000:17:03.0" at the start of a device line. */
static int is_bdf(const char *s)
{
	unsigned a, b, c, d;
	char end;

	return sscanf(s, "%x:%x:%x.%x%c", &a, &b, &c, &d, &end) == 5 ?
		       end == ' ' :
		       sscanf(s, "%x:%x.%x%c", &a, &b, &c, &end) == 4 && end == ' ';
}

/* "17:03.0 PCI bridge: Broadcom / LSI PEX890xx ..." */
static void pci_new_device(struct pci_state *st, char *s)
{
	char *sp = strchr(s, ' '), *cls, *desc;

	*sp = '\0';
	st->dev = jarray_new_object(st->devices);
	jset_str(st->dev, "bdf", s);
	if (split_kv(sp + 1, ':', &cls, &desc)) {
		jset_str(st->dev, "class", cls);
		jset_str(st->dev, "description", desc);
	} else {
		jset_str(st->dev, "description", trim(sp + 1));
	}
}

/* "Speed 16GT/s (downgraded)" / "Width x16 (ok)": value and verdict. */
static int pci_link_item(json_t *o, const char *key, char *item)
{
	char *tok[3];
	size_t n = split_ws(item, tok, 3);
	char *state_key;
	double d;
	char *v;

	if (n < 2)
		return -1;
	v = tok[1];
	if (!strcmp(key, "width")) {
		long long w;

		if (*v != 'x' || parse_ll(v + 1, 10, &w))
			return -1;
		jset_int(o, key, w);
	} else if (!strcmp(v, "unknown")) {
		/* what lspci prints for a link that never trained */
		jset_str(o, key, v);
	} else {
		if (sscanf(v, "%lfGT/s", &d) != 1)
			return -1;
		jset_str(o, key, v);
		json_object_set_new(o, "speed_gts", json_num(d));
	}
	if (n == 3) {
		size_t len = strlen(tok[2]);

		if (tok[2][0] != '(' || tok[2][len - 1] != ')')
			return -1;
		tok[2][len - 1] = '\0';
		state_key = !strcmp(key, "width") ? "width_state" : "speed_state";
		jset_str(o, state_key, tok[2] + 1);
	}
	return 0;
}

/* "Port #3, Speed 32GT/s, Width x16, ASPM ..." */
static int pci_link(struct pci_state *st, const char *key, char *val)
{
	json_t *link;
	char *item, *save = NULL;

	/* grepped output has no device lines: a repeated key starts the next */
	if (!st->dev || json_object_get(st->dev, key))
		st->dev = jarray_new_object(st->devices);
	link = jobject_at(st->dev, key);
	for (item = strtok_r(val, ",", &save); item;
	     item = strtok_r(NULL, ",", &save)) {
		char *p;
		long long port;

		item = trim(item);
		if ((p = skip_prefix(item, "Port #"))) {
			if (parse_ll(p, 10, &port))
				return -1;
			jset_int(link, "port", port);
		} else if (skip_prefix(item, "Speed ")) {
			if (pci_link_item(link, "speed", item))
				return -1;
		} else if (skip_prefix(item, "Width ")) {
			if (pci_link_item(link, "width", item))
				return -1;
		}
	}
	return json_object_get(link, "speed") && json_object_get(link, "width") ?
		       0 : -1;
}

static int pci_line(void *state, struct pline *ln, struct err *err)
{
	struct pci_state *st = state;
	char *s = ln->text, *key, *val;

	if (!*s)
		return 0;
	if (ln->indent == 0 && is_bdf(s)) {
		st->real = true;
		pci_new_device(st, s);
		return 0;
	}
	if (skip_prefix(s, "LnkCap:") || skip_prefix(s, "LnkSta:")) {
		split_kv(s, ':', &key, &val);
		st->real = true;
		if (pci_link(st, !strcmp(key, "LnkCap") ? "lnkcap" : "lnksta", val))
			return pline_error(ln, err, "expected Speed and Width");
		return 0;
	}
	/* libpci's complaints come on stderr, between the device lines */
	if (skip_prefix(s, "pcilib: ")) {
		json_array_append_new(jarray_at(st->root, "warnings"), json_string(s));
		return 0;
	}
	/* lspci -vvv prints many more lines per device; grep also catches
	 * LnkCap2/LnkSta2 */
	if ((st->dev && ln->indent > 0) || skip_prefix(s, "Lnk"))
		return 0;
	/* an excerpt that starts inside a stanza: its lines belong to a device
	 * whose address was cut off; said once, and its links still count */
	if (!json_array_size(st->devices) && ln->indent > 0) {
		st->dev = jarray_new_object(st->devices);
		jset_bool(st->dev, "partial", 1);
		parse_warning(st->root, "the output starts inside a device's stanza: "
			      "its address is not known");
		return 0;
	}
	return pline_error(ln, err, "not a device, LnkCap or LnkSta line");
}

int parse_lspci(const char *buf, size_t len, json_t **ret, struct err *err)
{
	struct pci_state st = { 0 };
	int rc;

	st.root = json_object();
	st.devices = jarray_at(st.root, "devices");
	rc = parse_lines("lspci", buf, len, pci_line, &st, err);
	if (!rc && !json_array_size(st.devices))
		rc = parse_error_end("lspci", err, "no device and no LnkCap/LnkSta line");
	/* indented lines alone (an excerpt cut inside a stanza) are lspci's
	 * only when a LnkCap or LnkSta line is among them */
	if (!rc && !st.real)
		rc = parse_not_tool("lspci", err, "no device address and no LnkCap/LnkSta line");
	return parse_done(rc, st.root, ret);
}

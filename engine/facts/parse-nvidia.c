/*
 * NVIDIA tool outputs: the nvidia-smi summary table, nvidia-smi -q (the
 * indented report) and nvidia-smi topo -m (the connection matrix).
 */
#include "parse.h"
#include "parse-util.h"
#include "../base/strbuf.h"
#include "../base/strlist.h"
#include "../base/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What nvidia-smi prints instead of its report when it cannot ask the
 * driver (every subcommand alike). */
static const char *const smi_failures[] = {
	"NVIDIA-SMI has failed", "Failed to initialize NVML",
	"No devices were found", "Unable to determine the device handle",
};

/*
 * A tool failure is recorded; "WARNING: infoROM is corrupted at gpu
 * 0000:05:00.0" (printed on stderr after the report) is kept as a warning.
 * 1 when s was one of them.
 */
static int smi_tool_line(json_t *root, const char *tool, const char *s)
{
	/* the lines after a failure explain it ("NVML library version: 570.124") */
	if (tool_failure_line(tool, s, smi_failures, ARRAY_SIZE(smi_failures)) ||
	    json_is_false(json_object_get(root, "ok"))) {
		parse_failure(root, s);
		return 1;
	}
	if (skip_prefix(s, "WARNING: ")) {
		parse_warning(root, s);
		return 1;
	}
	return 0;
}

/* ---- nvidia-smi (table) ---- */

enum smi_part { SMI_TOP, SMI_GPUS, SMI_BETWEEN, SMI_PROCS_HEAD, SMI_PROCS, SMI_SKIP };

struct smi_state {
	json_t *root, *gpus, *gpu;
	int gpu_lines; /* table rows since the last rule line */
	int procs_have_gi; /* the processes header has GI/CI columns */
	enum smi_part part;
};

/* Splits "| a | b | c |" into its cells (in place); returns the count. */
static size_t table_cells(char *s, char **cell, size_t max)
{
	size_t n = 0, len = strlen(s);

	if (len && s[len - 1] == '|')
		s[--len] = '\0';
	s++; /* the leading '|' */
	while (n < max) {
		char *bar = strchr(s, '|');

		if (bar)
			*bar = '\0';
		cell[n++] = trim(s);
		if (!bar)
			break;
		s = bar + 1;
	}
	return n;
}

/* "Driver Version: 550.90.07" somewhere in the banner line. */
static void smi_banner_field(json_t *root, const char *line, const char *label,
			     const char *key)
{
	const char *p = strstr(line, label);
	char val[64];

	if (p && sscanf(p + strlen(label), " %63[^ |]", val) == 1)
		jset_str(root, key, val);
}

static void set_lead_num(json_t *o, const char *key, const char *val)
{
	if (fset_lead_int(o, key, val))
		jset_str(o, key, val); /* "N/A", "ERR!" */
}

/* "0  NVIDIA H100 80GB HBM3   On" | "00000000:19:00.0 Off" | "0" */
static int smi_gpu_line1(struct smi_state *st, char **cell)
{
	char *name[3], *bus[2];
	long long idx;

	if (split_columns(cell[0], name, 3) != 3 || parse_ll(name[0], 10, &idx) ||
	    split_ws(cell[1], bus, 2) != 2)
		return -1;
	st->gpu = jarray_new_object(st->gpus);
	jset_int(st->gpu, "index", idx);
	jset_str(st->gpu, "name", name[1]);
	jset_str(st->gpu, "persistence_mode", name[2]);
	jset_str(st->gpu, "bus_id", bus[0]);
	jset_str(st->gpu, "display_active", bus[1]);
	jset_num(st->gpu, "ecc_uncorrected", cell[2]);
	return 0;
}

/* "N/A 27C P0 72W / 700W" | "1MiB / 81559MiB" | "0%  Default" */
static int smi_gpu_line2(struct smi_state *st, char **cell)
{
	char *t[6], *m[3], *u[2];
	/* GPUs sharing the host's memory (Jetson, GB10) print
	 * "Not Supported" (or "N/A") instead of "used / total" */
	int no_mem = !strcmp(cell[1], "Not Supported") || !strcmp(cell[1], "N/A");

	if (no_mem)
		m[0] = m[2] = cell[1];
	if (split_ws(cell[0], t, 6) != 6 || strcmp(t[4], "/") ||
	    (!no_mem && (split_ws(cell[1], m, 3) != 3 || strcmp(m[1], "/"))) ||
	    split_ws(cell[2], u, 2) != 2)
		return -1;
	jset_str(st->gpu, "fan", t[0]);
	set_lead_num(st->gpu, "temperature_c", t[1]);
	jset_str(st->gpu, "performance_state", t[2]);
	set_lead_num(st->gpu, "power_draw_w", t[3]);
	set_lead_num(st->gpu, "power_cap_w", t[5]);
	set_lead_num(st->gpu, "memory_used_mib", m[0]);
	set_lead_num(st->gpu, "memory_total_mib", m[2]);
	set_lead_num(st->gpu, "utilization_percent", u[0]);
	jset_str(st->gpu, "compute_mode", u[1]);
	return 0;
}

static int smi_gpu_row(struct smi_state *st, struct pline *ln, struct err *err)
{
	char *cell[4];

	if (table_cells(ln->text, cell, 4) != 3)
		return pline_error(ln, err, "expected a 3-column GPU row");
	/* rows count from the last +---+ rule: a fan of "27%" looks like an
	 * index, so the position says which row this is */
	switch (++st->gpu_lines) {
	case 1:
		if (smi_gpu_line1(st, cell))
			return pline_error(ln, err, "bad GPU row");
		return 0;
	case 2:
		if (smi_gpu_line2(st, cell))
			return pline_error(ln, err, "bad GPU usage row");
		return 0;
	case 3:
		jset_str(st->gpu, "mig_mode", cell[2]);
		return 0;
	default:
		return pline_error(ln, err, "more than 3 rows for one GPU");
	}
}

/* "0   N/A  N/A   12345   C   /usr/bin/python3   1234MiB" (GI/CI since R450) */
static int smi_proc_row(struct smi_state *st, char *row)
{
	size_t nfix = st->procs_have_gi ? 5 : 3;
	char *t[6], *mem;
	json_t *p;

	if (split_ws(row, t, nfix + 1) != nfix + 1)
		return -1;
	/* the name may be blank (processes in other containers) */
	mem = strrchr(t[nfix], ' ');
	if (mem)
		*mem++ = '\0';
	else
		mem = t[nfix];
	p = jarray_new_object(jarray_at(st->root, "processes"));
	jset_num(p, "gpu", t[0]);
	if (st->procs_have_gi) {
		jset_num(p, "gi", t[1]);
		jset_num(p, "ci", t[2]);
	}
	jset_num(p, "pid", t[nfix - 2]);
	jset_str(p, "type", t[nfix - 1]);
	jset_str(p, "process_name", mem == t[nfix] ? "" : trim(t[nfix]));
	set_lead_num(p, "memory_mib", mem);
	return 0;
}

static int smi_line(void *state, struct pline *ln, struct err *err)
{
	struct smi_state *st = state;
	char *s = ln->text, *cell[2];

	if (!*s) {
		if (st->part == SMI_GPUS || st->part == SMI_SKIP)
			st->part = SMI_BETWEEN;
		return 0;
	}
	if (*s == '+' || st->part == SMI_SKIP) {
		st->gpu_lines = 0;
		return 0;
	}
	if (*s != '|') {
		if (smi_tool_line(st->root, ln->tool, s))
			return 0;
		if (st->part != SMI_TOP || json_object_get(st->root, "timestamp"))
			return pline_error(ln, err, "not a table line");
		jset_str(st->root, "timestamp", s);
		return 0;
	}
	if (strspn(s, "|=+") == strlen(s)) {
		st->gpu_lines = 0;
		if (st->part == SMI_TOP)
			st->part = SMI_GPUS;
		else if (st->part == SMI_PROCS_HEAD)
			st->part = SMI_PROCS;
		return 0;
	}
	switch (st->part) {
	case SMI_TOP:
		if (strstr(s, "NVIDIA-SMI")) {
			smi_banner_field(st->root, s, "NVIDIA-SMI", "smi_version");
			smi_banner_field(st->root, s, "Driver Version:", "driver_version");
			smi_banner_field(st->root, s, "CUDA Version:", "cuda_version");
			/* R610 renamed them: the kernel-mode driver is the
			 * driver, the user-mode CUDA library the CUDA version */
			smi_banner_field(st->root, s, "KMD Version:", "driver_version");
			smi_banner_field(st->root, s, "CUDA UMD Version:", "cuda_version");
		}
		return 0; /* column headings */
	case SMI_GPUS:
		return smi_gpu_row(st, ln, err);
	case SMI_BETWEEN:
		table_cells(s, cell, 1);
		/* drivers before 5xx: "Processes:    ...    GPU Memory" */
		if (skip_prefix(cell[0], "Processes:")) {
			st->part = SMI_PROCS_HEAD;
			jarray_at(st->root, "processes");
		} else if (skip_prefix(cell[0], "MIG devices")) {
			st->part = SMI_SKIP;
		} else {
			return pline_error(ln, err, "unexpected table");
		}
		return 0;
	case SMI_PROCS_HEAD:
		if (strstr(s, " GI "))
			st->procs_have_gi = 1;
		return 0;
	case SMI_PROCS:
		table_cells(s, cell, 1);
		if (!strcmp(cell[0], "No running processes found"))
			return 0;
		if (smi_proc_row(st, cell[0]))
			return pline_error(ln, err, "bad process row");
		return 0;
	case SMI_SKIP:
		break;
	}
	return 0;
}

/* "ERR!" is what nvidia-smi prints for a field NVML failed to read (a dead
 * fan, a power sensor): kept as the value, and said once per GPU and field
 * in "warnings", since a GPU with one is not healthy whatever its number
 * columns say. */
static void smi_err_warnings(json_t *root)
{
	json_t *gpu, *v;
	const char *key;
	size_t i;

	json_array_foreach(json_object_get(root, "gpus"), i, gpu)
		json_object_foreach(gpu, key, v)
			if (json_is_string(v) && !strcmp(json_string_value(v), "ERR!")) {
				char *w = xasprintf("GPU %lld: %s is ERR! (NVML could not read it)",
						    json_integer_value(json_object_get(gpu, "index")),
						    key);

				parse_warning(root, w);
				free(w);
			}
}

int parse_nvidia_smi(const char *buf, size_t len, json_t **ret, struct err *err)
{
	struct smi_state st = { 0 };
	int rc;

	st.root = json_object();
	st.gpus = jarray_at(st.root, "gpus");
	rc = parse_lines("nvidia-smi", buf, len, smi_line, &st, err);
	if (!rc && !parse_failed(st.root) &&
	    !json_object_get(st.root, "driver_version"))
		rc = parse_error_end("nvidia-smi", err, "no NVIDIA-SMI banner");
	if (!rc)
		smi_err_warnings(st.root);
	return parse_done(rc, st.root, ret);
}

/* ---- nvidia-smi -q ---- */

#define SMIQ_MAX_DEPTH 8

struct smiq_state {
	json_t *root, *gpus, *gpu;
	char *names[SMIQ_MAX_DEPTH]; /* owned: the section path to this line */
	size_t depth;
	struct strbuf path;
};

static const struct field_map smiq_top_fields[] = {
	{ "Timestamp", "timestamp", fset_str },
	{ "Driver Version", "driver_version", fset_str },
	{ "CUDA Version", "cuda_version", fset_str },
	{ "Attached GPUs", "attached_gpus", fset_int },
	{ NULL, NULL, NULL },
};

static const struct field_map smiq_gpu_fields[] = {
	{ "Product Name", "product_name", fset_str },
	{ "Product Architecture", "architecture", fset_str },
	{ "Serial Number", "serial", fset_str },
	{ "GPU UUID", "uuid", fset_str },
	{ "VBIOS Version", "vbios_version", fset_str },
	{ "Persistence Mode", "persistence_mode", fset_str },
	{ "Performance State", "performance_state", fset_str },
	{ "PCI/Bus Id", "bus_id", fset_str },
	{ NULL, NULL, NULL },
};

static const struct field_map smiq_pcie_fields[] = {
	{ "PCI/GPU Link Info/PCIe Generation/Max", "gen_max", fset_lead_int },
	{ "PCI/GPU Link Info/PCIe Generation/Current", "gen_current", fset_lead_int },
	{ "PCI/GPU Link Info/Link Width/Max", "width_max", fset_lead_int },
	{ "PCI/GPU Link Info/Link Width/Current", "width_current", fset_lead_int },
	{ NULL, NULL, NULL },
};

static const struct field_map smiq_remap_fields[] = {
	{ "Remapped Rows/Correctable Error", "correctable", fset_num },
	{ "Remapped Rows/Uncorrectable Error", "uncorrectable", fset_num },
	{ "Remapped Rows/Pending", "pending", fset_yes_no },
	{ "Remapped Rows/Remapping Failure Occurred", "failure_occurred", fset_yes_no },
	{ NULL, NULL, NULL },
};

/* Drivers before R535 say "Clocks Throttle Reasons", later ones "Clocks Event
 * Reasons" for the same list: both land in clocks_event_reasons. */
static int smiq_clock_reason(struct smiq_state *st, const char *leaf,
			     const char *val)
{
	const char *p = st->path.buf;
	char *key;

	if (!skip_prefix(p, "Clocks Throttle Reasons/") &&
	    !skip_prefix(p, "Clocks Event Reasons/"))
		return 0;
	key = slug(leaf);
	fset_yes_no(jobject_at(st->gpu, "clocks_event_reasons"), key, val);
	if (!strcmp(val, "Active"))
		json_array_append_new(jarray_at(st->gpu, "clocks_event_reasons_active"),
				      json_string(key));
	free(key);
	return 1;
}

/* Applies map to the sub-object key of the GPU, created only when used. */
static int smiq_sub_field(struct smiq_state *st, const struct field_map *map,
			  const char *key, const char *val)
{
	json_t *tmp = json_object();
	int rc = field_map_apply(map, tmp, st->path.buf, val);

	if (rc > 0)
		json_object_update(jobject_at(st->gpu, key), tmp);
	json_decref(tmp);
	return rc;
}

static int smiq_gpu_field(struct smiq_state *st, struct pline *ln,
			  struct err *err, const char *leaf, const char *val)
{
	int rc;

	if (smiq_clock_reason(st, leaf, val))
		return 0;
	rc = field_map_apply(smiq_gpu_fields, st->gpu, st->path.buf, val);
	if (!rc)
		rc = smiq_sub_field(st, smiq_pcie_fields, "pcie", val);
	if (!rc)
		rc = smiq_sub_field(st, smiq_remap_fields, "remapped_rows", val);
	return rc < 0 ? pline_error(ln, err, "value does not fit") : 0;
}

/* Drops the section names below `level`: names[] owns them. */
static void smiq_cut_path(struct smiq_state *st, size_t level)
{
	while (st->depth > level)
		free(st->names[--st->depth]);
}

static void smiq_set_path(struct smiq_state *st, size_t level, const char *name)
{
	smiq_cut_path(st, level);
	st->names[st->depth++] = xstrdup(name);
	strbuf_reset(&st->path);
	for (size_t i = 1; i < st->depth; i++) /* names[0] is "GPU <id>" */
		strbuf_addf(&st->path, "%s%s", i > 1 ? "/" : "", st->names[i]);
}

static int smiq_line(void *state, struct pline *ln, struct err *err)
{
	struct smiq_state *st = state;
	char *s = ln->text, *key, *val, *p;
	size_t level = ln->indent / 4;
	int has_val;

	if (!*s || skip_prefix(s, "=====") ||
	    (ln->indent == 0 && smi_tool_line(st->root, ln->tool, s)))
		return 0;
	if (ln->indent % 4 || level >= SMIQ_MAX_DEPTH || level > st->depth)
		return pline_error(ln, err, "unexpected indentation");
	if (level == 0 && (p = skip_prefix(s, "GPU "))) {
		st->gpu = jarray_new_object(st->gpus);
		jset_str(st->gpu, "id", p);
		smiq_set_path(st, 0, s);
		return 0;
	}
	has_val = split_kv(s, ':', &key, &val);
	if (level == 0) {
		if (!has_val)
			return pline_error(ln, err, "expected 'GPU <bus id>' or 'key : value'");
		smiq_cut_path(st, 0); /* top-level fields end the GPU's section path */
		return pline_field(ln, err, smiq_top_fields, st->root, key, val);
	}
	if (!st->gpu)
		return pline_error(ln, err, "GPU field before any 'GPU <bus id>'");
	smiq_set_path(st, level, has_val ? key : s);
	return has_val ? smiq_gpu_field(st, ln, err, key, val) : 0;
}

/*
 * "Attached GPUs" against the GPU sections that follow: fewer is a GPU that
 * fell off the bus while nvidia-smi listed it, or an output cut short (or
 * `nvidia-smi -q -i N`, one GPU of all); a warning, which precheck's
 * gpu.warnings reports, not GPUs made up or dropped.
 */
static void smiq_count_gpus(struct smiq_state *st)
{
	json_t *att = json_object_get(st->root, "attached_gpus");
	size_t n = json_array_size(st->gpus);

	if (json_is_integer(att) && json_integer_value(att) != (json_int_t)n) {
		char *msg = xasprintf("Attached GPUs is %lld but %zu GPU section%s follow%s: a GPU "
				      "lost while listing, or the output cut (or -i)",
				      (long long)json_integer_value(att), n, n == 1 ? "" : "s",
				      n == 1 ? "s" : "");

		parse_warning(st->root, msg);
		free(msg);
	}
}

int parse_nvidia_smi_q(const char *buf, size_t len, json_t **ret, struct err *err)
{
	struct smiq_state st = { 0 };
	int rc;

	st.root = json_object();
	st.gpus = jarray_at(st.root, "gpus");
	strbuf_init(&st.path, 0);
	rc = parse_lines("nvidia-smi-q", buf, len, smiq_line, &st, err);
	smiq_cut_path(&st, 0);
	strbuf_release(&st.path);
	if (!rc && !parse_failed(st.root) && !json_array_size(st.gpus))
		rc = parse_error_end("nvidia-smi-q", err, "no 'GPU <bus id>' section");
	if (!rc)
		smiq_count_gpus(&st);
	return parse_done(rc, st.root, ret);
}

/* ---- nvidia-smi topo -m ---- */

enum topo_part { TOPO_HEADER, TOPO_MATRIX, TOPO_LEGEND, TOPO_NICS };

struct topo_state {
	json_t *root, *devices;
	struct strlist cols; /* device names, then affinity keys */
	size_t ndev;         /* how many of cols are devices */
	enum topo_part part;
};

static const char *const topo_affinity_cols[] = {
	"CPU Affinity", "NUMA Affinity", "GPU NUMA ID",
};

/* Glues the multi-word column names ("CPU Affinity" -> "CPU_Affinity") so
 * that they survive splitting when a source expanded the tabs. */
static void topo_glue(char *s)
{
	for (size_t i = 0; i < ARRAY_SIZE(topo_affinity_cols); i++) {
		char *p = strstr(s, topo_affinity_cols[i]);
		size_t n = strlen(topo_affinity_cols[i]);

		for (size_t j = 0; p && j < n; j++)
			if (p[j] == ' ')
				p[j] = '_';
	}
}

static int topo_header(struct topo_state *st, char *s)
{
	char *tok[128];
	size_t n, i;

	topo_glue(s);
	n = split_ws(s, tok, ARRAY_SIZE(tok));
	for (i = 0; i < n; i++) {
		int affinity = strstr(tok[i], "Affinity") ||
			       !strcmp(tok[i], "GPU_NUMA_ID");

		if (affinity && !st->ndev)
			st->ndev = i;
		if (st->ndev)
			strlist_push_owned(&st->cols, slug(tok[i]));
		else
			strlist_push(&st->cols, tok[i]);
	}
	/* topo -m always prints CPU Affinity after the device columns */
	return st->ndev ? 0 : -1;
}

/* A link cell: X (self), a PCIe path (SYS, NODE, PHB, PXB, PIX; SOC in old
 * drivers) or NV<n> bonded NVLinks. */
static int topo_link_cell(const char *s)
{
	static const char *const paths[] = {
		"X", "SYS", "NODE", "PHB", "PXB", "PIX", "SOC",
	};
	const char *p;

	for (size_t i = 0; i < ARRAY_SIZE(paths); i++)
		if (!strcmp(s, paths[i]))
			return 1;
	if (!(p = skip_prefix(s, "NV")) || !*p)
		return 0;
	return strspn(p, "0123456789") == strlen(p);
}

/* An affinity cell: a CPU list ("0-19,40-59"), a NUMA node or N/A. */
static int topo_affinity_cell(const char *s)
{
	return !strcmp(s, "N/A") ||
	       (*s && strspn(s, "0123456789-,") == strlen(s));
}

/* "GPU0  X  NV12 ... PXB  48-63,176-191  3": NIC rows have no affinity. */
static int topo_row(struct topo_state *st, char *s)
{
	char **tok = xcalloc(st->cols.n + 2, sizeof(*tok));
	size_t n = split_ws(s, tok, st->cols.n + 1), i;
	json_t *dev, *links;
	int rc = -1;

	/* GPU rows carry every affinity column; NIC rows none (older drivers)
	 * or all of them: any other count is a cut or wrapped row, and its
	 * cells would land under the wrong columns */
	if (n != st->cols.n + 1 &&
	    (n != st->ndev + 1 || !strncmp(tok[0], "GPU", 3)))
		goto out_free;
	for (i = 1; i < n; i++)
		if (!(i <= st->ndev ? topo_link_cell(tok[i]) : topo_affinity_cell(tok[i])))
			goto out_free;
	dev = jarray_new_object(st->devices);
	jset_str(dev, "name", tok[0]);
	links = jobject_at(dev, "links");
	for (i = 0; i < st->ndev; i++)
		if (strcmp(tok[i + 1], "X"))
			jset_str(links, st->cols.v[i], tok[i + 1]);
	for (i = st->ndev; i + 1 < n; i++)
		jset_num(dev, st->cols.v[i], tok[i + 1]);
	rc = 0;
out_free:
	free(tok);
	return rc;
}

/* NIC rows get the device name from the NIC legend ("NIC0: mlx5_0"). */
static void topo_name_nics(struct topo_state *st)
{
	json_t *nics = json_object_get(st->root, "nics"), *dev;
	size_t i;

	json_array_foreach(st->devices, i, dev) {
		const char *name = json_string_value(json_object_get(dev, "name"));

		jset_str(dev, "nic_name",
			 json_string_value(json_object_get(nics, name)));
	}
}

static int topo_line(void *state, struct pline *ln, struct err *err)
{
	struct topo_state *st = state;
	char *s = ln->text, *key, *val;

	if (!*s || (st->part != TOPO_LEGEND && smi_tool_line(st->root, ln->tool, s)))
		return 0;
	if (!strcmp(s, "Legend:")) {
		st->part = TOPO_LEGEND;
		return 0;
	}
	if (!strcmp(s, "NIC Legend:")) {
		st->part = TOPO_NICS;
		return 0;
	}
	switch (st->part) {
	case TOPO_HEADER:
		if (topo_header(st, s))
			return pline_error(ln, err, "expected the device header with CPU Affinity");
		st->part = TOPO_MATRIX;
		return 0;
	case TOPO_MATRIX:
		if (topo_row(st, s))
			return pline_error(ln, err, "row does not have one cell per column (or a cell that is no link or affinity)");
		return 0;
	case TOPO_LEGEND:
		if (!split_kv(s, '=', &key, &val))
			return pline_error(ln, err, "expected 'X = meaning'");
		jset_str(jobject_at(st->root, "legend"), key, val);
		return 0;
	case TOPO_NICS:
		if (!split_kv(s, ':', &key, &val))
			return pline_error(ln, err, "expected 'NICn: name'");
		jset_str(jobject_at(st->root, "nics"), key, val);
		return 0;
	}
	return 0;
}

int parse_nvidia_smi_topo(const char *buf, size_t len, json_t **ret,
			  struct err *err)
{
	struct topo_state st = { 0 };
	int rc;

	st.root = json_object();
	st.devices = jarray_at(st.root, "devices");
	rc = parse_lines("nvidia-smi-topo", buf, len, topo_line, &st, err);
	topo_name_nics(&st);
	strlist_clear(&st.cols);
	if (!rc && !parse_failed(st.root) && !json_array_size(st.devices))
		rc = parse_error_end("nvidia-smi-topo", err, "no matrix rows");
	return parse_done(rc, st.root, ret);
}

/* `stackbench probe [--json] [DEVICE...]`: the probe's facts as an lsblk-like
 * table (libsmartcols, one column table) or as JSON. */
#include "cmd.h"
#include "probe/probe.h"
#include "util/log.h"
#include "util/strutil.h"
#include "util/opt.h"
#include "util/size.h"
#include "util/strv.h"
#include "util/suggest.h"

#include <errno.h>
#include <libsmartcols.h>
#include <stdarg.h>
#include <string.h>

struct col {
	const char *name;
	double whint;
	int flags;
	const char *help;
	/* Cell text, malloc'ed; NULL for an empty cell. */
	char *(*get)(const struct sb_device *d, bool bytes);
};

static char *dupn(const char *s)
{
	return s ? strdup(s) : NULL;
}

static char *get_name(const struct sb_device *d, bool b)
{
	return dupn(d->name);
}
static char *get_path(const struct sb_device *d, bool b)
{
	return dupn(d->path);
}
static char *get_majmin(const struct sb_device *d, bool b)
{
	return sb_asprintf("%u:%u", d->major, d->minor);
}
static char *get_size(const struct sb_device *d, bool bytes)
{
	char buf[32];
	if (bytes)
		return sb_asprintf("%llu", (unsigned long long)d->size);
	return dupn(sb_format_size(d->size, buf, sizeof(buf)));
}
static char *get_rota(const struct sb_device *d, bool b)
{
	return sb_asprintf("%d", d->rotational);
}
static char *get_class(const struct sb_device *d, bool b)
{
	return dupn(sb_class_name(d->cls));
}
static char *get_tran(const struct sb_device *d, bool b)
{
	return dupn(d->transport);
}
/* A partition's model and serial are its disk's: shown once, on the disk
 * (as lsblk does); the JSON keeps them on every device. */
static char *get_model(const struct sb_device *d, bool b)
{
	return d->is_partition ? NULL : dupn(d->model);
}
static char *get_serial(const struct sb_device *d, bool b)
{
	return d->is_partition ? NULL : dupn(d->serial);
}
static char *get_vendor(const struct sb_device *d, bool b)
{
	return d->is_partition ? NULL : dupn(d->vendor);
}
static char *get_sched(const struct sb_device *d, bool b)
{
	return dupn(d->scheduler);
}
static char *get_ra(const struct sb_device *d, bool b)
{
	return sb_asprintf("%u", d->read_ahead_kb);
}
static char *get_sec(const struct sb_device *d, bool b)
{
	return sb_asprintf("%u/%u", d->log_sec, d->phys_sec);
}
static char *get_disc(const struct sb_device *d, bool b)
{
	return sb_asprintf("%d", d->discard);
}
static char *get_ro(const struct sb_device *d, bool b)
{
	return sb_asprintf("%d", d->readonly);
}
static char *get_holders(const struct sb_device *d, bool b)
{
	return d->holders ? sb_strv_join(d->holders, ",") : NULL;
}
static char *get_mounts(const struct sb_device *d, bool b)
{
	return d->mounts ? sb_strv_join(d->mounts, ",") : NULL;
}
static char *get_roles(const struct sb_device *d, bool b)
{
	const char *r[8];
	size_t n = sb_device_roles(d, r, 8);
	char *v[9] = {0};
	for (size_t i = 0; i < n; i++)
		v[i] = (char *)r[i];
	return sb_strv_join(v, ",");
}
static char *get_sigs(const struct sb_device *d, bool b)
{
	char **types = NULL, *s;
	if (d->sigs_err)
		return strdup("?");
	for (size_t i = 0; i < d->n_sigs; i++)
		if (!sb_strv_contains(types, d->sigs[i].type))
			sb_strv_push(&types, d->sigs[i].type);
	s = types ? sb_strv_join(types, ",") : NULL;
	sb_strv_free(types);
	return s;
}
static char *get_verdict(const struct sb_device *d, bool b)
{
	_cleanup_free_ char *r = NULL;
	if (!d->refuse)
		return strdup("usable");
	r = sb_strv_join(d->reasons, "; ");
	return r ? sb_asprintf("refused: %s", r) : NULL;
}
static char *get_note(const struct sb_device *d, bool b)
{
	return dupn(d->note);
}

static const struct col columns[] = {
    {"NAME", 0.1, SCOLS_FL_TREE | SCOLS_FL_NOEXTREMES, "device name", get_name},
    {"PATH", 0.1, SCOLS_FL_NOEXTREMES, "device node path", get_path},
    {"MAJ:MIN", 6, 0, "major:minor device number", get_majmin},
    {"SIZE", 6, SCOLS_FL_RIGHT, "size (--bytes: in bytes)", get_size},
    {"ROTA", 1, SCOLS_FL_RIGHT, "rotational flag", get_rota},
    {"CLASS", 5, 0, "hdd, ssd, nvme, loop, virtual, md, dm", get_class},
    {"ROLES", 0.1, 0, "profile roles the device can play", get_roles},
    {"TRAN", 5, 0, "transport", get_tran},
    {"VENDOR", 0.1, SCOLS_FL_TRUNC, "vendor", get_vendor},
    {"MODEL", 0.1, SCOLS_FL_TRUNC, "model", get_model},
    {"SERIAL", 0.1, SCOLS_FL_TRUNC, "serial number", get_serial},
    {"LOG-SEC/PHY-SEC", 7, SCOLS_FL_RIGHT, "logical/physical sector size", get_sec},
    {"DISC", 1, SCOLS_FL_RIGHT, "discard supported", get_disc},
    {"RO", 1, SCOLS_FL_RIGHT, "read-only", get_ro},
    {"SCHED", 0.1, 0, "I/O scheduler in use", get_sched},
    {"RA", 4, SCOLS_FL_RIGHT, "read-ahead in KiB", get_ra},
    {"HOLDERS", 0.1, 0, "devices stacked on it", get_holders},
    {"SIGNATURES", 0.1, 0, "signatures found by libblkid (? when unreadable)", get_sigs},
    {"MOUNTPOINTS", 0.1, 0, "where it is mounted", get_mounts},
    {"VERDICT", 0.3, SCOLS_FL_WRAP, "usable, or refused with every reason", get_verdict},
    {"NOTE", 0.1, 0, "remarks (how a device without node was read)", get_note},
};

static const char *const default_cols = "NAME,MAJ:MIN,SIZE,ROTA,CLASS,TRAN,MODEL,SERIAL,SCHED,"
					"SIGNATURES,MOUNTPOINTS,VERDICT";

enum { OPT_JSON = 'J', OPT_OUTPUT = 'o', OPT_BYTES = 'b', OPT_LIST = 'l' };

static const struct sb_opt probe_opts[] = {
    {"json", OPT_JSON, NULL, "print {\"devices\": [...]} with every fact"},
    {"output", OPT_OUTPUT, "COLS", "table columns, comma-separated (--output help lists them)"},
    {"bytes", OPT_BYTES, NULL, "sizes in bytes"},
    {"list", OPT_LIST, NULL, "flat list instead of a tree"},
    {0},
};

struct probe_args {
	bool json, bytes, list;
	const char *output;
};

static int on_opt(int key, const char *arg, void *ud)
{
	struct probe_args *a = ud;
	switch (key) {
	case OPT_JSON:
		a->json = true;
		break;
	case OPT_OUTPUT:
		a->output = arg;
		break;
	case OPT_BYTES:
		a->bytes = true;
		break;
	case OPT_LIST:
		a->list = true;
		break;
	}
	return 0;
}

/* "NAME,SIZE" -> column indexes; exit code 2 after a message when unknown. */
static int parse_columns(const char *spec, size_t *idx, size_t *n)
{
	_cleanup_free_ char *copy = strdup(spec);
	const char *names[ARRAY_SIZE(columns)];
	char *save = NULL;

	if (!copy)
		return sb_error_errno(-ENOMEM, "probe"), SB_EXIT_FAILED;
	for (size_t i = 0; i < ARRAY_SIZE(columns); i++)
		names[i] = columns[i].name;
	*n = 0;
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		size_t i;
		for (i = 0; i < ARRAY_SIZE(columns) && strcasecmp(t, columns[i].name); i++)
			;
		if (i == ARRAY_SIZE(columns)) {
			const char *s = sb_suggest(t, names, ARRAY_SIZE(columns));
			if (s)
				return sb_usage_error(
				    "probe", "unknown column '%s' (did you mean '%s'?)", t, s);
			return sb_usage_error("probe",
					      "unknown column '%s' (--output help lists them)", t);
		}
		if (*n < ARRAY_SIZE(columns))
			idx[(*n)++] = i;
	}
	if (!*n)
		return sb_usage_error("probe", "--output needs at least one column");
	return 0;
}

static int print_json(const struct sb_probe *p)
{
	json_object *root = json_object_new_object(), *arr = json_object_new_array();
	int r = 0;

	if (!root || !arr) {
		json_object_put(root);
		json_object_put(arr);
		return -ENOMEM;
	}
	json_object_object_add(root, "devices", arr);
	for (size_t i = 0; i < p->n; i++) {
		json_object *o = sb_device_to_json(&p->dev[i]);
		if (!o) {
			r = -ENOMEM;
			break;
		}
		json_object_array_add(arr, o);
	}
	if (!r && puts(json_object_to_json_string_ext(
		      root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE)) < 0)
		r = -EIO;
	json_object_put(root);
	return r;
}

static int print_table(const struct sb_probe *p, const size_t *idx, size_t ncols,
		       const struct probe_args *a)
{
	struct libscols_table *tb = scols_new_table();
	struct libscols_line **lines = NULL;
	int r = -ENOMEM;

	if (!tb || !(lines = calloc(p->n ? p->n : 1, sizeof(*lines))))
		goto out;
	for (size_t c = 0; c < ncols; c++) {
		const struct col *col = &columns[idx[c]];
		int fl = col->flags;
		if (a->list)
			fl &= ~SCOLS_FL_TREE;
		if (!scols_table_new_column(tb, col->name, col->whint, fl))
			goto out;
	}
	for (size_t i = 0; i < p->n; i++) {
		const struct sb_device *d = &p->dev[i];
		struct libscols_line *parent = NULL;
		/* devices are sorted with partitions after their disk */
		for (size_t j = 0; !a->list && d->parent && j < i; j++)
			if (strcmp(p->dev[j].name, d->parent) == 0)
				parent = lines[j];
		lines[i] = scols_table_new_line(tb, parent);
		if (!lines[i])
			goto out;
		for (size_t c = 0; c < ncols; c++) {
			char *v = columns[idx[c]].get(d, a->bytes);
			if (v && scols_line_refer_data(lines[i], c, v) < 0) {
				free(v);
				goto out;
			}
		}
	}
	r = scols_print_table(tb) < 0 ? -EIO : 0;
out:
	free(lines);
	scols_unref_table(tb);
	return r;
}

static void list_columns(void)
{
	printf("Columns for --output (default: %s):\n", default_cols);
	for (size_t i = 0; i < ARRAY_SIZE(columns); i++)
		printf("  %-16s %s\n", columns[i].name, columns[i].help);
}

int cmd_probe(int argc, char **argv)
{
	struct probe_args a = {0};
	struct sb_cmdline cl = {
	    "probe",
	    "[--json] [--output COLS] [--bytes] [DEVICE...]",
	    "List block devices (or the named ones) with their facts, class, signatures, "
	    "users,\nand whether stackbench may use them (usable, or refused with every reason).",
	    probe_opts,
	    on_opt,
	    &a};
	struct sb_probe *p = NULL;
	const char *missing = NULL;
	size_t idx[ARRAY_SIZE(columns)], ncols = 0;
	char **rest;
	int n, r;

	r = sb_opt_parse(&cl, argc, argv, &rest, &n);
	if (r)
		return r < 0 ? SB_EXIT_OK : r;
	if (a.output && strcmp(a.output, "help") == 0) {
		list_columns();
		return SB_EXIT_OK;
	}
	if (a.json && a.output)
		return sb_usage_error("probe", "--json prints every fact: --output does not apply");
	if (!a.json && (r = parse_columns(a.output ? a.output : default_cols, idx, &ncols)))
		return r;

	/* rest is NULL-terminated: it is the tail of argv */
	r = sb_probe_scan(n ? (const char *const *)rest : NULL, &p, &missing);
	if (r == -ENODEV && missing) {
		sb_error("%s: no such block device", missing);
		return SB_EXIT_FAILED;
	}
	if (r < 0) {
		sb_error_errno(r, "probe: cannot scan block devices");
		return SB_EXIT_FAILED;
	}
	r = a.json ? print_json(p) : print_table(p, idx, ncols, &a);
	sb_probe_free(p);
	if (r < 0 || fflush(stdout) != 0 || ferror(stdout)) {
		sb_error_errno(r < 0 ? r : -EIO, "probe: cannot write output");
		return SB_EXIT_FAILED;
	}
	return SB_EXIT_OK;
}

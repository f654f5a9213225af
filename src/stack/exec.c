/* The executor: runs a plan step by step with a journal record before and
 * after each, or lists it (dry-run) through the same loop; undoes from the
 * journal alone. */
#include "stack/stack.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/spawn.h"

#include <stdarg.h>
#include <string.h>
#include <time.h>

static const struct sb_layer *const layers[SB_STEP_KIND_N] = {
    [SB_STEP_LOOP] = &sb_layer_loop,   [SB_STEP_QUEUE] = &sb_layer_queue,
    [SB_STEP_PART] = &sb_layer_part,   [SB_STEP_MD] = &sb_layer_md,
    [SB_STEP_PV] = &sb_layer_pv,       [SB_STEP_VG] = &sb_layer_vg,
    [SB_STEP_LV] = &sb_layer_lv,       [SB_STEP_MKFS] = &sb_layer_mkfs,
    [SB_STEP_MOUNT] = &sb_layer_mount,
};

const struct sb_layer *sb_layer_get(enum sb_step_kind k)
{
	return k < SB_STEP_KIND_N ? layers[k] : NULL;
}

const struct sb_layer *sb_layer_by_name(const char *kind)
{
	for (int i = 0; i < SB_STEP_KIND_N; i++)
		if (strcmp(layers[i]->kind, kind) == 0)
			return layers[i];
	return NULL;
}

void sb_exec_init(struct sb_exec *x)
{
	*x = (struct sb_exec){.log_fd = -1, .out = stdout};
	x->vars = json_object_new_object();
}

void sb_exec_release(struct sb_exec *x)
{
	json_object_put(x->vars);
	free(x->errmsg);
	x->vars = NULL;
	x->errmsg = NULL;
}

void sb_exec_set_var(struct sb_exec *x, const char *name, const char *value)
{
	json_object_object_add(x->vars, name, json_object_new_string(value));
}

const char *sb_exec_var(struct sb_exec *x, const char *name)
{
	json_object *v;
	return json_object_object_get_ex(x->vars, name, &v) ? json_object_get_string(v) : NULL;
}

int sb_exec_fail(struct sb_exec *x, int r, const char *fmt, ...)
{
	va_list ap;
	char *m;
	va_start(ap, fmt);
	if (vasprintf(&m, fmt, ap) < 0)
		m = NULL;
	va_end(ap);
	free(x->errmsg);
	x->errmsg = m;
	return r;
}

void sb_exec_log(struct sb_exec *x, const char *fmt, ...)
{
	va_list ap;
	if (x->log_fd < 0)
		return;
	va_start(ap, fmt);
	vdprintf(x->log_fd, fmt, ap);
	va_end(ap);
}

/* Debian packages, for "not found" messages. */
const char *sb_program_package(const char *prog)
{
	static const struct {
		const char *prog, *pkg;
	} t[] = {
	    {"mdadm", "mdadm"},	       {"pvcreate", "lvm2"},	      {"vgcreate", "lvm2"},
	    {"lvcreate", "lvm2"},      {"pvremove", "lvm2"},	      {"vgremove", "lvm2"},
	    {"lvremove", "lvm2"},      {"mkfs.btrfs", "btrfs-progs"}, {"btrfs", "btrfs-progs"},
	    {"mkfs.xfs", "xfsprogs"},  {"mkfs.ext4", "e2fsprogs"},    {"mkfs.ext3", "e2fsprogs"},
	    {"mkfs.ext2", "e2fsprogs"}};
	for (size_t i = 0; i < ARRAY_SIZE(t); i++)
		if (strcmp(t[i].prog, prog) == 0)
			return t[i].pkg;
	return NULL;
}

static int run_cmd(struct sb_exec *x, const char *const *argv, int *status, bool quiet)
{
	_cleanup_free_ char *txt = sb_argv_format(argv);
	_cleanup_free_ char **env = NULL;
	size_t ne = 0;
	extern char **environ;
	struct sb_child c = {.argv = argv, .capture = true, .log_fd = x->log_fd};
	int r;

	/* Without udevd, LVM would wait forever for udev to create its nodes;
	 * this makes libdevmapper create them itself. */
	if (!x->udev) {
		while (environ[ne])
			ne++;
		env = calloc(ne + 2, sizeof(*env));
		if (!env)
			return sb_exec_fail(x, -ENOMEM, "out of memory");
		memcpy(env, environ, ne * sizeof(*env));
		env[ne] = (char *)"DM_DISABLE_UDEV=1";
		c.envp = env;
	}
	sb_exec_log(x, "$ %s\n", txt ? txt : argv[0]);
	sb_verbose("run: %s", txt ? txt : argv[0]);
	r = sb_spawn_run(&c);
	if (r == -ENOENT) {
		const char *pkg = sb_program_package(argv[0]);
		sb_child_release(&c);
		return sb_exec_fail(x, r, "%s: not found%s%s%s", argv[0],
				    pkg ? " (install the Debian package " : "", pkg ? pkg : "",
				    pkg ? ")" : "");
	}
	if (r < 0) {
		sb_child_release(&c);
		return sb_exec_fail(x, r, "%s: cannot start: %s", argv[0], strerror(-r));
	}
	if (status)
		*status = c.status;
	if (c.status != 0 && !quiet) {
		/* The last non-empty line of stderr usually says why. */
		char *e = c.err_len ? c.err : c.out;
		size_t n = strlen(e);
		while (n && (e[n - 1] == '\n' || e[n - 1] == ' '))
			e[--n] = '\0';
		char *last = strrchr(e, '\n');
		last = last ? last + 1 : e;
		r = sb_exec_fail(x, -EIO, "%s exited with status %d%s%s", txt ? txt : argv[0],
				 c.status, *last ? ": " : "", last);
	}
	sb_child_release(&c);
	return r;
}

int sb_exec_cmd(struct sb_exec *x, const char *const *argv)
{
	return run_cmd(x, argv, NULL, false);
}

int sb_exec_cmd_quiet(struct sb_exec *x, const char *const *argv, int *status)
{
	return run_cmd(x, argv, status, true);
}

/* ---- arguments ---- */

const char *sb_arg_str(json_object *args, const char *key)
{
	json_object *v;
	if (!args || !json_object_object_get_ex(args, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

size_t sb_arg_len(json_object *args, const char *key)
{
	json_object *v;
	if (!args || !json_object_object_get_ex(args, key, &v) ||
	    !json_object_is_type(v, json_type_array))
		return 0;
	return json_object_array_length(v);
}

const char *sb_arg_idx(json_object *args, const char *key, size_t i)
{
	json_object *v;
	if (!json_object_object_get_ex(args, key, &v))
		return NULL;
	return json_object_get_string(json_object_array_get_idx(v, i));
}

void sb_arg_set(json_object *o, const char *key, const char *value)
{
	json_object_object_add(o, key, json_object_new_string(value));
}

void sb_result_var(json_object *result, const char *name, const char *value)
{
	json_object *vars;
	if (!json_object_object_get_ex(result, "vars", &vars)) {
		vars = json_object_new_object();
		json_object_object_add(result, "vars", vars);
	}
	sb_arg_set(vars, name, value);
}

void sb_vec_add(struct sb_vec *s, const char *str)
{
	char **nv = realloc(s->v, (s->n + 2) * sizeof(*nv));
	if (!nv)
		abort(); /* argv of a few words: out of memory here is not recoverable */
	s->v = nv;
	s->v[s->n] = strdup(str);
	if (!s->v[s->n])
		abort();
	s->v[++s->n] = NULL;
}

void sb_vec_addf(struct sb_vec *s, const char *fmt, ...)
{
	va_list ap;
	char *m;
	va_start(ap, fmt);
	if (vasprintf(&m, fmt, ap) < 0)
		abort();
	va_end(ap);
	sb_vec_add(s, m);
	free(m);
}

void sb_vec_free(struct sb_vec *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	s->v = NULL;
	s->n = 0;
}

/* Like sb_argv_format, but "${ssd}" placeholders of a dry run stay
 * readable instead of being quoted. */
char *sb_vec_format(const struct sb_vec *s)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	if (!f)
		return NULL;
	for (size_t i = 0; i < s->n; i++) {
		const char *w = s->v[i];
		bool plain = *w != '\0';
		for (const char *c = w; *c; c++)
			plain &=
			    strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
				   "-_./=:,+@%${}",
				   *c) != NULL;
		if (plain) {
			fprintf(f, "%s%s", i ? " " : "", w);
		} else {
			const char *one[] = {w, NULL};
			char *q = sb_argv_format(one);
			fprintf(f, "%s%s", i ? " " : "", q ? q : w);
			free(q);
		}
	}
	fclose(f);
	return out;
}

/* "${name}" -> value; unknown names stay as written (dry-run listings). */
static char *subst(const char *s, json_object *vars)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	if (!f)
		return NULL;
	while (*s) {
		const char *b = strstr(s, "${"), *e;
		json_object *v;
		if (!b || !(e = strchr(b, '}'))) {
			fputs(s, f);
			break;
		}
		fwrite(s, 1, (size_t)(b - s), f);
		char name[64];
		snprintf(name, sizeof(name), "%.*s", (int)(e - b - 2), b + 2);
		if (json_object_object_get_ex(vars, name, &v))
			fputs(json_object_get_string(v), f);
		else
			fwrite(b, 1, (size_t)(e - b + 1), f);
		s = e + 1;
	}
	fclose(f);
	return out;
}

char *sb_exec_expand(struct sb_exec *x, const char *s)
{
	return subst(s, x->vars);
}

static json_object *resolve(json_object *o, json_object *vars)
{
	switch (json_object_get_type(o)) {
	case json_type_string: {
		char *s = subst(json_object_get_string(o), vars);
		json_object *r = json_object_new_string(s ? s : "");
		free(s);
		return r;
	}
	case json_type_array: {
		json_object *a = json_object_new_array();
		for (size_t i = 0; i < json_object_array_length(o); i++)
			json_object_array_add(a, resolve(json_object_array_get_idx(o, i), vars));
		return a;
	}
	case json_type_object: {
		json_object *r = json_object_new_object();
		json_object_object_foreach(o, k, v) json_object_object_add(r, k, resolve(v, vars));
		return r;
	}
	default:
		return json_object_get(o);
	}
}

static void print_step(struct sb_exec *x, unsigned n, const struct sb_layer *l, json_object *args)
{
	_cleanup_free_ char *what = NULL, *undo = NULL;
	if (l->describe(args, &what, &undo) < 0)
		return;
	fprintf(x->out, "  %2u  %-13s %s\n", n, l->kind, what ? what : "");
	if (undo && *undo)
		fprintf(x->out, "      %-13s %s\n", "undo:", undo);
}

int sb_exec_plan(struct sb_exec *x, const struct sb_plan *p)
{
	for (size_t i = 0; i < p->n; i++) {
		const struct sb_layer *l = sb_layer_get(p->steps[i].kind);
		unsigned n = (unsigned)i + 1;
		json_object *args = resolve(p->steps[i].args, x->vars);
		json_object *result = NULL;
		int r;

		if (x->dry_run) {
			print_step(x, n, l, args);
			if (l->predict)
				l->predict(args, x);
			json_object_put(args);
			continue;
		}
		if (x->stop && *x->stop) {
			json_object_put(args);
			return sb_exec_fail(x, -EINTR, "interrupted before step %u", n);
		}
		if (l->prepare) {
			r = l->prepare(args, x);
			if (r < 0) {
				json_object_put(args);
				return r;
			}
		}
		r = sb_journal_begin(x->j, n, l->kind, args);
		if (r < 0) {
			json_object_put(args);
			return sb_exec_fail(x, r, "journal: cannot write: %s", strerror(-r));
		}
		x->steps_done = n;
		{
			_cleanup_free_ char *what = NULL, *undo = NULL;
			l->describe(args, &what, &undo);
			sb_exec_log(x, "== step %u: %s %s\n", n, l->kind, what ? what : "");
			sb_info("step %u/%zu: %s %s", n, p->n, l->kind, what ? what : "");
		}
		result = json_object_new_object();
		r = l->run(args, result, x);
		if (r == 0 && x->fail_step == n)
			r = sb_exec_fail(x, -EIO, "failing on purpose (STACKBENCH_FAIL_STEP=%u)",
					 n);
		if (r == 0 && x->stop && *x->stop)
			r = sb_exec_fail(x, -EINTR, "interrupted");
		if (r < 0) {
			if (!x->errmsg)
				sb_exec_fail(x, r, "%s", strerror(-r));
			/* Name the step in front of what went wrong. */
			char *m = NULL;
			if (asprintf(&m, "step %u (%s): %s", n, l->kind, x->errmsg) >= 0) {
				free(x->errmsg);
				x->errmsg = m;
			}
			sb_exec_log(x, "!! %s\n", x->errmsg);
			json_object_put(result);
			json_object_put(args);
			return r;
		}
		r = sb_journal_done(x->j, n, result);
		if (r < 0) {
			json_object_put(result);
			json_object_put(args);
			return sb_exec_fail(x, r, "journal: cannot write: %s", strerror(-r));
		}
		json_object *vars;
		if (json_object_object_get_ex(result, "vars", &vars)) {
			json_object_object_foreach(vars, k, v)
			    sb_exec_set_var(x, k, json_object_get_string(v));
		}
		json_object_put(result);
		json_object_put(args);
	}
	return 0;
}

/* Loop devices the journal attached, so that an undo never touches a
 * /dev/loopN that has since been detached or handed to someone else. */
struct loopmap {
	char dev[32];
	const char *file;
};

static bool loop_still_ours(const struct loopmap *m)
{
	char p[96], buf[4096];
	size_t n = strlen(m->file);
	snprintf(p, sizeof(p), "/sys/block/%s/loop/backing_file", m->dev + 5);
	if (sb_sys_read(p, buf, sizeof(buf)) < 0)
		return false;
	return strncmp(buf, m->file, n) == 0 && (!buf[n] || strcmp(buf + n, " (deleted)") == 0);
}

/* Does a string in args name a device on one of our loops that is gone? */
static bool names_lost_loop(json_object *o, const struct loopmap *m, size_t nm)
{
	switch (json_object_get_type(o)) {
	case json_type_string: {
		const char *s = json_object_get_string(o);
		for (size_t i = 0; i < nm; i++) {
			size_t l = strlen(m[i].dev);
			/* /dev/loop3 and its partitions /dev/loop3p1, not /dev/loop30 */
			if (strncmp(s, m[i].dev, l) == 0 && (s[l] == '\0' || s[l] == 'p') &&
			    !loop_still_ours(&m[i]))
				return true;
		}
		return false;
	}
	case json_type_array:
		for (size_t i = 0; i < json_object_array_length(o); i++)
			if (names_lost_loop(json_object_array_get_idx(o, i), m, nm))
				return true;
		return false;
	case json_type_object: {
		json_object_object_foreach(o, k, v)
		{
			(void)k;
			if (names_lost_loop(v, m, nm))
				return true;
		}
		return false;
	}
	default:
		return false;
	}
}

int sb_exec_undo_journal(struct sb_exec *x, const char *path)
{
	struct sb_jread jr = {0};
	_cleanup_free_ char *first_msg = NULL;
	int r, first = 0;

	r = sb_journal_read(path, &jr);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return sb_exec_fail(x, r, "%s: cannot read journal: %s", path, strerror(-r));
	if (jr.torn)
		sb_exec_log(x, "journal %s: %u torn record(s) skipped\n", path, jr.torn);
	struct loopmap lm[64];
	size_t nlm = 0;
	for (size_t i = 0; i < jr.n && nlm < ARRAY_SIZE(lm); i++) {
		const char *dev = sb_arg_str(jr.rec[i].result, "dev");
		if (strcmp(jr.rec[i].kind, "loop") == 0 && dev && strlen(dev) < sizeof(lm[0].dev) &&
		    sb_arg_str(jr.rec[i].args, "file")) {
			snprintf(lm[nlm].dev, sizeof(lm[nlm].dev), "%s", dev);
			lm[nlm++].file = sb_arg_str(jr.rec[i].args, "file");
		}
	}
	for (size_t i = jr.n; i-- > 0;) {
		const struct sb_jrec *rec = &jr.rec[i];
		const struct sb_layer *l = sb_layer_by_name(rec->kind);
		_cleanup_free_ char *what = NULL, *undo = NULL;

		free(x->errmsg);
		x->errmsg = NULL;
		const char *missing = NULL;
		for (size_t k = 0; l && k < ARRAY_SIZE(l->required) && l->required[k]; k++)
			if (!sb_arg_str(rec->args, l->required[k]))
				missing = l->required[k];
		/* Arrays of devices must hold strings only. */
		json_object_object_foreach(rec->args, key, val)
		{
			if (json_object_is_type(val, json_type_array))
				for (size_t k = 0; k < json_object_array_length(val); k++)
					if (!json_object_is_type(json_object_array_get_idx(val, k),
								 json_type_string))
						missing = key;
		}
		if (!l) {
			r = sb_exec_fail(x, -EINVAL, "unknown kind '%s'", rec->kind);
		} else if (missing) {
			r = sb_exec_fail(x, -EINVAL, "damaged record: no valid '%s'", missing);
		} else if (strcmp(rec->kind, "loop") != 0 && names_lost_loop(rec->args, lm, nlm)) {
			sb_exec_log(x, "== undo step %u (%s): skipped, its loop device is gone\n",
				    rec->step, rec->kind);
			r = 0;
		} else {
			l->describe(rec->args, &what, &undo);
			sb_exec_log(x, "== undo step %u: %s\n", rec->step, undo ? undo : l->kind);
			sb_verbose("undo step %u: %s", rec->step, undo ? undo : l->kind);
			r = l->undo(rec->args, rec->result, x);
		}
		if (r < 0) {
			x->undo_failed++;
			sb_exec_log(x, "!! undo step %u: %s\n", rec->step,
				    x->errmsg ? x->errmsg : strerror(-r));
			first = r;
			if (asprintf(&first_msg, "undo of step %u (%s): %s", rec->step, rec->kind,
				     x->errmsg ? x->errmsg : strerror(-r)) < 0)
				first_msg = NULL;
			/* Layers below still carry this one: stop here, and let a later
			 * teardown start again from the top (every undo is idempotent). */
			break;
		}
	}
	sb_jread_free(&jr);
	free(x->errmsg);
	x->errmsg = TAKE_PTR(first_msg);
	/* Keep the journal while something could not be undone: a later
	 * teardown can try again. */
	if (!first && unlink(path) < 0 && errno != ENOENT)
		first = sb_exec_fail(x, negerrno(), "%s: cannot remove: %s", path, strerror(errno));
	return first;
}

/* The executor: runs a plan step by step with a journal record before and
 * after each, or lists it (dry-run) through the same loop; undoes from the
 * journal alone. Before a step writes a device it proves that nobody else
 * holds it (an O_EXCL open) and journals who the device is; undo acts only
 * on what still is that device. */
#include "stack/devlock.h"
#include "stack/scenario.h"
#include "stack/stack.h"
#include "util/kmsg.h"
#include "stack/capture.h"
#include "util/strutil.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/spawn.h"

#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>

/* The registry: the order is the enum's. */
static const struct sb_layer *const layers[SB_STEP_KIND_N] = {
    [SB_STEP_LOOP] = &sb_layer_loop,	   [SB_STEP_QUEUE] = &sb_layer_queue,
    [SB_STEP_PRECOND] = &sb_layer_precond, [SB_STEP_PART] = &sb_layer_part,
    [SB_STEP_MD] = &sb_layer_md,	   [SB_STEP_BCACHE] = &sb_layer_bcache,
    [SB_STEP_PV] = &sb_layer_pv,	   [SB_STEP_VG] = &sb_layer_vg,
    [SB_STEP_LV] = &sb_layer_lv,	   [SB_STEP_LVC_VGEXTEND] = &sb_layer_lvc_vgextend,
    [SB_STEP_LVC_LV] = &sb_layer_lvc_lv,   [SB_STEP_LVC_CONVERT] = &sb_layer_lvc_convert,
    [SB_STEP_MKFS] = &sb_layer_mkfs,	   [SB_STEP_MOUNT] = &sb_layer_mount,
    [SB_STEP_MEMCG] = &sb_layer_memcg,	   [SB_STEP_SCEN] = &sb_layer_scen,
};

/* External programs get this long before they are stopped (mkfs.ext4
 * initialising the inode tables of a large array is the slowest). */
#define SB_CMD_TIMEOUT_MS (60u * 60 * 1000)
/* How long a step waits for udevd to handle each device it made. */
#define SB_SETTLE_MS 2000

/* Before main: the profile parser knows the layers' keys from here alone,
 * without profile/ reaching up into stack/. */
__attribute__((constructor)) static void keytabs_register(void)
{
	for (size_t k = 0; k < SB_STEP_KIND_N; k++)
		if (layers[k]->keytab)
			sb_keytab_register(layers[k]->keytab);
}

size_t sb_layer_captures(const struct sb_capture **out, size_t max)
{
	size_t n = 0;
	for (size_t k = 0; k < SB_STEP_KIND_N; k++)
		if (layers[k]->capture && n < max)
			out[n++] = layers[k]->capture;
	return n;
}

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

void *sb_layer_args_new(const struct sb_layer *l)
{
	return calloc(1, l->args_size);
}

void sb_layer_args_free(const struct sb_layer *l, void *args)
{
	if (!args)
		return;
	sb_fields_free(l->fields, l->n_fields, args);
	free(args);
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

char *sb_exec_expand(struct sb_exec *x, const char *s)
{
	return sb_subst(s, x->vars);
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

/* The Debian package of a program, from the layers that run it. */
const char *sb_program_package(const char *prog)
{
	for (int i = 0; i < SB_STEP_KIND_N; i++)
		for (const struct sb_prog *p = layers[i]->progs; p && p->prog; p++)
			if (strcmp(p->prog, prog) == 0)
				return p->package;
	return NULL;
}

static const struct sb_prog *step_programs(const struct sb_step *s)
{
	const struct sb_layer *l = sb_layer_get(s->kind);
	return l->programs ? l->programs(s->args) : l->progs;
}

int sb_plan_check(const struct sb_plan *p, char ***msgs)
{
	char **m = NULL;
	size_t n = 0;
	const char *seen[64];
	size_t n_seen = 0;

#define PUSH(...)                                                                                  \
	do {                                                                                       \
		char **_nm = realloc(m, (n + 2) * sizeof(*m));                                     \
		if (!_nm || asprintf(&_nm[n], __VA_ARGS__) < 0)                                    \
			abort();                                                                   \
		m = _nm;                                                                           \
		m[++n] = NULL;                                                                     \
	} while (0)
	for (size_t i = 0; i < p->n; i++) {
		const struct sb_layer *l = sb_layer_get(p->steps[i].kind);
		const struct sb_prog *pr = step_programs(&p->steps[i]);
		const char *why = l->preflight ? l->preflight(p->steps[i].args) : NULL;
		bool dup = false;
		/* Compared by text, and the copy kept: a message may live in its
		 * layer's static buffer (queue names the scheduler). */
		if (why) {
			for (size_t k = 0; k < n_seen; k++)
				dup |= strcmp(seen[k], why) == 0;
			if (!dup && n_seen < ARRAY_SIZE(seen)) {
				PUSH("%s", why);
				seen[n_seen++] = m[n - 1];
			}
		}
		for (; pr && pr->prog; pr++) {
			dup = false;
			for (size_t k = 0; k < n_seen; k++)
				dup |= strcmp(seen[k], pr->prog) == 0;
			if (dup || sb_have_program(pr->prog))
				continue;
			if (n_seen < ARRAY_SIZE(seen))
				seen[n_seen++] = pr->prog;
			PUSH("%s: not found (install the Debian package %s)", pr->prog,
			     pr->package);
		}
	}
#undef PUSH
	*msgs = m;
	return (int)n;
}

static int run_cmd(struct sb_exec *x, const char *const *argv, int *status, bool quiet,
		   char **output)
{
	_cleanup_free_ char *txt = sb_argv_format(argv);
	_cleanup_free_ char **env = NULL;
	size_t ne = 0;
	extern char **environ;
	struct sb_child c = {.argv = argv,
			     .capture = true,
			     .log_fd = output ? -1 : x->log_fd,
			     .timeout_ms = SB_CMD_TIMEOUT_MS,
			     .stop = x->stop};
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
	if (c.timed_out || c.stopped) {
		r = sb_exec_fail(x, c.stopped ? -EINTR : -ETIMEDOUT, "%s: %s", txt ? txt : argv[0],
				 c.stopped ? "stopped (interrupted)" : "time limit reached");
	} else if (c.status != 0 && !quiet) {
		/* The last non-empty line of stderr usually says why. */
		char *e = c.err_len ? c.err : c.out ? c.out : (char *)"";
		size_t n = strlen(e);
		while (n && (e[n - 1] == '\n' || e[n - 1] == ' '))
			e[--n] = '\0';
		char *last = strrchr(e, '\n');
		last = last ? last + 1 : e;
		r = sb_exec_fail(x, -EIO, "%s exited with status %d%s%s", txt ? txt : argv[0],
				 c.status, *last ? ": " : "", last);
	}
	if (output) {
		*output = c.out ? c.out : strdup("");
		c.out = NULL;
	}
	sb_child_release(&c);
	return r;
}

int sb_exec_cmd(struct sb_exec *x, const char *const *argv)
{
	return run_cmd(x, argv, NULL, false, NULL);
}

int sb_exec_cmd_quiet(struct sb_exec *x, const char *const *argv, int *status)
{
	return run_cmd(x, argv, status, true, NULL);
}

int sb_exec_cmd_output(struct sb_exec *x, const char *const *argv, int *status, char **out)
{
	*out = NULL;
	return run_cmd(x, argv, status, true, out);
}

/* ---- small JSON helpers for results ---- */

const char *sb_json_str(json_object *o, const char *key)
{
	json_object *v;
	if (!o || !json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

int64_t sb_json_i64(json_object *o, const char *key, int64_t def)
{
	json_object *v;
	if (!o || !json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_int))
		return def;
	return json_object_get_int64(v);
}

void sb_result_var(json_object *result, const char *name, const char *value)
{
	json_object *vars;
	if (!json_object_object_get_ex(result, "vars", &vars)) {
		vars = json_object_new_object();
		json_object_object_add(result, "vars", vars);
	}
	json_object_object_add(vars, name, json_object_new_string(value));
}

/* ---- running a plan ---- */

static void print_step(struct sb_exec *x, unsigned n, const struct sb_layer *l, const void *args)
{
	_cleanup_free_ char *what = NULL, *undo = NULL;
	if (l->describe(args, &what, &undo) < 0)
		return;
	fprintf(x->out, "  %2u  %-13s %s\n", n, l->kind, what ? what : "");
	if (undo && *undo)
		fprintf(x->out, "      %-13s %s\n", "undo:", undo);
}

/* The step's own copy of the plan's arguments, variables filled in. The
 * copy goes through the journal record's form, so that what runs is what
 * a teardown will read back. */
static void *step_args(const struct sb_layer *l, const void *tmpl, json_object *vars)
{
	json_object *o = sb_fields_to_json(l->fields, l->n_fields, tmpl);
	void *a = sb_layer_args_new(l);
	char *err = NULL;
	if (!a || sb_fields_from_json(l->fields, l->n_fields, a, o, &err) < 0 ||
	    sb_fields_subst(l->fields, l->n_fields, a, vars) < 0) {
		/* The plan made these arguments: a failure is a bug, not input. */
		sb_error("internal: %s arguments: %s", l->kind, err ? err : "out of memory");
		abort();
	}
	json_object_put(o);
	return a;
}

struct devlist {
	const char *d[64];
	size_t n;
};

static void collect(const char *dev, void *ud)
{
	struct devlist *l = ud;
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->d[i], dev) == 0)
			return;
	if (l->n < ARRAY_SIZE(l->d))
		l->d[l->n++] = dev;
}

/* The identity of every device the step acts on, for undo to compare. */
static json_object *capture_idents(struct sb_exec *x, const struct sb_layer *l, const void *a)
{
	struct devlist dl = {.n = 0};
	json_object *o = json_object_new_object();
	sb_fields_each_dev(l->fields, l->n_fields, a, SB_FF_IDENT, collect, &dl);
	for (size_t i = 0; i < dl.n; i++) {
		json_object *id = sb_ident_capture(dl.d[i], x);
		if (id)
			json_object_object_add(o, dl.d[i], id);
	}
	return o;
}

/* Proves that nobody else holds what the step writes: every whole disk
 * below a partition first (opened and closed again: a partition held
 * exclusively blocks an exclusive open of its disk, ours too), then each
 * device, held in fds until the step's tool is about to claim it. */
static int prove_exclusive(struct sb_exec *x, const struct sb_layer *l, const void *a, int *fds,
			   size_t *n_fds)
{
	struct devlist dl = {.n = 0};
	char *why = NULL;
	int r;

	*n_fds = 0;
	sb_fields_each_dev(l->fields, l->n_fields, a, SB_FF_WRITES, collect, &dl);
	for (size_t i = 0; i < dl.n; i++) {
		_cleanup_free_ char *whole = sb_devlock_whole_disk(dl.d[i]);
		int fd = -1;
		if (!whole)
			continue;
		r = sb_devlock_excl_open(whole, &fd, &why);
		if (r < 0)
			goto refused;
		close(fd);
	}
	for (size_t i = 0; i < dl.n; i++) {
		r = sb_devlock_excl_open(dl.d[i], &fds[*n_fds], &why);
		if (r < 0)
			goto refused;
		(*n_fds)++;
	}
	return 0;
refused:
	for (size_t i = 0; i < *n_fds; i++)
		close(fds[i]);
	*n_fds = 0;
	if (r == -EBUSY)
		x->refused = true;
	r = sb_exec_fail(x, r, "%s", why ? why : strerror(-r));
	free(why);
	return r;
}

/* The devices a step made (its /dev variables) must be there for udev's
 * rules, and their links for the next step, before it goes on. Each
 * device's own wait, not the whole queue's: udevd defers the events of the
 * disks this run holds flock'ed, and the queue would not drain before the
 * lock goes. */
static void wait_made(json_object *result)
{
	json_object *vars;

	if (!json_object_object_get_ex(result, "vars", &vars))
		return;
	json_object_object_foreach(vars, k, v)
	{
		const char *dev = json_object_get_string(v);
		(void)k;
		if (dev && strncmp(dev, "/dev/", 5) == 0)
			sb_udev_wait_dev(dev, SB_SETTLE_MS);
	}
}

/* What the kernel logged while a step failed, about the step's devices
 * and file system, appended to the step's error: "mount: ... wrong fs
 * type" becomes "... ; kernel: xfs: Unknown parameter 'delaylog'", with a
 * note when the option is one Linux removed. */
static void add_kernel_reason(struct sb_exec *x, const struct sb_layer *l, void *args,
			      struct sb_kmsg *k)
{
	json_object *rec = sb_fields_to_json(l->fields, l->n_fields, args), *t;
	const char *words[24];
	char names[16][64];
	size_t nw = 0, nn = 0;
	const char *type = NULL, *opts = NULL;

	if (!rec)
		return;
	json_object_object_foreach(rec, key, val)
	{
		(void)key;
		size_t n =
		    json_object_is_type(val, json_type_array) ? json_object_array_length(val) : 1;
		for (size_t i = 0; i < n && nn < 16; i++) {
			json_object *e = json_object_is_type(val, json_type_array)
					     ? json_object_array_get_idx(val, i)
					     : val;
			const char *s = json_object_is_type(e, json_type_string)
					    ? json_object_get_string(e)
					    : NULL;
			if (s && strncmp(s, "/dev/", 5) == 0) {
				const char *b = strrchr(s, '/') + 1;
				if (*b) {
					snprintf(names[nn], sizeof(names[nn]), "%s", b);
					words[nw++] = names[nn++];
				}
			}
		}
	}
	if (json_object_object_get_ex(rec, "type", &t) && json_object_is_type(t, json_type_string))
		type = json_object_get_string(t);
	if (json_object_object_get_ex(rec, "options", &t) &&
	    json_object_is_type(t, json_type_string))
		opts = json_object_get_string(t);
	if (type && nw < ARRAY_SIZE(words) - 1)
		words[nw++] = type;
	words[nw] = NULL;
	_cleanup_free_ char *said = sb_kmsg_collect(k, words, 6);
	_cleanup_free_ char *removed =
	    strcmp(l->kind, "mount") == 0 ? sb_mount_removed_options(type, opts) : NULL;
	if (said || removed) {
		char *m = sb_asprintf("%s%s%s%s%s", x->errmsg ? x->errmsg : "step failed",
				      said ? "; kernel: " : "", said ? said : "",
				      removed ? "; " : "", removed ? removed : "");
		if (m) {
			free(x->errmsg);
			x->errmsg = m;
		}
	}
	json_object_put(rec);
}

static int run_step(struct sb_exec *x, const struct sb_layer *l, void *args, unsigned n,
		    size_t total)
{
	_cleanup_free_ char *what = NULL, *undo = NULL;
	json_object *rec = NULL, *ident = NULL, *result = NULL;
	int fds[64];
	size_t n_fds = 0;
	int r;

	if (l->prepare) {
		r = l->prepare(args, x);
		if (r < 0)
			return r;
	}
	ident = capture_idents(x, l, args);
	r = prove_exclusive(x, l, args, fds, &n_fds);
	if (r < 0) {
		json_object_put(ident);
		return r;
	}
	rec = sb_fields_to_json(l->fields, l->n_fields, args);
	r = sb_journal_begin(x->j, n, l->kind, rec, ident);
	json_object_put(rec);
	json_object_put(ident);
	/* Our claims go just before the tool makes its own (it would get
	 * EBUSY from ours). */
	for (size_t i = 0; i < n_fds; i++)
		close(fds[i]);
	if (r < 0)
		return sb_exec_fail(x, r, "journal: cannot write: %s", strerror(-r));
	x->steps_done = n;
	l->describe(args, &what, &undo);
	sb_exec_log(x, "== step %u: %s %s\n", n, l->kind, what ? what : "");
	sb_info("step %u/%zu: %s %s", n, total, l->kind, what ? what : "");
	result = json_object_new_object();
	struct sb_kmsg km;
	sb_kmsg_begin(&km);
	r = l->run(args, result, x);
	if (r < 0 && r != -EINTR)
		add_kernel_reason(x, l, args, &km);
	sb_kmsg_end(&km);
	/* A test's kill -9 at a known point: the step has acted, its "done"
	 * record is not written, nothing of ours runs after. */
	if (r == 0 && x->kill_step == n && !x->dry_run)
		raise(SIGKILL);
	if (r == 0 && x->fail_step == n)
		r = sb_exec_fail(x, -EIO, "failing on purpose (STACKBENCH_FAIL_STEP=%u)", n);
	if (r == 0 && x->stop && *x->stop)
		r = sb_exec_fail(x, -EINTR, "interrupted");
	if (r < 0) {
		json_object_put(result);
		return r;
	}
	if (x->udev && (l->flags & SB_LF_CREATES_DEV))
		wait_made(result);
	r = sb_journal_done(x->j, n, result);
	if (r < 0) {
		json_object_put(result);
		return sb_exec_fail(x, r, "journal: cannot write: %s", strerror(-r));
	}
	json_object *vars;
	if (json_object_object_get_ex(result, "vars", &vars)) {
		json_object_object_foreach(vars, k, v)
		    sb_exec_set_var(x, k, json_object_get_string(v));
	}
	json_object_put(result);
	return 0;
}

int sb_exec_plan(struct sb_exec *x, const struct sb_plan *p)
{
	for (size_t i = 0; i < p->n; i++) {
		const struct sb_layer *l = sb_layer_get(p->steps[i].kind);
		unsigned n = (unsigned)i + 1;
		void *args = step_args(l, p->steps[i].args, x->vars);
		int r;

		if (x->dry_run) {
			print_step(x, n, l, args);
			if (l->predict)
				l->predict(args, x);
			sb_layer_args_free(l, args);
			continue;
		}
		if (x->stop && *x->stop) {
			sb_layer_args_free(l, args);
			return sb_exec_fail(x, -EINTR, "interrupted before step %u", n);
		}
		r = run_step(x, l, args, n, p->n);
		sb_layer_args_free(l, args);
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
			return r;
		}
	}
	return 0;
}

/* ---- undo from the journal ---- */

struct urec {
	const struct sb_jrec *rec;
	const struct sb_layer *l;
	void *args;
};

static void append_msg(char **acc, const char *m)
{
	char *n = NULL;
	if (asprintf(&n, "%s%s%s", *acc ? *acc : "", *acc ? "; " : "", m) < 0)
		return;
	free(*acc);
	*acc = n;
}

struct idck {
	struct sb_exec *x;
	json_object *ident;
	unsigned ours, gone, other;
	char *why;
};

static void check_one(const char *dev, void *ud)
{
	struct idck *c = ud;
	json_object *want;
	char *why = NULL;
	if (!c->ident || !json_object_object_get_ex(c->ident, dev, &want))
		return;
	int r = sb_ident_check(dev, want, c->x, &why);
	sb_verbose("%s: identity %s", dev, r == 0 ? "matches" : r == SB_GONE ? "gone" : "differs");
	if (r == 0)
		c->ours++;
	else if (r == SB_GONE)
		c->gone++;
	else {
		c->other++;
		append_msg(&c->why, why ? why : dev);
	}
	free(why);
}

/* 0: undo it; SB_GONE: nothing left to undo; -ESTALE: not ours (x->errmsg). */
static int check_rec(struct sb_exec *x, const struct urec *u)
{
	struct idck c = {.x = x, .ident = u->rec->ident};
	int r;
	sb_fields_each_dev(u->l->fields, u->l->n_fields, u->args, SB_FF_IDENT, check_one, &c);
	if (c.other) {
		r = sb_exec_fail(x, -ESTALE, "%s", c.why);
		free(c.why);
		return r;
	}
	free(c.why);
	if (c.gone && !c.ours)
		return SB_GONE;
	return u->l->check ? u->l->check(u->args, u->rec->result, x) : 0;
}

static void free_urecs(struct urec *u, size_t n)
{
	for (size_t i = 0; u && i < n; i++)
		sb_layer_args_free(u[i].l, u[i].args);
	free(u);
}

/* Every record read into its layer's arguments, and every path checked,
 * before anything is undone: a damaged journal is refused as a whole. */
static int load_records(struct sb_exec *x, const struct sb_jread *jr, const char *dir,
			struct urec **out)
{
	struct urec *u = calloc(jr->n + 1, sizeof(*u));
	int r = 0;
	if (!u)
		return -ENOMEM;
	for (size_t i = 0; i < jr->n; i++) {
		const struct sb_jrec *rec = &jr->rec[i];
		char *err = NULL;
		u[i].rec = rec;
		u[i].l = sb_layer_by_name(rec->kind);
		if (!u[i].l) {
			r = -EBADMSG;
			sb_exec_fail(x, r, "step %u: unknown kind '%s'", rec->step, rec->kind);
			break;
		}
		u[i].args = sb_layer_args_new(u[i].l);
		if (!u[i].args) {
			r = -ENOMEM;
			break;
		}
		r = sb_fields_from_json(u[i].l->fields, u[i].l->n_fields, u[i].args, rec->args,
					&err);
		if (r == 0)
			r = sb_fields_check_paths(u[i].l->fields, u[i].l->n_fields, u[i].args, dir,
						  &err);
		if (r < 0) {
			r = r == -EPERM ? -EPERM : -EBADMSG;
			sb_exec_fail(x, r, "step %u (%s): %s record: %s", rec->step, rec->kind,
				     r == -EPERM ? "refused" : "damaged", err ? err : "?");
			free(err);
			break;
		}
	}
	if (r < 0) {
		free_urecs(u, jr->n);
		return r;
	}
	*out = u;
	return 0;
}

/* After a reboot or a re-plug the kernel may give our disks other names
 * (the test's power cut: sdc is a bystander now, ours is sdd). A journaled
 * disk whose name shows another identity, or none, is looked for by its
 * WWID or serial; found exactly once, every record is undone under its new
 * name, and so are its partitions. Never by size or name alone: without a
 * strong identity the mismatch stands and the object is left alone. */
struct relocs {
	size_t n;
	char *from[64], *to[64];
};

static const char *reloc_map(const char *dev, void *ud)
{
	const struct relocs *R = ud;
	for (size_t i = 0; i < R->n; i++)
		if (strcmp(R->from[i], dev) == 0)
			return R->to[i];
	return NULL;
}

static void relocs_free(struct relocs *R)
{
	for (size_t i = 0; i < R->n; i++) {
		free(R->from[i]);
		free(R->to[i]);
	}
	R->n = 0;
}

/* The new name (a basename) of the disk of a journaled partition, when
 * that disk moved; NULL otherwise. */
static const char *disk_now_of(json_object *want, struct relocs *R)
{
	json_object *part;
	char olddisk[PATH_MAX];
	const char *to;

	if (!json_object_object_get_ex(want, "part", &part) || !sb_json_str(part, "disk"))
		return NULL;
	snprintf(olddisk, sizeof(olddisk), "/dev/%s", sb_json_str(part, "disk"));
	to = reloc_map(olddisk, R);
	return to ? to + 5 : NULL; /* "/dev/" */
}

/* pass 0: whole disks; pass 1: partitions of disks that moved. */
static int find_moved(struct sb_exec *x, json_object *ident, int pass, struct relocs *R)
{
	json_object_object_foreach(ident, dev, want)
	{
		bool is_part = json_object_object_get_ex(want, "part", NULL);
		const char *disk_now = is_part ? disk_now_of(want, R) : NULL;
		unsigned n;

		if (is_part != (pass == 1) || (is_part && !disk_now) || reloc_map(dev, R) ||
		    R->n == ARRAY_SIZE(R->from) || sb_ident_check(dev, want, x, NULL) == 0)
			continue;
		char *to = sb_ident_find(dev, want, disk_now, x, &n);
		if (!to) {
			if (n > 1)
				sb_exec_log(
				    x, "!! %s: %u devices have its identity now: left as it is\n",
				    dev, n);
			continue;
		}
		R->from[R->n] = strdup(dev);
		R->to[R->n] = to;
		if (!R->from[R->n]) {
			free(to);
			return -ENOMEM;
		}
		R->n++;
		const char *how = is_part		      ? "its disk moved, same start"
				  : sb_json_str(want, "wwid") ? "same WWID"
							      : "same serial";
		sb_exec_log(x, "== %s is %s now (%s)\n", dev, to, how);
		sb_info("%s is %s now (%s): undone there", dev, to, how);
	}
	return 0;
}

static int relocate(struct sb_exec *x, struct sb_jread *jr, struct urec *u)
{
	struct relocs R = {0};
	int r = 0;

	for (int pass = 0; pass < 2 && r == 0; pass++)
		for (size_t i = 0; i < jr->n && r == 0; i++)
			if (jr->rec[i].ident)
				r = find_moved(x, jr->rec[i].ident, pass, &R);
	for (size_t i = 0; i < jr->n && r == 0 && R.n; i++) {
		r = sb_fields_map_dev(u[i].l->fields, u[i].l->n_fields, u[i].args, reloc_map, &R);
		if (r < 0 || !jr->rec[i].ident)
			continue;
		/* The identities under the new names; a swap (sdc <-> sdd) too. */
		json_object *id = json_object_new_object();
		json_object_object_foreach(jr->rec[i].ident, dev, want)
		{
			const char *to = reloc_map(dev, &R);
			json_object_object_add(id, to ? to : dev,
					       to ? sb_ident_moved(want, disk_now_of(want, &R))
						  : json_object_get(want));
		}
		json_object_put(jr->rec[i].ident);
		jr->rec[i].ident = id;
	}
	relocs_free(&R);
	return r;
}

/* Undoes one journaled step, after checking that what it made is still
 * the very object: 0 (done, gone, or left alone with a note in *mismatch),
 * or the undo's error with *first_msg saying which step. */
static int undo_one(struct sb_exec *x, const struct sb_jrec *rec, struct urec *u, char **mismatch,
		    char **first_msg)
{
	const struct sb_layer *l = u->l;
	_cleanup_free_ char *what = NULL, *undo = NULL;
	int r;

	free(x->errmsg);
	x->errmsg = NULL;
	l->describe(u->args, &what, &undo);
	r = check_rec(x, u);
	if (r == SB_GONE) {
		sb_exec_log(x, "== undo step %u (%s): already gone\n", rec->step, l->kind);
		x->undo_gone++;
		return 0;
	}
	if (r == -ESTALE) {
		char *m = NULL;
		x->undo_mismatch++;
		if (asprintf(&m, "undo of step %u (%s): %s: left alone", rec->step, l->kind,
			     x->errmsg ? x->errmsg : "not ours") >= 0) {
			sb_exec_log(x, "!! %s\n", m);
			append_msg(mismatch, m);
			free(m);
		}
		return 0;
	}
	if (r == 0) {
		sb_exec_log(x, "== undo step %u: %s\n", rec->step, undo ? undo : l->kind);
		sb_verbose("undo step %u: %s", rec->step, undo ? undo : l->kind);
		r = l->undo(u->args, rec->result, x);
		if (r == SB_GONE)
			x->undo_gone++;
		else if (r == 0)
			x->undo_done++;
	}
	if (r >= 0)
		return 0;
	x->undo_failed++;
	sb_exec_log(x, "!! undo step %u: %s\n", rec->step, x->errmsg ? x->errmsg : strerror(-r));
	if (asprintf(first_msg, "undo of step %u (%s): %s", rec->step, rec->kind,
		     x->errmsg ? x->errmsg : strerror(-r)) < 0)
		*first_msg = NULL;
	return r;
}

int sb_exec_undo_journal(struct sb_exec *x, const char *path)
{
	struct sb_jread jr = {0};
	struct urec *u = NULL;
	_cleanup_free_ char *first_msg = NULL, *mismatch = NULL, *copy = strdup(path);
	char dir[PATH_MAX];
	int r, first = 0;

	if (!copy)
		return -ENOMEM;
	r = sb_journal_read(path, &jr);
	if (r == -ENOENT)
		return 0;
	if (r == -EBADMSG && jr.bad_line)
		return sb_exec_fail(x, r,
				    "%s: line %u is damaged (only the last line may be torn): "
				    "refusing the journal, nothing was touched",
				    path, jr.bad_line);
	if (r < 0)
		return sb_exec_fail(x, r, "%s: cannot read journal: %s", path, strerror(-r));
	/* Paths in the journal must lie in its own directory. */
	if (!realpath(dirname(copy), dir)) {
		r = sb_exec_fail(x, negerrno(), "%s: %s", path, strerror(errno));
		sb_jread_free(&jr);
		return r;
	}
	x->run_dir = dir;
	if (jr.torn)
		sb_exec_log(x, "journal %s: torn last record skipped\n", path);
	r = load_records(x, &jr, dir, &u);
	if (r == 0 && (r = relocate(x, &jr, u)) < 0)
		free_urecs(u, jr.n);
	if (r < 0) {
		char *m = NULL;
		if (asprintf(&m, "%s: %s: refusing the journal, nothing was touched", path,
			     x->errmsg ? x->errmsg : strerror(-r)) >= 0) {
			free(x->errmsg);
			x->errmsg = m;
		}
		sb_jread_free(&jr);
		x->run_dir = NULL;
		return r;
	}
	for (size_t i = jr.n; i-- > 0;)
		if ((first = undo_one(x, &jr.rec[i], &u[i], &mismatch, &first_msg)) < 0)
			break; /* layers below still carry this one: a later teardown
				* starts again from the top (every undo is idempotent) */
	free_urecs(u, jr.n);
	sb_jread_free(&jr);
	x->run_dir = NULL;
	free(x->errmsg);
	if (first) {
		x->errmsg = TAKE_PTR(first_msg);
		if (mismatch)
			append_msg(&x->errmsg, mismatch);
		return first;
	}
	if (mismatch) {
		/* Keep the journal: what it names is someone else's now, and the
		 * user must know. */
		x->errmsg = TAKE_PTR(mismatch);
		return -ESTALE;
	}
	x->errmsg = NULL;
	if (unlink(path) < 0 && errno != ENOENT)
		return sb_exec_fail(x, negerrno(), "%s: cannot remove: %s", path, strerror(errno));
	return 0;
}

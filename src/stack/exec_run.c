/* Running a plan: each step proven exclusive, journaled before and after,
 * run (or listed in a dry-run); external programs run on the steps' behalf. */
#include "stack/devlock.h"
#include "stack/stack.h"
#include "util/kmsg.h"
#include "util/strutil.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/spawn.h"

#include <string.h>

/* External programs get this long before they are stopped (mkfs.ext4
 * initialising the inode tables of a large array is the slowest). */
#define SB_CMD_TIMEOUT_MS (60u * 60 * 1000)
/* How long a step waits for udevd to handle each device it made. */
#define SB_SETTLE_MS 2000

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
	r = sb_journal_begin(x->j, x->step_base + n, l->kind, rec, ident);
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
	if (r == 0 && x->kill_step == x->step_base + n && !x->dry_run)
		raise(SIGKILL);
	if (r == 0 && x->fail_step == x->step_base + n)
		r = sb_exec_fail(x, -EIO, "failing on purpose (STACKBENCH_FAIL_STEP=%u)", n);
	if (r == 0 && x->stop && *x->stop)
		r = sb_exec_fail(x, -EINTR, "interrupted");
	if (r < 0) {
		json_object_put(result);
		return r;
	}
	if (x->udev && (l->flags & SB_LF_CREATES_DEV))
		wait_made(result);
	r = sb_journal_done(x->j, x->step_base + n, result);
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

/* Undo from the journal alone: records read and checked whole, disks that
 * moved found by identity, each step undone only on what still is its object. */
#include "stack/stack.h"
#include "util/log.h"
#include "util/macro.h"

#include <libgen.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>

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

/* keep_images: the journal, every step undone, holds only the loop steps
 * whose images were kept (each file once, the newest record), so that a
 * teardown after a kill before the next round removes them. */
static int keep_journal(struct sb_exec *x, const char *path, const struct sb_jread *jr)
{
	const struct sb_jrec *keep[jr->n ? jr->n : 1];
	size_t n = 0;
	struct stat st;
	int r;

	for (size_t i = jr->n; i-- > 0;) {
		const struct sb_jrec *rec = &jr->rec[i];
		const char *file = sb_json_str(rec->args, "file");
		bool seen = false;
		if (strcmp(rec->kind, "loop") != 0 || !rec->result || !file ||
		    lstat(file, &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		for (size_t k = 0; k < n && !seen; k++)
			seen = strcmp(sb_json_str(keep[k]->args, "file"), file) == 0;
		if (!seen)
			keep[n++] = rec;
	}
	if (!n)
		return unlink(path) < 0 && errno != ENOENT
			   ? sb_exec_fail(x, negerrno(), "%s: cannot remove: %s", path,
					  strerror(errno))
			   : 0;
	r = sb_journal_rewrite(path, jr->run_id ? jr->run_id : "", keep, n);
	if (r < 0)
		return sb_exec_fail(x, r, "%s: cannot keep the images' records: %s", path,
				    strerror(-r));
	sb_exec_log(x, "journal: %zu image%s kept for the next round\n", n, n == 1 ? "" : "s");
	return 0;
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
	if (!first && !mismatch && x->keep_images) {
		free(x->errmsg);
		x->errmsg = NULL;
		r = keep_journal(x, path, &jr);
		free_urecs(u, jr.n);
		sb_jread_free(&jr);
		x->run_dir = NULL;
		return r;
	}
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

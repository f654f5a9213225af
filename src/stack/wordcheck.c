/* Mistakes in a variant's free text found before the first variant runs,
 * not when that variant mounts after the others have run for minutes:
 * the kernel judges the mount options one by one in a file-system
 * context that is never mounted (mount.c), and mkfs judges its words in
 * its dry run on scratch files as large as the device (fs.c). What
 * cannot be judged here is said, not passed over. */
#include "stack/wordcheck.h"
#include "stack/layers.h"
#include "util/macro.h"
#include "stack/state.h"
#include "util/kmsg.h"
#include "util/log.h"
#include "util/size.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

static const void *step_args(const struct sb_plan *p, enum sb_step_kind k)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->steps[i].kind == k)
			return p->steps[i].args;
	return NULL;
}

/* Is dev "${name}"? */
static bool is_var(const char *dev, const char *name)
{
	size_t l = strlen(dev), n = strlen(name);
	return l == n + 3 && strncmp(dev, "${", 2) == 0 && strncmp(dev + 2, name, n) == 0 &&
	       dev[l - 1] == '}';
}

/* The size of the device "${var}" stands for: one of the plan's loop
 * devices, or one the caller sized (exact); else (a partition, an array,
 * an LV) the sum of all of them, which it cannot exceed, so that a dry run
 * never calls a device too small that is not (0 when none is known). */
static uint64_t dev_size(const struct sb_plan *p, const struct sb_wordcheck *w, const char *dev,
			 bool *exact)
{
	uint64_t sum = 0;
	*exact = true;
	for (size_t i = 0; i < p->n; i++) {
		const struct sb_loop_args *a = p->steps[i].args;
		if (p->steps[i].kind != SB_STEP_LOOP)
			continue;
		if (a->var && is_var(dev, a->var))
			return a->size;
		sum += a->size;
	}
	for (size_t i = 0; i < w->n_vars; i++) {
		if (is_var(dev, w->vars[i]))
			return w->sizes[i];
		sum += w->sizes[i];
	}
	*exact = false;
	return sum;
}

static int check_mount(const struct sb_mount_args *m, struct sb_wordcheck *w)
{
	_cleanup_free_ char *bad = NULL, *why = NULL;
	int r;

	if (!m || !m->options || !*m->options)
		return asprintf(&w->mount_note, "no mount options to check") < 0 ? -ENOMEM : 0;
	r = sb_mount_check_options(m->type, m->options, &bad, &why);
	if (r == -EINVAL) {
		/* An option a kernel removed (xfs's delaylog) is named as such. */
		_cleanup_free_ char *gone = sb_mount_removed_options(m->type, m->options);
		w->key = sb_mount_key_options();
		if (asprintf(&w->error, "mount option '%s' rejected by the kernel (%s)%s%s",
			     bad ? bad : m->options, why ? why : "invalid", gone ? "; " : "",
			     gone ? gone : "") < 0)
			return -ENOMEM;
		w->mount_note = strdup("mount options rejected by the kernel");
		return 1;
	}
	if (r == 1)
		return asprintf(&w->mount_note,
				"mount options '%s': generic ones only, known to libmount",
				m->options) < 0
			   ? -ENOMEM
			   : 0;
	if (r == 0)
		return asprintf(&w->mount_note,
				"mount options '%s' accepted (%s's own by the kernel, the generic "
				"ones by libmount)",
				m->options, m->type) < 0
			   ? -ENOMEM
			   : 0;
	return asprintf(&w->mount_note, "mount options '%s' NOT checked: %s", m->options,
			r == -EPERM    ? "the kernel judges them only for root (fsopen needs "
					 "CAP_SYS_ADMIN)"
			: r == -ENOSYS ? "this kernel has no fsopen"
			: r == -ENODEV ? "this kernel does not know the file system type"
				       : strerror(-r)) < 0
		   ? -ENOMEM
		   : 0;
}

static int check_mkfs(const struct sb_plan *p, const struct sb_mkfs_args *a, struct sb_wordcheck *w)
{
	size_t n = strcmp(a->type, "btrfs") == 0 ? a->devs.n : 1;
	char *files[16] = {0};
	_cleanup_free_ char *msg = NULL;
	char sz[32];
	bool exact = false;
	uint64_t bytes = 0;
	int r = 0;

	if (n > ARRAY_SIZE(files))
		n = ARRAY_SIZE(files);
	for (size_t i = 0; i < n && r == 0; i++) {
		bool ex;
		uint64_t b = dev_size(p, w, a->devs.v[i], &ex);
		_cleanup_close_ int fd = -1;
		bytes = i ? bytes : b;
		exact = i ? exact && ex : ex;
		if (!b)
			break;
		if (asprintf(&files[i], "%s/dev%zu.img", w->scratch, i) < 0) {
			files[i] = NULL;
			r = -ENOMEM;
			break;
		}
		fd = open(files[i], O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0 || ftruncate(fd, (off_t)b) < 0)
			r = negerrno();
	}
	sb_format_size(bytes, sz, sizeof(sz));
	if (!bytes)
		r = asprintf(&w->mkfs_note, "mkfs words NOT checked: the device's size is not "
					    "known before the run") < 0
			? -ENOMEM
			: 0;
	else if (r == 0)
		r = sb_mkfs_dry_run(a, (const char *const *)files, n, w->stop, &msg, NULL);
	if (bytes && r == -EINVAL) {
		_cleanup_free_ char *words = NULL;
		struct sb_vec v = {.v = a->opts.v, .n = a->opts.n};
		w->key = sb_fs_key(SB_FS_KEY_MKFS);
		words = a->opts.n ? sb_vec_format(&v) : NULL;
		if (asprintf(&w->error,
			     "mkfs.%s refuses %s%s%s on a device of %s%s (its dry run):\n    %s",
			     a->type, words ? "the words '" : "the file system", words ? words : "",
			     words ? "'" : "", sz, exact ? "" : " (the devices under it together)",
			     msg ? msg : "?") < 0)
			w->error = NULL;
		w->mkfs_note = strdup("mkfs words rejected");
		r = w->error ? 1 : -ENOMEM;
	} else if (bytes && r == 0) {
		const char *how = strcmp(a->type, "btrfs") == 0 ? "run on scratch files"
				  : strcmp(a->type, "xfs") == 0 ? "dry run (-N) on a scratch file"
								: "dry run (-n) on a scratch file";
		const char *size_note =
		    exact ? "" : " (the devices under it together: the real one is smaller)";

		r = asprintf(&w->mkfs_note, "mkfs words checked by mkfs.%s's %s at %s%s", a->type,
			     how, sz, size_note) < 0
			? -ENOMEM
			: 0;
	} else if (bytes && r != -EINTR) {
		r = asprintf(&w->mkfs_note, "mkfs words NOT checked: %s",
			     msg ? msg : strerror(-r)) < 0
			? -ENOMEM
			: 0;
	}
	for (size_t i = 0; i < n; i++) {
		if (files[i])
			unlink(files[i]);
		free(files[i]);
	}
	return r;
}

int sb_wordcheck_plan(const struct sb_plan *p, struct sb_wordcheck *w)
{
	const struct sb_mkfs_args *a = step_args(p, SB_STEP_MKFS);
	int r = check_mount(step_args(p, SB_STEP_MOUNT), w);
	if (r != 0)
		return r;
	if (!a)
		return 0;
	return check_mkfs(p, a, w);
}

void sb_wordcheck_release(struct sb_wordcheck *w)
{
	free(w->error);
	free(w->mount_note);
	free(w->mkfs_note);
	w->error = w->mount_note = w->mkfs_note = NULL;
}

static char *scratch_dir(void)
{
	const char *bases[] = {sb_state_dir(), "/var/tmp"};
	for (size_t i = 0; i < ARRAY_SIZE(bases); i++) {
		char *d = NULL;
		if (asprintf(&d, "%s/.wordcheck-XXXXXX", bases[i]) < 0)
			return NULL;
		if (mkdtemp(d))
			return d;
		free(d);
	}
	return NULL;
}

int sb_wordcheck_variants(const char *profile_path, const struct sb_pvariant *var,
			  const struct sb_plan *plans, size_t n, const char *const *vars,
			  const uint64_t *sizes, size_t n_vars, volatile sig_atomic_t *stop,
			  FILE *notes)
{
	_cleanup_free_ char *dir = scratch_dir();
	int r = 0;

	if (!dir)
		return negerrno();
	if (notes)
		fprintf(notes, "\nchecked before the first variant runs:\n");
	for (size_t i = 0; i < n && r == 0; i++) {
		struct sb_wordcheck w = {
		    .scratch = dir, .vars = vars, .sizes = sizes, .n_vars = n_vars, .stop = stop};
		r = sb_wordcheck_plan(&plans[i], &w);
		if (r == 1) {
			unsigned line = var[i].cfg.line[w.key];
			if (line)
				sb_error("%s:%u: variant %zu (%s): %s", profile_path, line, i + 1,
					 var[i].name, w.error);
			else
				sb_error("%s: variant %zu (%s): %s", profile_path, i + 1,
					 var[i].name, w.error);
		} else if (notes) {
			fprintf(notes, "  variant %zu: %s\n", i + 1,
				w.mount_note ? w.mount_note : "mount options not checked");
			fprintf(notes, "  variant %zu: %s\n", i + 1,
				w.mkfs_note ? w.mkfs_note : "no mkfs step");
		}
		sb_wordcheck_release(&w);
	}
	rmdir(dir);
	return r == 0 && stop && *stop ? -EINTR : r;
}

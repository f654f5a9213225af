/* The profile's values resolved once into a typed stack configuration:
 * levels and file systems as enums, sizes as numbers, role lists as bit
 * sets, mkfs words split. The plan reads only this, so that no level string
 * or "${" test is compared in several places. Pure. */
#include "profile/freetext.h"
#include "stack/stack.h"
#include "util/macro.h"
#include "util/size.h"

#include <stdarg.h>
#include <string.h>

const char *const sb_fs_names[SB_FS_N] = {
    [SB_FS_EXT2] = "ext2", [SB_FS_EXT3] = "ext3", [SB_FS_EXT4] = "ext4",
    [SB_FS_XFS] = "xfs",   [SB_FS_BTRFS] = "btrfs",
};

const char *const sb_precond_names[SB_PRECOND_N] = {
    [SB_PRECOND_NONE] = "none", [SB_PRECOND_TRIM] = "trim", [SB_PRECOND_STEADY] = "steady"};

static int cerr(char **err, int r, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int cerr(char **err, int r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (err && vasprintf(err, fmt, ap) < 0)
		*err = NULL;
	va_end(ap);
	return r;
}

static void split_words(const char *s, struct sb_list *out)
{
	_cleanup_free_ char *copy = s ? strdup(s) : NULL;
	char *save = NULL;
	if (!copy)
		return;
	for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
		sb_list_add(out, w);
}

/* mke2fs's extended options: the word that holds the value of an -E at word
 * i ("-E" "VALUE" or "-EVALUE"), else NULL. */
static char **ext_opt_slot(const struct sb_list *w, size_t i)
{
	if (!w->v[i])
		return NULL;
	if (strcmp(w->v[i], "-E") == 0)
		return i + 1 < w->n ? &w->v[i + 1] : NULL;
	if (strncmp(w->v[i], "-E", 2) == 0 && w->v[i][2])
		return &w->v[i];
	return NULL;
}

static const char *ext_opt_value(const struct sb_list *w, size_t i)
{
	char **slot = ext_opt_slot(w, i);
	return !slot ? NULL : slot == &w->v[i] ? *slot + 2 : *slot;
}

/* mke2fs takes only the last -E: opt is joined to it, or added as -E opt. */
static void ext_opt_add(struct sb_list *w, const char *opt)
{
	for (size_t i = w->v ? w->n : 0; i-- > 0;) {
		char **slot = ext_opt_slot(w, i), *n = NULL;
		if (!slot)
			continue;
		if (asprintf(&n, "%s,%s", *slot, opt) < 0)
			abort();
		free(*slot);
		*slot = n;
		return;
	}
	sb_list_add(w, "-E");
	sb_list_add(w, opt);
}

/* ext4's inode tables and journal are otherwise initialised in the
 * background after mount, writing while the first workload measures: make
 * mke2fs do it up front, unless the profile's own -E words say otherwise. */
static void ext4_no_lazy_init(struct sb_list *w)
{
	for (size_t i = 0; w->v && i < w->n; i++) {
		const char *v = ext_opt_value(w, i);
		if (v && (strstr(v, "lazy_itable_init") || strstr(v, "lazy_journal_init")))
			return;
	}
	ext_opt_add(w, "lazy_itable_init=0,lazy_journal_init=0");
}

/* A preconditioned device must reach the workload as the precondition left
 * it: mkfs would otherwise discard it all again (every mkfs here does by
 * default). xfs and btrfs take -K; mke2fs takes nodiscard inside its -E. A
 * profile that asks for discard explicitly contradicts the precondition:
 * refused. */
static int mkfs_no_discard(enum sb_fs_type t, struct sb_list *w, char **err)
{
	for (size_t i = 0; w->v && i < w->n; i++) {
		if (t > SB_FS_EXT4) {
			if (w->v[i] && (strcmp(w->v[i], "-K") == 0 || strcmp(w->v[i], "--nodiscard") == 0))
				return 0;
			continue;
		}
		const char *v = ext_opt_value(w, i);
		if (v && strstr(v, "nodiscard"))
			return 0;
		if (v && strstr(v, "discard"))
			return cerr(err, -EINVAL,
				    "fs.mkfs: '-E %s' discards the device again after "
				    "devices.precondition (drop the discard word)",
				    v);
	}
	if (t > SB_FS_EXT4)
		sb_list_add(w, "-K");
	else
		ext_opt_add(w, "nodiscard");
	return 0;
}

int sb_stack_cfg_resolve(const struct sb_config *c, struct sb_stack_cfg *s, char **err)
{
	const char *v;
	int r;

	*s = (struct sb_stack_cfg){0};
	if (err)
		*err = NULL;
	for (int k = 0; k < SB_ROLE_N; k++)
		s->dev.loop_size[k] = sb_cfg_u64(c, (enum sb_key_id)(K_DEV_LOOP_SSD + k));
	s->dev.loop_quick = sb_cfg_u64(c, K_DEV_LOOP_QUICK);
	s->dev.emulate_raid6 = strcmp(sb_cfg_str(c, K_DEV_LOOP_EMULATE), "raid6") == 0;
	s->dev.emulate_members = (unsigned)sb_cfg_u64(c, K_DEV_LOOP_EMULATE_MEMBERS);
	v = sb_cfg_str(c, K_DEV_PRECONDITION);
	for (int k = 0; v && k < SB_PRECOND_N; k++)
		if (strcmp(v, sb_precond_names[k]) == 0)
			s->dev.precond = (enum sb_precond)k;
	s->dev.precond_limit_ms = sb_cfg_u64(c, K_DEV_PRECONDITION_LIMIT);
	if (s->dev.emulate_raid6 && (s->dev.emulate_members < 4 || s->dev.emulate_members > 16))
		return cerr(err, -EINVAL, "devices.loop.emulate-members: %s",
			    "RAID6 emulation needs 4 to 16 members");

	v = sb_cfg_str(c, K_FS_TYPE);
	s->fs.type = SB_FS_N;
	for (int t = 0; v && t < SB_FS_N; t++)
		if (strcmp(sb_fs_names[t], v) == 0)
			s->fs.type = (enum sb_fs_type)t;
	if (s->fs.type == SB_FS_N) {
		sb_stack_cfg_free(s);
		return cerr(err, -EINVAL, "fs.type: '%s' is not a known file system", v ? v : "");
	}
	split_words(c->val[K_FS_MKFS], &s->fs.mkfs);
	/* The words against this file system's own mkfs (an option that
	 * takes a host path means another thing to each: -d, -r). */
	{
		char *why = NULL;
		if (sb_ft_check_words(sb_ft_mkfs_tool(v), (const char *const *)s->fs.mkfs.v,
				      s->fs.mkfs.n, NULL, &why) < 0) {
			sb_stack_cfg_free(s);
			r = cerr(err, -EINVAL, "fs.mkfs: %s", why ? why : "refused");
			free(why);
			return r;
		}
	}
	if (s->fs.type == SB_FS_EXT4)
		ext4_no_lazy_init(&s->fs.mkfs);
	if (s->dev.precond != SB_PRECOND_NONE) {
		r = mkfs_no_discard(s->fs.type, &s->fs.mkfs, err);
		if (r < 0) {
			sb_stack_cfg_free(s);
			return r;
		}
	}
	if (s->fs.type == SB_FS_BTRFS) {
		s->fs.data = c->val[K_FS_DATA];
		s->fs.metadata = c->val[K_FS_METADATA];
		v = sb_cfg_str(c, K_FS_DEVICES);
		s->fs.devices = strcmp(v, "all") == 0 ? 0 : (unsigned)sb_cfg_u64(c, K_FS_DEVICES);
	} else {
		s->fs.devices = 1;
	}
	{
		char *why = NULL;
		if (sb_sel_parse(sb_cfg_str(c, K_FS_ON), &s->fs.on, &why) < 0) {
			sb_stack_cfg_free(s);
			r = cerr(err, -EINVAL, "fs.on: %s", why ? why : "bad value");
			free(why);
			return r;
		}
	}
	s->fs.log = sb_cfg_log_role(c);
	s->mount_options = c->val[K_MOUNT_OPTIONS];
	s->queue.scheduler = c->val[K_QUEUE_SCHEDULER];
	if (c->val[K_QUEUE_READ_AHEAD]) {
		s->queue.read_ahead = true;
		s->queue.read_ahead_kb = sb_cfg_u64(c, K_QUEUE_READ_AHEAD);
	}
	return 0;
}

void sb_stack_cfg_free(struct sb_stack_cfg *s)
{
	sb_list_free(&s->fs.mkfs);
}

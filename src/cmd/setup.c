/* Shared by plan and run: options, the profile with its overrides and
 * variants, the named devices matched to roles and checked, the plans. */
#include "cmd/stack-cmd.h"
#include "result/floor.h"
#include "session/design.h"
#include "stack/devlock.h"
#include "stack/roles.h"
#include "stack/state.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/parse.h"
#include "util/safefile.h"
#include "util/size.h"
#include "util/strutil.h"
#include "workload/cpulist.h"
#include "workload/workload.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

void sb_ctx_free(struct ctx *c)
{
	for (size_t i = 0; c->plans && i < c->n_var; i++)
		sb_plan_free(&c->plans[i]);
	free(c->plans);
	free(c->dev);
	sb_probe_free(c->probe);
	free(c->slots);
	sb_pvariants_free(c->var, c->n_var);
	sb_profile_free(c->prof);
	free(c->profile_path);
	free(c->o.ov);
	json_object_put(c->floor);
	free(c->floor_path);
}

static int load_profile(struct ctx *c, const char *arg)
{
	char *err = NULL;
	int r;

	c->profile_path = sb_profile_find(arg);
	if (!c->profile_path) {
		sb_error("%s: no such profile (looked in %s; see 'stackbench list profiles')", arg,
			 sb_profile_dirs_text());
		return SB_EXIT_USAGE;
	}
	/* run follows the profile as root: one that others can write is not
	 * the user's word. */
	if (strcmp(c->o.cmd, "run") == 0 && sb_file_trusted(c->profile_path, false) == -EACCES) {
		sb_error("%s: refusing: writable by group or others (chmod go-w it)",
			 c->profile_path);
		return SB_EXIT_USAGE;
	}
	r = sb_profile_load(c->profile_path, &c->prof, &err);
	for (size_t i = 0; r == 0 && i < c->o.n_ov; i++)
		r = sb_profile_override(c->prof, c->o.ov[i], &err);
	if (r == 0)
		r = sb_profile_variants(c->prof, &c->var, &c->n_var, &err);
	if (r < 0) {
		if (err)
			sb_error("%s", err);
		else
			sb_error_errno(r, "%s", c->profile_path);
		free(err);
		return SB_EXIT_USAGE;
	}
	r = sb_plan_slots(&c->var[0].cfg, &c->slots, &c->n_slots);
	return r < 0 ? SB_EXIT_FAILED : 0;
}

char *sb_describe_dev(const struct sb_device *d)
{
	char sz[16], *s = NULL;
	if (asprintf(&s, "%s (%s%s%s, serial %s, %s, %s%s)", d->path, d->vendor ? d->vendor : "",
		     d->vendor ? " " : "", d->model ? d->model : "unknown model",
		     d->serial ? d->serial : "unknown", sb_format_size(d->size, sz, sizeof(sz)),
		     sb_class_name(d->cls),
		     /* a loop device plays the role its flag says */
		     d->cls == SB_CLASS_LOOP || d->cls == SB_CLASS_VIRTUAL
			 ? (d->rotational ? ", rotational" : ", non-rotational")
			 : "") < 0)
		return NULL;
	return s;
}

static const char *same_disk_why(const struct sb_device *a, const struct sb_device *b)
{
	if (a->major == b->major && a->minor == b->minor)
		return "the same device";
	if ((a->parent && strcmp(a->parent, b->name) == 0) ||
	    (b->parent && strcmp(b->parent, a->name) == 0))
		return "a disk and its own partition";
	if (a->serial && b->serial && strcmp(a->serial, b->serial) == 0)
		return "the same disk (same serial)";
	if ((a->has_lower && a->lower_major == b->major && a->lower_minor == b->minor) ||
	    (b->has_lower && b->lower_major == a->major && b->lower_minor == a->minor))
		return "a loop device over the other";
	if (a->has_lower && b->has_lower)
		return "a loop device over the same device";
	return "the same backing file";
}

/* Is l (or, for a partition, its disk) held O_EXCL by another program?
 * -EBUSY with *what the node found held, else 0. A partition without a
 * node (no udev) is judged by its disk. */
static int held_excl(const struct sb_device *l, char *whole, size_t len, const char **what)
{
	int r = -ENOENT;

	*what = l->path;
	if (l->has_node || !l->is_partition)
		r = sb_devlock_excl_open(l->path, NULL, NULL);
	if (r != -EBUSY && l->is_partition && l->parent) {
		snprintf(whole, len, "/dev/%s", l->parent);
		if (access(whole, F_OK) == 0 &&
		    (r = sb_devlock_excl_open(whole, NULL, NULL)) == -EBUSY)
			*what = whole;
	}
	return r == -EBUSY ? r : 0;
}

/* Adds the refusal the probe cannot know: another program holds d (or, for
 * a partition, its disk) open O_EXCL, or, for a loop device over a block
 * device, anything beneath it (a claim does not show through the loop).
 * Skipped when the verdict already has the claim's cause (a mount,
 * holders, swap, a partition in use, here or beneath). */
static int check_exclusive(struct sb_device *d, const struct sb_probe *all)
{
	const unsigned claimed = SB_REFUSE_MOUNTED | SB_REFUSE_HOLDERS | SB_REFUSE_SWAP |
				 SB_REFUSE_PARTITIONS | SB_REFUSE_DISK;
	const struct sb_device *l = d;
	_cleanup_free_ char *h = NULL, *s = NULL, *below = NULL;
	char whole[300];
	const char *what = NULL;
	int r = 0;

	if ((d->refuse & claimed) || geteuid() != 0)
		return 0;
	for (int depth = 0; l && depth < 8; depth++, l = sb_device_lower(l, all))
		if ((r = held_excl(l, whole, sizeof(whole), &what)) == -EBUSY)
			break;
	if (r != -EBUSY)
		return 0;
	h = sb_devlock_holders(what);
	if ((l != d && asprintf(&below, "its backing device %s: ", l->path) < 0) ||
	    asprintf(&s, "%s%s%s is held open exclusively by %s", below ? below : "",
		     what == l->path ? "" : "its disk ", what == l->path ? "it" : what,
		     h ? h : "another program (holder not found)") < 0)
		return -ENOMEM;
	return sb_device_refuse(d, SB_REFUSE_EXCL, s);
}

/* The smallest device each file system's mkfs accepts (measured with
 * Debian 12's xfsprogs 6.1 and btrfs-progs 6.2: 299M and 100M are
 * refused); the others fit in SB_DEVICE_MIN_BYTES. */
static const struct {
	const char *fs;
	uint64_t min;
} fs_min[] = {
    {"xfs", 300ull << 20},
    {"btrfs", 109ull << 20},
};

/* The stack is below its minimum when the largest file system any variant
 * makes cannot fit in all of its devices together (a device of one slot
 * must hold it alone; several may share it, as a stripe, or hold one part,
 * as a log device, so only their sum is known to be too small). Found
 * here, before the first variant, not by mkfs after the others ran. */
static int check_size(struct ctx *c, struct sb_device **dev)
{
	const char *what = NULL;
	uint64_t need = 0, total = 0;
	char a[16], b[16];

	for (size_t i = 0; i < c->n_var; i++)
		for (size_t k = 0; k < ARRAY_SIZE(fs_min); k++)
			if (strcmp(sb_fs_type_name(&c->var[i].cfg), fs_min[k].fs) == 0 &&
			    fs_min[k].min > need) {
				need = fs_min[k].min;
				what = fs_min[k].fs;
			}
	for (size_t k = 0; k < c->n_slots; k++) {
		if (dev[k]->refuse & SB_REFUSE_SMALL) /* empty: said once */
			return 0;
		total += dev[k]->size;
	}
	if (!what || total >= need)
		return 0;
	if (c->n_slots == 1)
		return sb_device_refuse_small(dev[0], need, what) < 0 ? -ENOMEM : 0;
	for (size_t k = 0; k < c->n_slots; k++) {
		_cleanup_free_ char *s = NULL;
		if (asprintf(&s,
			     "too small: the %zu devices hold %s together, %s needs at least %s",
			     c->n_slots, sb_format_size(total, a, sizeof(a)), what,
			     sb_format_size(need, b, sizeof(b))) < 0 ||
		    sb_device_refuse(dev[k], SB_REFUSE_SMALL, s) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* Every reason for every device, then one verdict. */
static int check_devices(struct ctx *c, struct sb_device **dev, const struct sb_probe *all,
			 bool enforce)
{
	int refused = 0;

	if (check_size(c, dev) < 0)
		return SB_EXIT_FAILED;
	for (size_t k = 0; k < c->n_slots; k++) {
		struct sb_device *d = dev[k];
		if (check_exclusive(d, all) < 0)
			return SB_EXIT_FAILED;
		for (size_t i = 0; d->reasons && d->reasons[i]; i++) {
			if (c->o.wipe && d->reason_bits[i] == SB_REFUSE_SIGNATURES)
				continue;
			if (enforce)
				sb_error("%s: refusing: %s", d->path, d->reasons[i]);
			else
				sb_warn("%s: run would refuse it: %s", d->path, d->reasons[i]);
			refused++;
		}
		if (d->refuse == SB_REFUSE_SIGNATURES && !c->o.wipe && enforce)
			sb_info("%s: --wipe accepts a device whose signatures may be destroyed",
				d->path);
	}
	return refused && enforce ? SB_EXIT_REFUSED : 0;
}

int sb_ctx_recheck(struct ctx *c)
{
	const char *names[SB_DEVLOCK_MAX];
	struct sb_device *now[SB_DEVLOCK_MAX];
	struct sb_probe *p = NULL;
	size_t n = 0;
	int r;

	if (!c->dev)
		return 0;
	for (size_t k = 0; k < c->n_slots && n + 1 < SB_DEVLOCK_MAX; k++)
		names[n++] = c->dev[k]->path;
	names[n] = NULL;
	r = sb_probe_scan(names, &p, NULL);
	if (r < 0) {
		sb_error_errno(r, "re-probe before the first write");
		return r == -ENODEV ? SB_EXIT_REFUSED : SB_EXIT_FAILED;
	}
	for (size_t k = 0; k < c->n_slots; k++) {
		const struct sb_device *was = c->dev[k];
		now[k] = sb_probe_find(p, was->path);
		/* Replaced during the confirmation (a re-plugged disk under the
		 * same name, another file behind the loop device)? */
		if (!now[k] || now[k]->major != was->major || now[k]->minor != was->minor ||
		    now[k]->size != was->size || (was->serial && !now[k]->serial) ||
		    (was->serial && strcmp(was->serial, now[k]->serial) != 0) ||
		    now[k]->backing_ino != was->backing_ino ||
		    now[k]->backing_dev != was->backing_dev ||
		    now[k]->has_lower != was->has_lower ||
		    now[k]->lower_major != was->lower_major ||
		    now[k]->lower_minor != was->lower_minor) {
			sb_error("%s: refusing: not the device that was checked and confirmed "
				 "(it changed since)",
				 was->path);
			sb_probe_free(p);
			return SB_EXIT_REFUSED;
		}
	}
	r = check_devices(c, now, p, true);
	sb_probe_free(p);
	return r;
}

/* devices.precondition = trim on a device that cannot discard would fail
 * mid-run, after the stack below it was built: refused here instead, with
 * the other verdicts (plan only warns). steady writes such a device
 * without the discard. */
static int check_discard(struct ctx *c, bool enforce)
{
	int refused = 0;
	for (size_t k = 0; k < c->n_slots; k++) {
		const struct sb_device *d = c->dev[k];
		/* the plan leaves HDD-role devices alone (stack/plan.c) */
		for (size_t i = 0; i < c->n_var && !d->discard && c->slots[k].role != SB_ROLE_HDD;
		     i++) {
			if (strcmp(sb_precond_mode(&c->var[i].cfg), "trim") != 0)
				continue;
			if (enforce)
				sb_error(
				    "%s: refusing: devices.precondition = trim (variant %s) needs "
				    "discard, which the device does not support "
				    "(queue/discard_max_bytes is 0)",
				    d->path, c->var[i].name);
			else
				sb_warn(
				    "%s: run would refuse it: devices.precondition = trim needs "
				    "discard, which the device does not support",
				    d->path);
			refused++;
			break;
		}
	}
	return refused && enforce ? SB_EXIT_REFUSED : 0;
}

/* Probe the named devices, match them to roles and check each one. Returns
 * 0, or the exit code after saying why. */
static int resolve_devices(struct ctx *c, bool enforce)
{
	_cleanup_free_ char *copy = strdup(c->o.devices);
	const char *names[65];
	struct sb_device *devs[65];
	size_t nd = 0, assign[65];
	const char *missing = NULL;
	char *save = NULL, *why = NULL;
	int r;

	if (!copy)
		return SB_EXIT_FAILED;
	for (char *w = strtok_r(copy, ",", &save); w && nd < 64; w = strtok_r(NULL, ",", &save))
		names[nd++] = w;
	names[nd] = NULL;
	if (nd == 0)
		return sb_usage_error(c->o.cmd,
				      "--devices: expected device paths such as /dev/sdb,/dev/sdc");
	r = sb_probe_scan(names, &c->probe, &missing);
	if (r == -ENODEV) {
		sb_error("%s: no such block device", missing ? missing : "?");
		return SB_EXIT_USAGE;
	}
	if (r < 0) {
		sb_error_errno(r, "probe");
		return SB_EXIT_FAILED;
	}
	for (size_t i = 0; i < nd; i++) {
		devs[i] = sb_probe_find(c->probe, names[i]);
		if (!devs[i]) {
			sb_error("%s: no such block device", names[i]);
			return SB_EXIT_USAGE;
		}
	}
	/* One disk under two names (the same node twice, a symlink, multipath,
	 * the same file behind two loop devices) would be written twice over. */
	for (size_t i = 0; i < nd; i++)
		for (size_t k = 0; k < i; k++)
			if (sb_device_same_disk(devs[k], devs[i])) {
				sb_error("%s: refusing: named twice in --devices (%s is %s)",
					 names[i], names[k], same_disk_why(devs[k], devs[i]));
				return SB_EXIT_REFUSED;
			}
	r = sb_match_roles(c->slots, c->n_slots, devs, nd, assign, &why);
	if (r < 0) {
		sb_error("%s: refusing: %s", c->prof->name, why ? why : "roles do not match");
		free(why);
		return SB_EXIT_REFUSED;
	}
	c->dev = calloc(c->n_slots, sizeof(*c->dev));
	if (!c->dev)
		return SB_EXIT_FAILED;
	for (size_t k = 0; k < c->n_slots; k++)
		c->dev[k] = devs[assign[k]];
	for (size_t i = 0; i < nd; i++) {
		bool used = false;
		for (size_t k = 0; k < c->n_slots; k++)
			used |= c->dev[k] == devs[i];
		if (!used)
			sb_warn("%s: not needed by the profile, left alone", devs[i]->path);
	}
	r = check_devices(c, c->dev, c->probe, enforce);
	return r ? r : check_discard(c, enforce);
}

static int build_plans(struct ctx *c, bool keep_images)
{
	const char *paths[65];
	c->plans = calloc(c->n_var, sizeof(*c->plans));
	if (!c->plans)
		return SB_EXIT_FAILED;
	for (size_t k = 0; k < c->n_slots && c->dev; k++)
		paths[k] = c->dev[k]->path;
	for (size_t i = 0; i < c->n_var; i++) {
		struct sb_plan_in in = {.loop = c->o.loop,
					.quick = c->o.quick,
					.loop_dir = c->o.loop_dir,
					.loop_dir_forced = c->o.loop_dir != NULL,
					.cap_bytes = c->o.cap_cache ? c->o.ram : 0,
					.keep_images = keep_images};
		char *err = NULL;
		int r;
		if (!c->o.loop) {
			in.devs = paths;
			in.n_devs = c->n_slots;
		}
		for (size_t w = 0; c->o.loop && w < c->var[i].cfg.n_workloads; w++) {
			uint64_t b = sb_workload_data_bytes(c->var[i].cfg.workloads[w], c->o.quick,
							    c->o.ram);
			in.data_bytes = b > in.data_bytes ? b : in.data_bytes;
		}
		/* A cap below the workloads' own buffers would OOM-kill them: said
		 * now, before anything is built. */
		if (c->o.cap_cache &&
		    sb_workload_check_cap(c->var[i].cfg.workloads, c->var[i].cfg.n_workloads,
					  c->o.quick, c->o.ram, &err) < 0) {
			sb_error("%s: %s", c->prof->path, err ? err : "--cap-cache: too small");
			free(err);
			return SB_EXIT_USAGE;
		}
		r = sb_plan_build(&c->var[i].cfg, &in, &c->plans[i], &err);
		if (r < 0) {
			sb_error("%s: %s", c->prof->path, err ? err : strerror(-r));
			free(err);
			return SB_EXIT_USAGE;
		}
	}
	return 0;
}

void sb_ctx_set_device_vars(struct ctx *c, struct sb_exec *x)
{
	for (size_t k = 0; k < c->n_slots; k++)
		if (c->dev)
			sb_exec_set_var(x, c->slots[k].name, c->dev[k]->path);
}

/* Side by side with --seed: the first crossover cycle as run would draw
 * it, round by round: which variant each stack gets, and the order of the
 * turns of the first steps (the phases, in turn). */
static void print_cycle(const struct ctx *c, FILE *out)
{
	size_t k = c->n_var, order[SB_DESIGN_MAX_K];

	if (!c->o.has_seed || k > SB_DESIGN_MAX_K) {
		fprintf(out,
			"  (the stacks of each round and the order of turns are drawn from the "
			"seed: plan --seed N shows those of run --seed N)\n");
		return;
	}
	for (unsigned r = 0; r < k; r++) {
		fprintf(out, "  round %u:", r + 1);
		for (size_t s = 0; s < k; s++)
			fprintf(out, "%s stack %zu <- %s", s ? "," : "", s,
				c->var[sb_design_variant(k, c->o.seed, r, s)].name);
		fprintf(out, "; turns");
		for (unsigned step = 0; step < sb_design_rows(k) && step < 4; step++) {
			sb_design_order(k, c->o.seed, r, step, order);
			fputs(step ? " |" : "", out);
			for (size_t p = 0; p < k; p++)
				fprintf(out, " %zu", sb_design_stack(k, c->o.seed, r, order[p]));
		}
		fprintf(out, " ... (stacks, phase by phase, then again)\n");
	}
}

void sb_ctx_print_plans(struct ctx *c, FILE *out)
{
	fprintf(out, "profile %s (%s): %zu variant%s\n", c->prof->name, c->prof->path, c->n_var,
		c->n_var == 1 ? "" : "s");
	for (size_t k = 0; k < c->n_slots; k++) {
		if (c->dev) {
			_cleanup_free_ char *d = sb_describe_dev(c->dev[k]);
			fprintf(out, "  %-6s %s\n", c->slots[k].name, d ? d : c->dev[k]->path);
		} else if (c->o.loop) {
			fprintf(out, "  %-6s loop device (%s)\n", c->slots[k].name,
				c->slots[k].role == SB_ROLE_HDD ? "rotational" : "non-rotational");
		} else {
			fprintf(out, "  %-6s a %s device (give --devices or --loop)\n",
				c->slots[k].name, sb_role_names[c->slots[k].role]);
		}
	}
	for (size_t i = 0; i < c->prof->n_dropped; i++)
		fprintf(out, "left out: %s\n", c->prof->dropped[i]);
	if (c->side) {
		fprintf(
		    out,
		    "side by side: %zu stacks built at once, each on images of its own, "
		    "allocated in full and kept from round to round (mkfs without discard, so "
		    "that their placement stays); every "
		    "phase runs on each stack in turn (%s order, drawn per round from the seed); "
		    "the variants change stacks from round to round (a full cycle: %zu rounds)\n",
		    c->n_var, c->n_var == 2 ? "ABBA" : "Williams", c->n_var);
		if (c->o.turn_ms)
			fprintf(
			    out,
			    "millisecond turns: a phase every stack can run so (random I/O "
			    "with O_DIRECT, one thread, not paced; io_uring drains at each turn's "
			    "end) runs on all of them at once, in "
			    "alternating turns of about %" PRIu64 " ms (0.5 to 1.5 times, drawn "
			    "from the seed); the others whole\n",
			    c->o.turn_ms);
	} else if (c->layout_why)
		fprintf(out, "rounds: one variant's stack at a time (%s)\n", c->layout_why);
	if (c->floor) {
		json_object *rows = json_object_object_get(c->floor, "rows");
		size_t n = 0;
		fputs("round floor (the host's A/A calibration, recorded with the schedule): ",
		      out);
		json_object_object_foreach(rows, label, v)
		{
			(void)v;
			fprintf(out, "%s%s %g%%", n++ ? ", " : "", label,
				sb_floor_pct(c->floor, label));
		}
		fprintf(out, " (%s)\n", c->floor_path);
	}
	if (c->switched)
		fprintf(
		    out,
		    "one stack, switched: the variants differ only in what a built stack can "
		    "change (mount options, md's write-mostly and write-behind); each round "
		    "builds one stack, runs every workload for every variant in turn (%s order), "
		    "and switches between turns (the file system mounted again with the turn's "
		    "options, md's member flags and backlog set through sysfs)\n",
		    c->n_var == 2 ? "ABBA" : "Williams");
	if (c->side)
		print_cycle(c, out);
	for (size_t i = 0; i < c->n_var; i++) {
		struct sb_exec x;
		sb_exec_init(&x);
		x.dry_run = true;
		x.out = out;
		sb_ctx_set_device_vars(c, &x);
		fprintf(out, "\nvariant %zu/%zu: %s\n", i + 1, c->n_var, c->var[i].name);
		sb_exec_plan(&x, &c->plans[i]);
		for (size_t w = 0; w < c->var[i].cfg.n_workloads; w++)
			fprintf(out, "      %-13s %s\n", "workload", c->var[i].cfg.workloads[w]);
		fprintf(out, "      %-13s undo steps %zu..1\n", "teardown", c->plans[i].n);
		sb_exec_release(&x);
	}
}

/* What can change on a built stack between turns: the mount options (by
 * unmounting and mounting again) and md's write-mostly flags and
 * write-behind limit (md's sysfs). */
static const char *const switch_keys[] = {"mount.options", "md.write-mostly", "md.write-behind"};

/* Do the variants differ only in what can be switched? */
static bool switchable(const struct ctx *c)
{
	json_object *first = sb_config_to_json(&c->var[0].cfg);
	bool same = true;

	for (size_t k = 0; k < ARRAY_SIZE(switch_keys); k++)
		json_object_object_del(first, switch_keys[k]);
	for (size_t i = 1; i < c->n_var && same; i++) {
		json_object *o = sb_config_to_json(&c->var[i].cfg);
		for (size_t k = 0; k < ARRAY_SIZE(switch_keys); k++)
			json_object_object_del(o, switch_keys[k]);
		same = json_object_equal(first, o);
		json_object_put(o);
	}
	json_object_put(first);
	return same;
}

/* Side by side where every variant can have a stack of its own (loop
 * devices: images are cheap) and nothing needs a variant alone (a degraded
 * or rebuilding array); rounds otherwise, with the reason the plan and
 * result.json give. An integrity check runs after the turns: on each
 * stack side by side, once on the one stack switched. */
static void decide_layout(struct ctx *c)
{
	c->side = false;
	c->layout_why = NULL;
	if (c->n_var < 2)
		return;
	if (c->o.rounds) {
		c->layout_why = "--rounds";
		return;
	}
	for (size_t i = 0; i < c->n_var; i++) {
		bool alone = false;
		for (size_t k = 0; k < c->plans[i].n; k++)
			alone |= c->plans[i].steps[k].kind == SB_STEP_SCEN;
		if (alone) {
			c->layout_why = "a degraded or rebuilding array takes a variant alone";
			return;
		}
	}
	if (c->o.loop) {
		c->side = true;
		c->o.turn_ms = c->o.turn_set ? c->o.turn_ms : SB_TURN_MS;
		return;
	}
	if (switchable(c)) {
		c->switched = true;
		return;
	}
	c->layout_why = "the variants share the real devices and differ in more than mount "
			"options and md's write-mostly and write-behind: one stack at a time";
}

/* The host's round floor (result/floor.h), read where the variants run
 * side by side or switched, before anything is built: one that is there
 * but not valid is refused (exit 2), named with what was expected; none
 * is no floor. */
static int read_floor(struct ctx *c)
{
	_cleanup_free_ char *path = sb_asprintf("%s/%s", sb_state_dir(), SB_FLOOR_FILE);
	_cleanup_free_ char *err = NULL;
	if (!path)
		return SB_EXIT_FAILED;
	int r = sb_floor_read(path, &c->floor, &err);
	if (r == -ENOENT)
		return 0;
	if (r == -EACCES) { /* plan by a user who cannot read the state directory */
		sb_warn("%s: not readable here: the run's round floor is not shown", path);
		return 0;
	}
	if (r < 0) {
		sb_error("%s (the host's round floor: bench/aa-calibration.py --save writes it)",
			 err ? err : strerror(-r));
		return SB_EXIT_USAGE;
	}
	c->floor_path = TAKE_PTR(path);
	return 0;
}

/* path made absolute and free of symlinks as far as it exists, the rest
 * appended as written (two spellings of one directory compare equal);
 * the part that exists in exist. */
static void resolve_near(const char *path, char *out, char *exist, size_t len)
{
	char p[2 * PATH_MAX + 2], cwd[PATH_MAX];
	size_t cut;

	if (*path == '/')
		snprintf(p, sizeof(p), "%s", path);
	else if (getcwd(cwd, sizeof(cwd)))
		snprintf(p, sizeof(p), "%s/%s", cwd, path);
	else
		snprintf(p, sizeof(p), "/%s", path); /* unreachable cwd: as good a guess */
	for (cut = strlen(p);; cut = (size_t)((char *)memrchr(p, '/', cut) - p)) {
		char keep = p[cut];
		p[cut] = '\0';
		bool ok = realpath(*p ? p : "/", exist) != NULL;
		p[cut] = keep;
		if (ok || cut == 0) {
			if (!ok)
				snprintf(exist, len, "/");
			snprintf(out, len, "%s%s", strcmp(exist, "/") == 0 ? "" : exist, p + cut);
			if (!*out)
				snprintf(out, len, "/");
			return;
		}
	}
}

static bool dir_within(const char *a, const char *b)
{
	size_t n = strlen(b);
	return strncmp(a, b, n) == 0 && (a[n] == '/' || a[n] == '\0' || (n == 1 && *b == '/'));
}

/* --loop: the loop directory apart from the state directory (images
 * inside a run's own tree leave a directory that refers to itself, and
 * every later teardown --all fails on it), and room in it for the
 * largest variant's images when full (sparse files fill as the workloads
 * write: /var/tmp is often the disk holding /). Plan warns of the room. */
static int check_loop_dir(struct ctx *c, bool enforce)
{
	char dir[PATH_MAX] = "", ld[PATH_MAX], sd[PATH_MAX], near[PATH_MAX], a[16], b[16];
	uint64_t need = 0, avail;
	size_t worst = 0;
	struct statvfs sv;

	for (size_t i = 0; i < c->n_var; i++) {
		uint64_t n = sb_loop_plan_bytes(&c->plans[i], dir, sizeof(dir));
		if (c->side)
			need += n;
		else if (n > need) {
			need = n;
			worst = i;
		}
	}
	if (!need || !*dir)
		return 0;
	resolve_near(sb_state_dir(), sd, near, sizeof(sd));
	resolve_near(dir, ld, near, sizeof(ld));
	if (dir_within(ld, sd) || dir_within(sd, ld)) {
		const char *how = strcmp(ld, sd) == 0  ? ""
				  : dir_within(ld, sd) ? "inside "
						       : "above ";
		sb_error("%s: refusing it as the loop directory: it is %sthe state directory %s "
			 "(give --loop-dir a directory apart from it)",
			 dir, how, sb_state_dir());
		return SB_EXIT_USAGE;
	}
	/* the nearest existing directory: the loop directory is made later */
	if (statvfs(near, &sv) < 0)
		return 0; /* the loop step says why it cannot make it */
	avail = (uint64_t)sv.f_bavail * sv.f_frsize;
	if (need <= avail)
		return 0;
	sb_format_size(avail, a, sizeof(a));
	sb_format_size(need, b, sizeof(b));
	char whose[300];
	if (c->side)
		snprintf(whose, sizeof(whose), "all %zu variants side by side", c->n_var);
	else
		snprintf(whose, sizeof(whose), "variant %s", c->var[worst].name);
	if (!enforce) {
		sb_warn("%s: run would refuse it: %s free, the loop images of %s need up to %s",
			dir, a, whose, b);
		return 0;
	}
	sb_error("%s: refusing: %s free (%" PRIu64 " bytes), the loop images of %s need up to %s "
		 "(%" PRIu64 " bytes) as they fill; give --loop-dir DIR on a larger file system, "
		 "or --ram or --quick for smaller images%s",
		 dir, a, avail, whose, b, need,
		 c->side ? ", or --rounds (one variant's stack at a time)" : "");
	return SB_EXIT_REFUSED;
}

int sb_ctx_setup(struct ctx *c, const struct sb_cmdline *cl, int argc, char **argv, bool enforce)
{
	char **rest;
	int n, r;

	r = sb_opt_parse(cl, argc, argv, &rest, &n);
	if (r)
		return r < 0 ? -1 : r;
	if (n != 1)
		return sb_usage_error(
		    c->o.cmd,
		    n ? "expected one PROFILE, got %d arguments"
		      : "expected a PROFILE (a file or a name from 'stackbench list profiles')",
		    n);
	if (c->o.loop && c->o.devices)
		return sb_usage_error(c->o.cmd, "give either --devices or --loop, not both");
	r = load_profile(c, rest[0]);
	if (r)
		return r;
	if (c->o.devices) {
		r = resolve_devices(c, enforce);
		if (r)
			return r;
	}
	r = build_plans(c, false);
	if (r == 0)
		decide_layout(c);
	/* Side by side keeps each stack's images from round to round: planned
	 * again so (mkfs without discard). */
	if (r == 0 && c->side) {
		for (size_t i = 0; i < c->n_var; i++)
			sb_plan_free(&c->plans[i]);
		free(c->plans);
		c->plans = NULL;
		r = build_plans(c, true);
	}
	if (r == 0 && (c->side || c->switched))
		r = read_floor(c);
	return r || !c->o.loop ? r : check_loop_dir(c, enforce);
}

/* `stackbench run`: check, confirm, lock, then build, measure and tear down
 * every variant (src/session/variant.c) and write the result set. */
#include "cmd/stack-cmd.h"
#include "history/history.h"
#include "report/report.h"
#include "result/result.h"
#include "stack/answers.h"
#include "stack/devlock.h"
#include "stack/state.h"
#include "session/design.h"
#include "session/side.h"
#include "session/variant.h"
#include "workload/progress.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/safefile.h"
#include "util/sha256.h"
#include "util/spawn.h"

#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const struct sb_opt run_opts[] = {
    OPT_DEVICES_ROW,
    OPT_LOOP_ROW,
    OPT_LOOP_DIR_ROW,
    OPT_O_ROW,
    OPT_QUICK_ROW,
    OPT_WIPE_ROW,
    OPT_ROUNDS_ROW,
    {"budget", OPT_BUDGET, "DURATION",
     "spend up to this long (90s, 10m, 1h) in whole rounds (side by side: whole crossover "
     "cycles), stopping sooner once every headline row is resolved; then the verdict as it "
     "stands, and the rounds and time that would resolve the rest (implies --repeat auto "
     "unless --repeat is given)"},
    OPT_TURN_ROW,
    {"yes", OPT_YES, NULL, "do not ask before destroying the devices' contents"},
    {"results", OPT_RESULTS, "DIR", "write result.json, run.log and plan.txt here"},
    {"repeat", OPT_REPEAT, "N|auto[:MAX]",
     "run every variant N times, interleaved in an order shuffled per round (B A C, A C B); "
     "auto: whole rounds until every headline row is resolved against the baseline on the "
     "paired rounds (marked, or equal within +-5%), 3 rounds at least, MAX (default 10) at "
     "most; says which, row by row"},
    {"seed", OPT_SEED, "N", "seed of the repeats' shuffled order (recorded in result.json)"},
    {"ram", OPT_RAM, "SIZE",
     "size data sets from this RAM figure, not the machine's (the same test on every host "
     "of a fleet)"},
    {"fail-fast", OPT_FAIL_FAST, NULL,
     "stop at the first variant that fails (by default the others go on, and the failed "
     "one is recorded as failed)"},
    {"cap-cache", OPT_CAP_CACHE, NULL,
     "with --ram: run each workload in a memory cgroup limited to that size, so the page "
     "cache holds no more than such a machine's would (a data set of twice --ram is then "
     "read from the device)"},
    SB_HISTORY_REC_OPTS,
    {"cpus", OPT_CPUS, "LIST",
     "pin the workloads' threads to these CPUs (taskset's list: 0-3,6 or 0-7:2); recorded per "
     "phase"},
    {0},
};

static struct sb_history_rec g_hist; /* --db, --no-db, --label */
static bool g_fail_fast;

static int run_on_opt(int key, const char *arg, void *ud)
{
	int r;
	if (sb_history_rec_opt(&g_hist, "run", key, arg, &r))
		return r;
	if (key != OPT_FAIL_FAST)
		return sb_cmd_on_opt(key, arg, ud);
	g_fail_fast = true;
	return 0;
}

/* Does a variant's exit code end the run? An interruption, a safety
 * refusal and a failed teardown (its journal is kept: what is left must
 * not be built over) always do; a failed step or workload only with
 * --fail-fast (the variant was torn down and is recorded as failed; the
 * others go on). */
static bool ends_run(int code, bool left_behind)
{
	return code && (code != SB_EXIT_FAILED || g_fail_fast || left_behind);
}

/* A variant that failed once is not run again (--repeat): the failure is
 * its result. */
static bool has_failed(const struct sb_variant *v)
{
	for (size_t k = 0; k < v->n_rep; k++)
		if (v->rep[k].failed)
			return true;
	return false;
}

/* The side-by-side part of the schedule: its design, then each round's
 * stacks and every turn (side.c). */
static json_object *side_schedule(const struct ctx *c, json_object *sched)
{
	json_object *o = json_object_new_object();
	json_object_object_add(o, "stacks", json_object_new_int(c->switched ? 1 : (int)c->n_var));
	json_object_object_add(o, "order",
			       json_object_new_string(c->n_var == 2 ? "abba" : "williams"));
	json_object_object_add(o, "crossover", json_object_new_boolean(!c->switched));
	if (c->o.turn_ms && !c->switched) {
		json_object_object_add(o, "turn_ms", json_object_new_int64((int64_t)c->o.turn_ms));
		json_object_object_add(o, "whole", json_object_new_array());
	}
	if (c->switched)
		json_object_object_add(o, "switched", json_object_new_string("mount.options"));
	json_object_object_add(o, "assignments", json_object_new_array());
	json_object_object_add(o, "turns", json_object_new_array());
	if (c->floor)
		json_object_object_add(o, "round_floor", json_object_get(c->floor));
	json_object_object_add(sched, "side_by_side", o);
	return o;
}

/* Round rep side by side, when two variants at least are left (the
 * others failed): true when it ran, with *code set as run_rounds does. */
static bool side_round(struct ctx *c, struct sb_resultset *set, struct sb_vrun *vr,
		       json_object *side, unsigned rep, uint64_t seed, uint64_t t0,
		       json_object *round, int *failed, int *code)
{
	size_t active[c->n_var], n = 0;
	json_object *assign, *turns, *a, *whole = NULL;
	const char *roles[c->n_slots + 1];

	for (size_t k = 0; k < c->n_slots; k++)
		roles[k] = sb_role_names[c->slots[k].role];

	for (size_t i = 0; i < c->n_var; i++)
		if (!has_failed(&set->var[i]))
			active[n++] = i;
	if (n < 2 || n > SB_DESIGN_MAX_K)
		return false;
	json_object_object_get_ex(side, "assignments", &a);
	json_object_object_get_ex(side, "turns", &turns);
	json_object_object_get_ex(side, "whole", &whole);
	assign = json_object_new_array();
	json_object_array_add(a, assign);
	struct sb_side sd = {.proto = vr,
			     .variants = c->var,
			     .plans = c->plans,
			     .set_vars = set->var,
			     .active = active,
			     .n_active = n,
			     .round = rep,
			     .seed = seed,
			     .fail_fast = g_fail_fast,
			     .slot_roles = roles,
			     .t_origin = t0,
			     .turns = turns,
			     .assignment = assign,
			     .turn_ns = c->o.turn_ms * 1000000ull,
			     .whole = whole};
	int r = c->switched ? sb_switch_round(&sd, failed) : sb_side_round(&sd, failed);
	for (size_t k = 0; k < n; k++)
		json_object_array_add(round, json_object_new_int64((int64_t)active[k]));
	*failed += r == SB_EXIT_FAILED;
	if (ends_run(r, vr->left_behind))
		*code = r;
	return true;
}

/* The images side by side kept from round to round, removed once no more
 * rounds are run side by side (the last done, or fewer than two variants
 * left): the exit code as run_rounds has it. */
static int release_images(struct ctx *c, struct sb_vrun *vr, int code)
{
	return vr->images_kept ? sb_side_release(vr, &c->var[0], code) : code;
}

/* The rounds of a crossover cycle: the variants still running. */
static size_t side_cycle(const struct ctx *c, const struct sb_resultset *set)
{
	size_t n = 0;
	for (size_t i = 0; i < c->n_var; i++)
		n += !has_failed(&set->var[i]);
	return n ? n : 1;
}

/* --budget: is there time for another whole cycle at the pace so far?
 * When not, says where the verdict stands and what would resolve the
 * rest; the budget and what was spent go into the schedule. */
static bool budget_left(const struct ctx *c, struct sb_resultset *set, json_object *sched,
			uint64_t t0, unsigned rounds, size_t cycle)
{
	double spent = (double)(sb_mono_ns() - t0) / 1e9;
	double per_round = spent / rounds, budget = (double)c->o.budget_ms / 1000;
	bool more = spent + per_round * (double)cycle <= budget;
	json_object *b = json_object_new_object();

	json_object_object_add(b, "seconds", json_object_new_double(budget));
	json_object_object_add(b, "spent", json_object_new_double(spent));
	json_object_object_add(b, "rounds", json_object_new_int((int)rounds));
	json_object_object_add(sched, "budget", b);
	if (!more)
		sb_report_budget_note(set, rounds, per_round, stderr);
	return more;
}

/* The variants, --repeat times (or until resolved), interleaved so that
 * drift over time hits every variant alike, in an order shuffled per round
 * so that no variant always runs right after the same one (a cache warmed,
 * a disk left busy); the schedule goes into result.json. Returns the exit
 * code that ended the run early (ends_run), else 0, with *failed the
 * number of variant runs that failed and were gone past. */
static int run_rounds(struct ctx *c, struct sb_resultset *set, struct sb_vrun *vr, int *failed)
{
	unsigned n_rep = c->o.repeat	   ? c->o.repeat
			 : c->o.repeat_max ? c->o.repeat_max
					   : SB_REPEAT_AUTO_MAX;
	sb_progress_plan(c->n_var, n_rep, !c->o.repeat);
	bool shuffle = n_rep > 1 && c->n_var > 1;
	uint64_t seed =
	    c->o.has_seed ? c->o.seed : ((uint64_t)time(NULL) << 20) ^ (uint64_t)getpid();
	json_object *sched = json_object_new_object(), *rounds = json_object_new_array();
	int code = 0;

	json_object_object_add(sched, "seed", json_object_new_uint64(seed));
	json_object_object_add(sched, "shuffled", json_object_new_boolean(shuffle));
	json_object_object_add(sched, "rounds", rounds);
	if (!c->o.repeat && c->n_var > 1 && n_rep >= SB_REPEAT_AUTO_MIN) {
		/* the looks --repeat auto may take: the report spends alpha over them */
		json_object *a = json_object_new_object();
		json_object_object_add(a, "first", json_object_new_int(SB_REPEAT_AUTO_MIN));
		json_object_object_add(a, "max", json_object_new_int((int)n_rep));
		json_object_object_add(a, "spending", json_object_new_string("pocock"));
		json_object_object_add(sched, "auto", a);
	}
	if (!set->profile)
		set->profile = json_object_new_object();
	json_object_object_add(set->profile, "schedule", sched);
	json_object *side = c->side || c->switched ? side_schedule(c, sched) : NULL;
	uint64_t t0 = sb_mono_ns();
	for (unsigned rep = 0, more = 1; rep < n_rep && more && !code; rep++) {
		size_t order[c->n_var ? c->n_var : 1];
		json_object *round = json_object_new_array();
		sb_vrun_order(order, c->n_var, seed, rep);
		more = 0;
		if (side && side_round(c, set, vr, side, rep, seed, t0, round, failed, &code)) {
			more = 1;
			goto looked;
		}
		code = release_images(c, vr, code);
		for (size_t k = 0; k < c->n_var && !code; k++) {
			size_t i = shuffle ? order[k] : k;
			/* auto: whole rounds, so that every round pairs */
			if (has_failed(&set->var[i]) ||
			    (!c->o.repeat && c->n_var == 1 &&
			     !sb_variant_needs_repeat(&set->var[i], n_rep)))
				continue;
			json_object_array_add(round, json_object_new_int64((int64_t)i));
			vr->v = &c->var[i];
			vr->plan = &c->plans[i];
			vr->index = i;
			more = 1;
			int r = sb_vrun(vr, rep, &set->var[i]);
			*failed += r == SB_EXIT_FAILED;
			if (ends_run(r, vr->left_behind))
				code = r;
		}
	looked:
		if (json_object_array_length(round))
			json_object_array_add(rounds, round);
		else
			json_object_put(round);
		/* Looks only at whole cycles: side by side, every variant has
		 * been on every stack. */
		size_t cycle = side && !c->switched ? side_cycle(c, set) : 1;
		bool whole = (rep + 1) % cycle == 0;
		if (!c->o.repeat && c->n_var > 1 && more && !code && whole)
			more = sb_report_auto_more(set, rep + 1, n_rep, stderr);
		if (c->o.budget_ms && more && !code && whole)
			more = budget_left(c, set, sched, t0, rep + 1, cycle);
	}
	code = release_images(c, vr, code);
	sb_progress_done();
	return code;
}

/* On a terminal: type the device names to go on. */
static int confirm(struct ctx *c)
{
	char line[1024];
	size_t matched = 0;

	fprintf(stderr, "\nstackbench will DESTROY all data on:\n");
	for (size_t k = 0; k < c->n_slots; k++) {
		const struct sb_device *d = c->dev[k];
		_cleanup_free_ char *desc = sb_describe_dev(d);
		fprintf(stderr, "  %-6s %s\n", c->slots[k].name, desc ? desc : d->path);
		for (size_t i = 0; i < d->n_sigs; i++)
			fprintf(stderr, "         signature: %s (%s)%s%s\n", d->sigs[i].type,
				d->sigs[i].usage ? d->sigs[i].usage : "?",
				d->sigs[i].label ? " label " : "",
				d->sigs[i].label ? d->sigs[i].label : "");
	}
	if (c->o.yes)
		return 0;
	if (!isatty(STDIN_FILENO)) {
		sb_error(
		    "refusing: give --yes to destroy these devices (no terminal to confirm on)");
		return SB_EXIT_REFUSED;
	}
	fprintf(stderr, "Type the device names to confirm (e.g. %s): ", c->dev[0]->path);
	if (!fgets(line, sizeof(line), stdin))
		return sb_cmd_stop ? SB_EXIT_INTERRUPTED : SB_EXIT_REFUSED;
	char *save = NULL;
	for (char *w = strtok_r(line, " \t\n,", &save); w; w = strtok_r(NULL, " \t\n,", &save)) {
		bool ok = false;
		for (size_t k = 0; k < c->n_slots; k++)
			ok |= strcmp(w, c->dev[k]->path) == 0 || strcmp(w, c->dev[k]->name) == 0;
		if (!ok) {
			sb_error("refusing: '%s' is not one of the devices", w);
			return SB_EXIT_REFUSED;
		}
		matched++;
	}
	if (matched != c->n_slots) {
		sb_error("refusing: expected all %zu device names", c->n_slots);
		return SB_EXIT_REFUSED;
	}
	return 0;
}
/* Holding an exclusive flock on each whole device keeps two runs apart;
 * every one must succeed, or the run is refused. */
static int lock_devices(struct ctx *c, struct sb_devlock *l)
{
	for (size_t k = 0; k < c->n_slots; k++) {
		const char *path = c->dev[k]->path;
		int r = sb_devlock_take(l, c->dev[k], sb_state_dir(), SB_DEVLOCK_WAIT_MS,
					&sb_cmd_stop, &path);
		switch (r) {
		case 0:
			continue;
		case -EBUSY:
			sb_error("%s: refusing: another stackbench run uses it", path);
			return SB_EXIT_REFUSED;
		case -ETIMEDOUT:
			sb_error("%s: refusing: another program (udev, a tool) has held its "
				 "lock for %u s",
				 path, SB_DEVLOCK_WAIT_MS / 1000);
			return SB_EXIT_REFUSED;
		case -EINTR:
			return SB_EXIT_INTERRUPTED;
		default:
			sb_error_errno(r, "%s: refusing: cannot lock", path);
			return SB_EXIT_REFUSED;
		}
	}
	return 0;
}

/* A program's first line of --version (-V), or NULL. */
static json_object *version_of(const char *p)
{
	/* e2fsprogs and xfsprogs know -V; the others --version. */
	bool dash_v = strncmp(p, "mkfs.ext", 8) == 0 || strcmp(p, "mkfs.xfs") == 0;
	const char *argv[] = {p, dash_v ? "-V" : "--version", NULL};
	struct sb_child ch = {.argv = argv, .capture = true, .log_fd = -1, .timeout_ms = 5000};
	_cleanup_free_ char *key = sb_answer_key(p, argv + 1, 1), *kept = sb_answer_get(key);
	json_object *v = NULL;
	if (kept)
		return json_object_new_string(kept);
	if (sb_spawn_run(&ch) == 0) {
		char *s = ch.out_len ? ch.out : ch.err;
		s[strcspn(s, "\n")] = '\0';
		v = json_object_new_string(s);
		sb_answer_put(key, s);
	}
	sb_child_release(&ch);
	return v;
}

/* The version of every program the plans run, each binary asked once:
 * pvcreate, vgcreate, lvs... are all lvm (a process start costs seconds
 * under emulation). */
static json_object *tool_versions(struct ctx *c)
{
	const char *progs[32];
	json_object *o = json_object_new_object(), *by_bin = json_object_new_object();
	for (size_t i = 0; i < c->n_var; i++) {
		size_t n = (size_t)sb_plan_programs(&c->plans[i], progs, ARRAY_SIZE(progs));
		for (size_t k = 0; k < n; k++) {
			const char *p = progs[k];
			_cleanup_free_ char *path = NULL, *bin = NULL;
			json_object *v;
			if (json_object_object_get_ex(o, p, &v) || strstr(p, "remove"))
				continue;
			path = sb_program_path(p);
			bin = path ? realpath(path, NULL) : NULL;
			if (bin && json_object_object_get_ex(by_bin, bin, &v)) {
				json_object_object_add(o, p, json_object_get(v));
				continue;
			}
			if (!(v = version_of(p)))
				continue;
			json_object_object_add(o, p, v);
			if (bin)
				json_object_object_add(by_bin, bin, json_object_get(v));
		}
	}
	json_object_put(by_bin);
	return o;
}

/* This kernel lacks md or device-mapper: the exact command that runs this
 * profile, with this run's options, in the VM runner's guest (whose kernel
 * has both), from a source tree. */
static void vm_hint(const struct ctx *c)
{
	const char *argv[2 * 64 + 8];
	size_t n = 0;
	_cleanup_free_ char *line = NULL;

	argv[n++] = "contrib/vm/replicate";
	argv[n++] = c->profile_path;
	if (c->o.quick)
		argv[n++] = "--quick";
	if (c->o.n_ov && c->o.n_ov <= 64) {
		argv[n++] = "--";
		for (size_t i = 0; i < c->o.n_ov; i++) {
			argv[n++] = "-o";
			argv[n++] = c->o.ov[i];
		}
	}
	argv[n] = NULL;
	line = sb_argv_format(argv);
	sb_error("this host cannot build the profile; in the VM runner (from a stackbench source "
		 "tree, as root): %s%s",
		 line ? line : "contrib/vm/replicate PROFILE",
		 strcmp(c->prof->name, "md-raid1-ssd-2hdd") == 0
		     ? " (or 'make demo', which runs this profile there)"
		     : "");
}

/* Everything the plans need, checked before anything is touched, and all
 * that is missing reported at once (each layer knows its programs, their
 * packages and the kernel support it needs). */
static int check_programs(struct ctx *c)
{
	char *seen[64];
	size_t n_seen = 0;
	int missing = 0;
	bool kernel = false;

	for (size_t i = 0; i < c->n_var; i++) {
		char **msgs = NULL;
		int n = sb_plan_check(&c->plans[i], &msgs);
		for (int k = 0; k < n; k++) {
			bool dup = false;
			for (size_t j = 0; j < n_seen; j++)
				dup |= strcmp(seen[j], msgs[k]) == 0;
			if (!dup && n_seen < ARRAY_SIZE(seen)) {
				sb_error("%s", msgs[k]);
				seen[n_seen++] = msgs[k];
				missing++;
			} else {
				free(msgs[k]);
			}
		}
		free(msgs);
	}
	for (size_t j = 0; j < n_seen; j++) {
		kernel |=
		    strncmp(seen[j], "md:", 3) == 0 || strncmp(seen[j], "device-mapper:", 14) == 0;
		free(seen[j]);
	}
	if (kernel)
		vm_hint(c);
	return missing ? SB_EXIT_FAILED : 0;
}

/* A mistyped mount option or mkfs word is found now, not when its variant
 * mounts after the others have run: the notes (what was checked, what
 * could not be) go into the plan shown. */
static int check_words(struct ctx *c, char **notes)
{
	size_t len = 0;
	FILE *f = open_memstream(notes, &len);
	int r;
	if (!f)
		return SB_EXIT_FAILED;
	r = sb_ctx_check_words(c, &sb_cmd_stop, f);
	fclose(f);
	return r;
}

static int profile_json(struct ctx *c, struct sb_resultset *set)
{
	_cleanup_free_ char *text = NULL;
	size_t len = 0;
	_cleanup_fclose_ FILE *f = fopen(c->profile_path, "re");
	char hex[65], chunk[4096];
	size_t got;
	FILE *m = open_memstream(&text, &len);

	if (!m)
		return -ENOMEM;
	while (f && (got = fread(chunk, 1, sizeof(chunk), f)) > 0)
		fwrite(chunk, 1, got, m);
	fclose(m);
	sb_sha256_hex(text ? text : "", len, hex);
	json_object *o = json_object_new_object(), *vars = json_object_new_array();
	json_object_object_add(o, "path", json_object_new_string(c->profile_path));
	json_object_object_add(o, "name", json_object_new_string(c->prof->name));
	json_object_object_add(o, "sha256", json_object_new_string(hex));
	json_object_object_add(o, "values", sb_config_to_json(&c->prof->base));
	json_object *ov = json_object_new_array();
	for (size_t i = 0; i < c->o.n_ov; i++)
		json_object_array_add(ov, json_object_new_string(c->o.ov[i]));
	json_object_object_add(o, "overrides", ov);
	for (size_t i = 0; i < c->n_var; i++) {
		json_object *v = json_object_new_object();
		json_object_object_add(v, "name", json_object_new_string(c->var[i].name));
		json_object_object_add(v, "values", sb_config_to_json(&c->var[i].cfg));
		json_object_array_add(vars, v);
	}
	json_object_object_add(o, "variants", vars);
	json_object_object_add(o, "loop", json_object_new_boolean(c->o.loop));
	json_object_object_add(o, "quick", json_object_new_boolean(c->o.quick));
	set->profile = o;
	return 0;
}

/* result.json as sb_resultset_write() makes it, but through the results
 * directory's fd (checked when opened): never a path that could have been
 * swapped for a symlink since. */
static int write_results(const struct sb_resultset *set, int dfd)
{
	json_object *o = sb_resultset_to_json(set);
	_cleanup_free_ char *text = NULL;
	int r;

	if (!o)
		return -ENOMEM;
	if (asprintf(&text, "%s\n",
		     json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
							   JSON_C_TO_STRING_NOSLASHESCAPE)) < 0)
		text = NULL;
	r = text ? sb_write_at(dfd, "result.json", text, strlen(text), 0644) : -ENOMEM;
	json_object_put(o);
	return r;
}

/* The confirmation can wait indefinitely: what was checked then is checked
 * again right before the first write of every variant. */
static int recheck(void *ud)
{
	return sb_ctx_recheck(ud);
}

/* State: <state>/<run-id>/{lock,journal,*.img,mnt}, and the test hooks
 * (main.c refused them already unless the state directory is a test's). 0,
 * or the exit code after reporting. */
static int open_state(struct sb_runstate *rs)
{
	const char *fs = getenv("STACKBENCH_FAIL_STEP"), *ks = getenv("STACKBENCH_KILL_STEP");
	const char *what = NULL;
	int r;

	rs->fail_step = fs ? (unsigned)strtoul(fs, NULL, 10) : 0;
	rs->kill_step = ks ? (unsigned)strtoul(ks, NULL, 10) : 0;
	rs->udev = sb_udev_running();
	r = sb_runstate_create(rs, &what);
	if (r < 0) {
		bool trust = r == -ELOOP || r == -EPERM || r == -EACCES;
		sb_error("%s: %s", what, trust ? sb_trust_text(r) : strerror(-r));
		return trust ? SB_EXIT_REFUSED : SB_EXIT_FAILED;
	}
	return 0;
}

/* Results directory (its fd in *res_fd), run log, the plan: written as
 * root, so never through a symlink, in a directory only we can write. 0, or
 * the exit code after reporting. */
static int open_results(struct ctx *c, struct sb_runstate *rs, const char *checks, int *res_fd)
{
	_cleanup_free_ char *plan_text = NULL;
	size_t plan_len = 0;
	int r;

	if (c->o.results) {
		rs->results = strdup(c->o.results);
	} else {
		_cleanup_free_ char *stamp = sb_utc_stamp(1);
		if (asprintf(&rs->results, "results/%s-%s", stamp, c->prof->name) < 0)
			rs->results = NULL;
	}
	*res_fd = rs->results ? sb_dir_open_trusted(rs->results, true, 0755) : -ENOMEM;
	if (*res_fd < 0) {
		bool trust = *res_fd == -ELOOP || *res_fd == -EPERM || *res_fd == -EACCES;
		sb_error("%s: cannot use it for the results: %s", rs->results ? rs->results : "?",
			 sb_trust_text(*res_fd));
		return trust ? SB_EXIT_REFUSED : SB_EXIT_FAILED;
	}
	rs->log_fd = sb_open_append_at(*res_fd, "run.log", 0644);
	if (rs->log_fd < 0) {
		sb_error_errno(rs->log_fd, "%s/run.log: cannot create", rs->results);
		return SB_EXIT_FAILED;
	}
	FILE *pf = open_memstream(&plan_text, &plan_len);
	if (pf) {
		sb_ctx_print_plans(c, pf);
		fputs(checks ? checks : "", pf);
		fclose(pf);
		r = sb_write_at(*res_fd, "plan.txt", plan_text, plan_len, 0644);
		if (r < 0)
			sb_warn("%s/plan.txt: not written: %s", rs->results, strerror(-r));
		if (sb_log_level >= SB_LOG_NORMAL)
			fputs(plan_text, stderr);
	}
	dprintf(rs->log_fd, "stackbench %s run %s, profile %s, run id %s\n", SB_VERSION,
		c->o.loop ? "--loop" : c->o.devices, c->profile_path, rs->run_id);
	return 0;
}

/* The result set before any variant ran: host, tools, devices, profile,
 * one variant per matrix row. NULL when out of memory. */
static struct sb_resultset *new_set(struct ctx *c)
{
	struct sb_resultset *set = sb_resultset_new("run");

	if (!set)
		return NULL;
	json_object_put(set->host);
	json_object_put(set->tools);
	json_object_put(set->devices);
	set->host = sb_host_facts();
	set->tools = tool_versions(c);
	set->devices = json_object_new_array();
	for (size_t k = 0; c->dev && k < c->n_slots; k++) {
		json_object *d = sb_device_to_json(c->dev[k]);
		if (d)
			json_object_object_add(d, "role", json_object_new_string(c->slots[k].name));
		json_object_array_add(set->devices, d);
	}
	profile_json(c, set);
	for (size_t i = 0; i < c->n_var; i++)
		if (!sb_resultset_variant(set, c->var[i].name, json_object_get(c->var[i].params))) {
			sb_resultset_free(set);
			return NULL;
		}
	return set;
}

/* Every variant through the session (src/session/), stopped by the signals
 * main.c catches for a destructive command. The code that ended the run
 * early, else 0; *failed as run_rounds. */
static int run_variants(struct ctx *c, struct sb_runstate *rs, struct sb_resultset *set,
			int *failed)
{
	const char *names[SB_DEVLOCK_MAX], *devs[SB_DEVLOCK_MAX];
	json_object *loop_devices = c->o.loop ? set->devices : NULL;
	struct sb_vrun vr = {.n_var = c->n_var,
			     .quick = c->o.quick,
			     .ram = c->o.ram,
			     .cap_cache = c->o.cap_cache,
			     .slot_names = names,
			     .slot_devs = c->dev ? devs : NULL,
			     .n_slots = c->n_slots,
			     .cpus = c->o.cpus,
			     .keep_images = c->side,
			     .loop_devices = &loop_devices,
			     .before_first_write = recheck,
			     .ud = c,
			     .rs = rs,
			     .stop = &sb_cmd_stop,
			     .wl_stop = &sb_cmd_wl_stop};

	for (size_t k = 0; k < c->n_slots && k < SB_DEVLOCK_MAX; k++) {
		names[k] = c->slots[k].name;
		devs[k] = c->dev ? c->dev[k]->path : NULL;
	}
	return run_rounds(c, set, &vr, failed);
}

/* result.json, the history, the report on stdout, and the run's exit code
 * from code (what ended it early) and the failed variant runs. */
static int finish(struct sb_resultset *set, const struct sb_runstate *rs, int res_fd, int code,
		  int failed)
{
	int r = write_results(set, res_fd);

	if (r < 0)
		sb_error_errno(r, "%s: cannot write result.json", rs->results);
	else if (!code && sb_history_record_set(&g_hist, set))
		code = SB_EXIT_FAILED;
	else if (!code && sb_report_print(set, "text", stdout, NULL) == 0)
		printf("\nresults: %s\n", rs->results);
	else if (!code)
		printf("%s\n", rs->results);
	/* Failed variants the run went past: the report showed them; exit 1. */
	if (!code && failed)
		code = SB_EXIT_FAILED;
	if (code == SB_EXIT_INTERRUPTED)
		sb_error("interrupted: torn down");
	if (failed && !g_fail_fast && code == SB_EXIT_FAILED)
		sb_error("%d variant run%s failed (see result.json and run.log)", failed,
			 failed == 1 ? "" : "s");
	return code ? code : (r < 0 ? SB_EXIT_FAILED : 0);
}

/* Root, the test hooks, the state directory and the signals are main.c's
 * (CMD_NEEDS_ROOT | CMD_DESTRUCTIVE). */
int cmd_run(int argc, char **argv)
{
	struct ctx c = {.o = {.cmd = "run", .repeat = 1}};
	struct sb_cmdline cl = {
	    "run",
	    "PROFILE [--devices A,B,C | --loop] [--yes] [--results DIR] [--quick] "
	    "[--repeat N|auto] [--budget DURATION] [-o SECTION.KEY=VALUE]...",
	    "Build the stack of every variant, run its workloads, tear it down, and "
	    "write a result set.",
	    run_opts,
	    run_on_opt,
	    &c.o};
	struct sb_runstate rs = SB_RUNSTATE_INIT;
	struct sb_resultset *set = NULL;
	struct sb_devlock locks;
	int r, code, failed = 0;
	_cleanup_free_ char *checks = NULL;
	_cleanup_close_ int res_fd = -1;

	sb_devlock_init(&locks);
	r = sb_ctx_setup(&c, &cl, argc, argv, true);
	if (r == 0 && !c.o.loop && !c.o.devices)
		r = sb_usage_error("run", "give --devices A,B,C or --loop");
	/* A budget decides when to stop: rounds until it is spent or every
	 * headline row is resolved, unless --repeat caps them itself. */
	if (r == 0 && c.o.budget_ms && !c.o.repeat_set)
		c.o.repeat = 0;
	if (r == 0 && c.o.turn_ms && c.o.turn_set && !c.side)
		r = sb_usage_error("run",
				   "--turn: millisecond turns need the variants side by side, "
				   "under --loop (here: %s)",
				   c.switched	  ? "one stack, switched between variants"
				   : c.layout_why ? c.layout_why
						  : "one variant");
	if (r == 0 && c.o.cap_cache && !c.o.ram)
		r = sb_usage_error("run", "--cap-cache needs --ram SIZE (the size to cap at)");
	if (r) {
		sb_ctx_free(&c);
		return r < 0 ? 0 : r;
	}
	r = check_programs(&c);
	if (r == 0)
		r = check_words(&c, &checks);
	if (r == 0 && c.o.devices) {
		r = confirm(&c);
		if (r == 0)
			r = lock_devices(&c, &locks);
	}
	if (r == 0)
		r = open_state(&rs);
	if (r)
		goto out;
	r = open_results(&c, &rs, checks, &res_fd);
	if (r == 0 && !(set = new_set(&c)))
		r = SB_EXIT_FAILED;
	if (r == 0) {
		code = run_variants(&c, &rs, set, &failed);
		r = finish(set, &rs, res_fd, code, failed);
	}
	/* Keep the run directory while its journal says something is left. */
	code = sb_runstate_remove_dir(&rs);
	if (code < 0)
		sb_warn("%s: not removed: %s", rs.run_dir, strerror(-code));
out:
	sb_resultset_free(set);
	sb_runstate_release(&rs);
	sb_devlock_release(&locks);
	sb_ctx_free(&c);
	return r;
}

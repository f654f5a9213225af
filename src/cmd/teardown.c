/* `stackbench teardown`: undo, from its journal, what an interrupted or
 * killed run left behind; a run whose lock is held is left alone. */
#include "cmd/stack-cmd.h"
#include "stack/state.h"
#include "util/log.h"
#include "util/macro.h"

#include <dirent.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

static const struct sb_opt teardown_opts[] = {
    {"all", OPT_ALL, NULL, "tear down every run left in the state directory"},
    {0},
};

/* What was and was not undone: "2 undone, 1 already gone (skipped)", and
 * when it stopped, what stays. */
static void undo_summary(const struct sb_exec *u, int r, size_t steps, char *buf, size_t len)
{
	size_t seen = u->undo_done + u->undo_gone + u->undo_mismatch + u->undo_failed;
	int n =
	    snprintf(buf, len, "%u undone, %u already gone (skipped)", u->undo_done, u->undo_gone);
	if (n > 0 && (size_t)n < len && u->undo_mismatch)
		n += snprintf(buf + n, len - n, ", %u left alone (not ours)", u->undo_mismatch);
	if (n > 0 && (size_t)n < len && u->undo_failed)
		n += snprintf(buf + n, len - n, ", %u failed, %zu before it not tried",
			      u->undo_failed, steps > seen ? steps - seen : 0);
	if (n > 0 && (size_t)n < len && r < 0 && !u->undo_failed && !u->undo_mismatch)
		snprintf(buf + n, len - n, ", nothing touched");
}

/* Side by side, each stack had a directory of its own in the run's
 * (s0, s1...): emptied by the undo, removed here. */
static void remove_stack_dirs(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char p[4096 + 512];

	while (d && (e = readdir(d))) {
		if (e->d_name[0] != 's' || !e->d_name[1] ||
		    strspn(e->d_name + 1, "0123456789") != strlen(e->d_name + 1))
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		rmdir(p);
	}
	if (d)
		closedir(d);
}

static int teardown_one(const char *sd, const char *id, bool explicit_id)
{
	char dir[4096], journal[4200], lock[4200];
	_cleanup_close_ int lfd = -1;
	struct sb_exec u;
	struct sb_jread jr = {0};
	char tally[256];
	size_t steps = 0;
	int r;

	snprintf(dir, sizeof(dir), "%s/%s", sd, id);
	snprintf(journal, sizeof(journal), "%s/journal", dir);
	snprintf(lock, sizeof(lock), "%s/lock", dir);
	/* Never act on a run whose lock we cannot take: it may be alive. */
	lfd = sb_runstate_lock(dir);
	if (lfd < 0 && lfd != -EWOULDBLOCK) {
		sb_error_errno(lfd, "%s: cannot take its lock: not touching it", id);
		return SB_EXIT_FAILED;
	}
	if (lfd < 0) {
		long pid = 0;
		if (sb_journal_read(journal, &jr) == 0)
			pid = jr.pid;
		sb_jread_free(&jr);
		if (explicit_id) {
			sb_error("%s: run in progress (pid %ld): not touching it", id, pid);
			return SB_EXIT_FAILED;
		}
		sb_warn("%s: run in progress (pid %ld): skipped", id, pid);
		return 0;
	}
	if (access(journal, F_OK) == 0 && sb_journal_read(journal, &jr) == 0) {
		sb_info("%s: undoing %zu step%s%s", id, jr.n, jr.n == 1 ? "" : "s",
			jr.torn ? " (torn last record skipped)" : "");
		steps = jr.n;
		sb_jread_free(&jr);
	}
	sb_exec_init(&u);
	u.udev = sb_udev_running();
	r = sb_exec_undo_journal(&u, journal);
	undo_summary(&u, r, steps, tally, sizeof(tally));
	if (r < 0) {
		sb_error("%s: %s (journal kept)", id, u.errmsg ? u.errmsg : strerror(-r));
		sb_info("%s: %s", id, tally);
		sb_exec_release(&u);
		return SB_EXIT_FAILED;
	}
	sb_exec_release(&u);
	unlink(lock);
	remove_stack_dirs(dir);
	if (rmdir(dir) < 0 && errno != ENOENT) {
		sb_error("%s: %s not removed: %s", id, dir, strerror(errno));
		return SB_EXIT_FAILED;
	}
	sb_info("%s: torn down (%s)", id, tally);
	return 0;
}

int cmd_teardown(int argc, char **argv)
{
	struct opts o = {.cmd = "teardown"};
	struct sb_cmdline cl = {"teardown",
				"[RUN-ID | --all]",
				"Undo, from its journal, what an interrupted or killed run left "
				"behind. Safe to run twice.",
				teardown_opts,
				sb_cmd_on_opt,
				&o};
	const char *sd = sb_state_dir();
	char **rest;
	int n, r, code = 0;

	r = sb_opt_parse(&cl, argc, argv, &rest, &n);
	if (r)
		return r < 0 ? 0 : r;
	if ((n == 1) == o.all || n > 1) {
		/* Name the runs there are, so that the next command can be typed. */
		struct dirent **ents = NULL;
		int ne = scandir(sd, &ents, NULL, alphasort);
		for (int i = 0; i < ne; i++) {
			if (sb_run_id_valid(ents[i]->d_name))
				fprintf(stderr, "run left in %s: %s\n", sd, ents[i]->d_name);
			free(ents[i]);
		}
		free(ents);
		return sb_usage_error("teardown", "give one RUN-ID or --all");
	}
	if (n == 1) {
		char p[4096];
		struct stat st;
		if (!sb_run_id_valid(rest[0]))
			return sb_usage_error("teardown",
					      "'%s' is not a run id (YYYYMMDD-HHMMSS-PID, as "
					      "`teardown` without arguments lists them)",
					      rest[0]);
		snprintf(p, sizeof(p), "%s/%s", sd, rest[0]);
		if (lstat(p, &st) < 0 || !S_ISDIR(st.st_mode)) {
			sb_error("%s: no such run in %s", rest[0], sd);
			return SB_EXIT_USAGE;
		}
		return teardown_one(sd, rest[0], true);
	}
	struct dirent **ents = NULL;
	int ne = scandir(sd, &ents, NULL, alphasort), runs = 0, left = 0;
	for (int i = 0; i < ne; i++) {
		const char *id = ents[i]->d_name;
		char p[4096];
		struct stat st;
		snprintf(p, sizeof(p), "%s/%s", sd, id);
		/* A run killed before its directory got its name: no journal yet
		 * (it is opened after the rename), only the lock. */
		if (strncmp(id, ".new-", 5) == 0 && lstat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
			_cleanup_close_ int lfd = sb_runstate_lock(p);
			char lock[4200];
			snprintf(lock, sizeof(lock), "%s/lock", p);
			if (lfd >= 0 && unlink(lock) == 0 && rmdir(p) == 0)
				sb_verbose("%s: removed (a run that never started)", id);
		}
		if (id[0] != '.' && !sb_run_id_valid(id))
			sb_verbose("%s: not a run, left alone", p);
		/* A signal: the run being undone is finished (half an undo
		 * helps nobody), the others are left for the next teardown. */
		else if (id[0] != '.' && sb_cmd_stop)
			left++;
		else if (id[0] != '.' && lstat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
			runs++;
			r = teardown_one(sd, id, false);
			if (r && !code)
				code = r;
		}
		free(ents[i]);
	}
	free(ents);
	if (left) {
		sb_error("interrupted: %d run%s left in %s (run 'stackbench teardown --all' again)",
			 left, left == 1 ? "" : "s", sd);
		return SB_EXIT_INTERRUPTED;
	}
	if (runs == 0)
		sb_info("nothing to tear down in %s", sd);
	return code;
}

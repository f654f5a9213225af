/* The options plan and run share (struct opts, stack-cmd.h), each checked
 * as it is read: a bad value is a usage error naming the option. */
#include "cmd/stack-cmd.h"
#include "util/log.h"
#include "util/parse.h"
#include "util/size.h"
#include "workload/cpulist.h"

#include <stdlib.h>
#include <string.h>

int sb_cmd_on_opt(int key, const char *arg, void *ud)
{
	struct opts *o = ud;
	switch (key) {
	case OPT_DEVICES:
		o->devices = arg;
		return 0;
	case OPT_LOOP:
		o->loop = true;
		return 0;
	case OPT_YES:
		o->yes = true;
		return 0;
	case OPT_WIPE:
		o->wipe = true;
		return 0;
	case OPT_QUICK:
		o->quick = true;
		return 0;
	case OPT_ROUNDS:
		o->rounds = true;
		return 0;
	case OPT_ALL:
		o->all = true;
		return 0;
	case OPT_RESULTS:
		o->results = arg;
		return 0;
	case OPT_LOOP_DIR:
		o->loop_dir = arg;
		return 0;
	case OPT_RAM:
		if (sb_parse_size(arg, &o->ram, false, NULL) < 0 || o->ram < (1u << 20))
			return sb_usage_error(o->cmd, "--ram: expected a size such as 8G, got '%s'",
					      arg);
		return 0;
	case OPT_CAP_CACHE:
		o->cap_cache = true;
		return 0;
	case OPT_CPUS: {
		char *why = NULL;
		int r = sb_cpulist_check(arg, &why);
		if (r < 0)
			r = sb_usage_error(o->cmd, "%s", why ? why : "--cpus: bad list");
		free(why);
		o->cpus = arg;
		return r;
	}
	case OPT_REPEAT: {
		uint64_t n = 0, max = 0;
		/* auto[:MAX], 0: until every headline row is resolved (report.h) */
		bool isauto =
		    strcmp(arg, "auto") == 0 ||
		    (strncmp(arg, "auto:", 5) == 0 && sb_parse_uint(arg + 5, 3, 1000, &max) == 0);
		if (!isauto && sb_parse_uint(arg, 1, 1000, &n) < 0)
			return sb_usage_error(
			    o->cmd,
			    "--repeat: expected 'auto', 'auto:MAX' (MAX 3 to 1000) or "
			    "a number from 1 to 1000, got '%s'",
			    arg);
		o->repeat = (unsigned)n;
		o->repeat_max = (unsigned)max;
		o->repeat_set = true;
		return 0;
	}
	case OPT_BUDGET:
		if (sb_parse_duration_ms(arg, &o->budget_ms) < 0 || o->budget_ms < 1000)
			return sb_usage_error(o->cmd,
					      "--budget: expected a duration of a second or more "
					      "such as 90s, 3m or 1h, got '%s'",
					      arg);
		return 0;
	case OPT_TURN:
		if (sb_parse_uint(arg, 0, 1000, &o->turn_ms) < 0)
			return sb_usage_error(
			    o->cmd,
			    "--turn: expected a turn's length in milliseconds, from "
			    "1 to 1000, or 0 for whole phases, got '%s'",
			    arg);
		o->turn_set = true;
		return 0;
	case OPT_SEED:
		if (sb_parse_uint(arg, 0, UINT64_MAX, &o->seed) < 0)
			return sb_usage_error(o->cmd, "--seed: expected a whole number, got '%s'",
					      arg);
		o->has_seed = true;
		return 0;
	case OPT_OVERRIDE: {
		const char **n = realloc(o->ov, (o->n_ov + 1) * sizeof(*n));
		if (!n)
			return SB_EXIT_FAILED;
		o->ov = n;
		n[o->n_ov++] = arg;
		return 0;
	}
	}
	return SB_EXIT_USAGE;
}

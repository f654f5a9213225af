/* `stackbench list profiles|workloads`: the shipped profiles, or the
 * workloads with their options, from their own tables. */
#include "cmd.h"
#include "profile/profile.h"
#include "util/opt.h"
#include "workload/workload.h"

#include <string.h>

int cmd_list(int argc, char **argv)
{
	static const struct sb_opt opts[] = {{0}};
	struct sb_cmdline cl = {"list",
				"profiles|workloads",
				"List the shipped profiles, or the "
				"workloads with their options.",
				opts,
				NULL,
				NULL};
	char **rest;
	int n, r;

	r = sb_opt_parse(&cl, argc, argv, &rest, &n);
	if (r)
		return r < 0 ? 0 : r;
	if (n != 1)
		return sb_usage_error("list", "expected 'profiles' or 'workloads'");
	if (strcmp(rest[0], "profiles") == 0)
		return sb_list_profiles();
	if (strcmp(rest[0], "workloads") == 0)
		return sb_list_workloads();
	return sb_usage_error("list", "unknown list '%s': expected 'profiles' or 'workloads'",
			      rest[0]);
}

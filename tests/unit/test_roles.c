/* Role matching (src/stack/roles.c) as a bipartite matching: large cases
 * finish at once (the old backtracking was factorial), and the result is a
 * valid assignment with same-role slots in the order the devices came. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "probe/probe.h"
#include "stack/roles.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define N 64

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* kinds: one letter per device, s ssd, h hdd, n nvme, r rotational loop,
 * l non-rotational loop; slots: s, h, n, a (any). */
static void setup(const char *kinds, const char *roles, struct sb_device *devs,
		  struct sb_device **dp, char (*paths)[32], struct sb_slot *slots)
{
	for (size_t i = 0; kinds[i]; i++) {
		snprintf(paths[i], sizeof(paths[i]), "/dev/d%zu", i);
		enum sb_class c = kinds[i] == 's'   ? SB_CLASS_SSD
				  : kinds[i] == 'h' ? SB_CLASS_HDD
				  : kinds[i] == 'n' ? SB_CLASS_NVME
						    : SB_CLASS_LOOP;
		devs[i] = (struct sb_device){.path = paths[i],
					     .name = paths[i] + 5,
					     .cls = c,
					     .rotational = kinds[i] == 'h' || kinds[i] == 'r'};
		dp[i] = &devs[i];
	}
	for (size_t k = 0; roles[k]; k++) {
		slots[k].role = roles[k] == 's'	  ? SB_ROLE_SSD
				: roles[k] == 'h' ? SB_ROLE_HDD
				: roles[k] == 'n' ? SB_ROLE_NVME
						  : SB_ROLE_ANY;
		snprintf(slots[k].name, sizeof(slots[k].name), "r%u", (unsigned)k);
	}
}

static void test_match(void **state)
{
	char k64s[N + 1], r63h1s[N + 1], alt[N + 1], half[N + 1], rev[N + 1], any[N + 1];
	/* 64 HDDs for 63 hdd slots and one ssd: no matching, every path tried
	 * (the case that hung: 64! orders for backtracking). */
	memset(k64s, 'h', N);
	k64s[N] = 0;
	memset(r63h1s, 'h', N);
	r63h1s[N - 1] = 's';
	r63h1s[N] = 0;
	/* 32 SSDs and 32 HDDs interleaved, slots ssd first then hdd */
	for (int i = 0; i < N; i++) {
		alt[i] = i % 2 ? 'h' : 's';
		half[i] = i < N / 2 ? 's' : 'h';
		rev[i] = i < N / 2 ? 'h' : 's';
		any[i] = 'a';
	}
	alt[N] = half[N] = rev[N] = any[N] = 0;
	/* loops fit by their rotational flag, NVMe also fits "ssd" when no
	 * exact SSD is left */
	char loops[N + 1], mixed[N + 1];
	for (int i = 0; i < N; i++) {
		loops[i] = i % 2 ? 'r' : 'l';
		mixed[i] = i % 4 == 0 ? 'n' : i % 4 == 1 ? 's' : 'h';
	}
	loops[N] = mixed[N] = 0;
	char mixed_roles[N + 1];
	/* 32 ssd slots: 16 exact SSDs + 16 NVMe; 32 hdd slots */
	for (int i = 0; i < N; i++)
		mixed_roles[i] = i < N / 2 ? 's' : 'h';
	mixed_roles[N] = 0;

	const struct {
		const char *kinds, *roles;
		int rc;
	} cases[] = {
	    {k64s, r63h1s, -EINVAL}, {alt, half, 0},	      {rev, half, 0}, {loops, half, 0},
	    {alt, any, 0},	     {mixed, mixed_roles, 0}, {half, rev, 0},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sb_device devs[N], *dp[N];
		char paths[N][32];
		struct sb_slot slots[N];
		size_t assign[N], nd = strlen(cases[i].kinds), ns = strlen(cases[i].roles);
		char *why = NULL;
		setup(cases[i].kinds, cases[i].roles, devs, dp, paths, slots);
		double t = now_s();
		int r = sb_match_roles(slots, ns, dp, nd, assign, &why);
		t = now_s() - t;
		if (r != cases[i].rc)
			fail_msg("case %zu: rc %d, want %d (%s)", i, r, cases[i].rc,
				 why ? why : "");
		if (t > 0.5)
			fail_msg("case %zu: %.2f s for %zu devices", i, t, nd);
		if (r == 0) {
			bool used[N] = {false};
			for (size_t k = 0; k < ns; k++) {
				assert_true(assign[k] < nd);
				assert_false(used[assign[k]]);
				used[assign[k]] = true;
				assert_true(sb_device_fits_role(dp[assign[k]],
								sb_role_names[slots[k].role]));
				/* same role: devices in the order given */
				for (size_t j = 0; j < k; j++)
					if (slots[j].role == slots[k].role)
						assert_true(assign[j] < assign[k]);
			}
		} else {
			assert_non_null(why);
		}
		free(why);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_match)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

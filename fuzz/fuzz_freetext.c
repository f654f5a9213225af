/* libFuzzer target: free text that reaches a tool (util/freetext.c).
 * The first byte picks the tool (mke2fs, mkfs.xfs, mkfs.btrfs, any mkfs,
 * bonnie++, iozone, or a fio job file); the rest is its words or job text.
 * A refusal is explained; an acceptance hands back no path that names a
 * device or holds a variable; the answer is the same twice. */
#include "fuzz.h"
#include "util/freetext.h"

#include <errno.h>

static int freetext_once(unsigned pick, const char *text, struct sb_ft_paths *p, char **why)
{
	static const struct sb_ft_tool *const tools[] = {&sb_ft_mke2fs,	    &sb_ft_mkfs_xfs,
							 &sb_ft_mkfs_btrfs, &sb_ft_mkfs_any,
							 &sb_ft_bonnie,	    &sb_ft_iozone};
	if (pick < sizeof(tools) / sizeof(tools[0]))
		return sb_ft_check_string(tools[pick], text, p, why);
	return sb_ft_fio_check(text, "job.fio", p, p, why);
}

SB_FUZZ_TARGET(freetext)
{
	struct sb_ft_paths p = {0}, p2 = {0};
	char *why = NULL, *why2 = NULL, *text;
	unsigned pick;
	int r, r2;

	if (size < 1)
		return 0;
	pick = data[0] % 7;
	text = sb_fuzz_strndup(data + 1, size - 1);
	r = freetext_once(pick, text, &p, &why);
	SB_FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ENOMEM);
	if (r == -EINVAL)
		SB_FUZZ_CHECK(why != NULL && why[0] != '\0');
	for (size_t i = 0; r == 0 && i < p.n; i++) {
		SB_FUZZ_CHECK(strncmp(p.v[i], "/dev/", 5) != 0);
		SB_FUZZ_CHECK(strchr(p.v[i], '$') == NULL);
	}
	r2 = freetext_once(pick, text, &p2, &why2);
	SB_FUZZ_CHECK(r2 == r && p2.n == p.n);
	for (char *l = text; pick == 6 && l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		free(sb_ft_fio_include(l));
	sb_ft_paths_free(&p);
	sb_ft_paths_free(&p2);
	free(why);
	free(why2);
	free(text);
	return 0;
}

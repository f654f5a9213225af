/* libFuzzer target: the profile parser and matrix expansion behind `plan`
 * and `run`. A refused profile is explained with file and line; an accepted
 * one expands into named variants whose values read back as JSON. */
#include "fuzz.h"
#include "profile/profile.h"

#include <errno.h>

SB_FUZZ_TARGET(profile)
{
	char *text = sb_fuzz_strndup(data, size), *err = NULL;
	struct sb_profile *p = NULL;
	struct sb_pvariant *v = NULL;
	size_t n = 0;
	int r;

	r = sb_profile_parse("fuzz.conf", text, &p, &err);
	SB_FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ENOMEM);
	if (r < 0) {
		SB_FUZZ_CHECK(p == NULL);
		/* "PATH:LINE: message", as the user sees it (exit 2) */
		if (r == -EINVAL)
			SB_FUZZ_CHECK(err && strncmp(err, "fuzz.conf:", 10) == 0);
		goto out;
	}
	SB_FUZZ_CHECK(p != NULL);
	/* An override the user might type, then the variants. */
	r = sb_profile_override(p, "mount.options=noatime", &err);
	SB_FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ENOMEM);
	free(err);
	err = NULL;
	r = sb_profile_variants(p, &v, &n, &err);
	SB_FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ENOMEM);
	if (r == -EINVAL)
		SB_FUZZ_CHECK(err != NULL);
	if (r == 0) {
		SB_FUZZ_CHECK(n > 0);
		for (size_t i = 0; i < n; i++) {
			json_object *o = sb_config_to_json(&v[i].cfg);
			SB_FUZZ_CHECK(v[i].name && v[i].name[0]);
			SB_FUZZ_CHECK(o != NULL);
			json_object_put(o);
		}
		sb_pvariants_free(v, n);
	}
	sb_profile_free(p);
out:
	free(err);
	free(text);
	return 0;
}

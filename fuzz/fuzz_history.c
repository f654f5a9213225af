/* libFuzzer target: opening a history database that may be damaged or
 * foreign (what `history`, `report --history` and every recording run do
 * first). Input is the file's content. Invariants: a refusal says why; a
 * file that opens can be listed; and the file is left byte for byte as it
 * was, opened or refused. */
#include "fuzz.h"
#include "history/history.h"
#include "history/series.h"

#include <errno.h>
#include <fcntl.h>

static void remove_db(const char *path)
{
	char side[4200];
	unlink(path);
	snprintf(side, sizeof(side), "%s-wal", path);
	unlink(side);
	snprintf(side, sizeof(side), "%s-shm", path);
	unlink(side);
}

SB_FUZZ_TARGET(history)
{
	const char *tmp = getenv("TMPDIR");
	char path[4096];
	struct sb_history *h = NULL;
	char *err = NULL, *text = NULL;
	int fd, r;

	/* SQLite needs a real file (a /proc/self/fd link is refused as a
	 * symlink, as it should be): one per input, removed after. */
	snprintf(path, sizeof(path), "%s/sb-fuzz-history-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	fd = mkstemp(path);
	SB_FUZZ_CHECK(fd >= 0);
	SB_FUZZ_CHECK(write(fd, data, size) == (ssize_t)size);
	close(fd);

	r = sb_history_open(path, false, &h, &err);
	if (r < 0) {
		SB_FUZZ_CHECK(h == NULL);
		SB_FUZZ_CHECK(err != NULL);
	} else {
		json_object *o = NULL;
		struct sb_history_filter f = {0};
		SB_FUZZ_CHECK(h != NULL);
		if (sb_history_series(h, &f, &o) == 0)
			SB_FUZZ_CHECK(o != NULL);
		json_object_put(o);
		if (sb_history_export(h, 1, &text) == 0)
			SB_FUZZ_CHECK(text != NULL);
		sb_history_close(h);
	}
	free(err);
	free(text);

	/* Never changed, whatever it was. */
	uint8_t *back = malloc(size + 1);
	SB_FUZZ_CHECK(back);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	SB_FUZZ_CHECK(fd >= 0);
	SB_FUZZ_CHECK(read(fd, back, size + 1) == (ssize_t)size);
	SB_FUZZ_CHECK(size == 0 || memcmp(back, data, size) == 0);
	close(fd);
	free(back);
	remove_db(path);
	return 0;
}

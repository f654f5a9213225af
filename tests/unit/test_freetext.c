/* The free-text checker (util/freetext.c): each tool's words in every
 * spelling, fio job files, include lines. Table-driven; NULL want means
 * accepted, paths is what must be resolved inside the run ("|"-joined). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/freetext.h"
#include "../../fuzz/fuzz_freetext.c"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void join(const struct sb_ft_paths *p, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < p->n && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? "|" : "", p->v[i]);
}

static void test_words(void **state)
{
	static const struct {
		const struct sb_ft_tool *tool;
		const char *words, *want, *paths;
	} cases[] = {
	    /* mke2fs: the options that take host files, in every spelling */
	    {&sb_ft_mke2fs, "-z /tmp/x", "'-z /tmp/x' is refused: it writes an undo file", ""},
	    {&sb_ft_mke2fs, "-z/tmp/x", "'-z /tmp/x' is refused", ""},
	    {&sb_ft_mke2fs, "-qz /tmp/x", "'-z /tmp/x' is refused", ""},
	    {&sb_ft_mke2fs, "-Fq -z/tmp/x", "'-z /tmp/x' is refused", ""},
	    {&sb_ft_mke2fs, "-d /etc", "'-d /etc' is refused: it copies a host directory", ""},
	    {&sb_ft_mke2fs, "-d etc", "'-d etc' is refused", ""},
	    {&sb_ft_mke2fs, "-l badblocks.txt", "reads a bad-blocks list", ""},
	    {&sb_ft_mke2fs, "-i 8192 -m 0 -E lazy_itable_init=0 -O ^has_journal", NULL, ""},
	    {&sb_ft_mke2fs, "-L my/label -M /mnt/x", NULL, ""},
	    {&sb_ft_mke2fs, "-E root_owner=0:0,offset=/x", "a path as an option's value", ""},
	    {&sb_ft_mke2fs, "-J device=/dev/sdc", "'device=' names another device", ""},
	    {&sb_ft_mke2fs, "-F extra", "'extra' is a positional argument", ""},
	    /* mkfs.xfs */
	    {&sb_ft_mkfs_xfs, "-p /etc/passwd", "'-p /etc/passwd' is refused: it reads a prototype",
	     ""},
	    {&sb_ft_mkfs_xfs, "-pfile=/etc/passwd", "'-p file=/etc/passwd' is refused", ""},
	    {&sb_ft_mkfs_xfs, "-c options=/etc/x", "reads a configuration file", ""},
	    {&sb_ft_mkfs_xfs, "-r rtdev=/x", "'rtdev=' names another device", ""},
	    {&sb_ft_mkfs_xfs, "-d name=/x", "'name=' names another device", ""},
	    {&sb_ft_mkfs_xfs, "-f -i size=512 -l size=32m,lazy-count=1 -d agcount=4", NULL, ""},
	    {&sb_ft_mkfs_xfs, "-d su=64k,sw=4 -r extsize=1m", NULL, ""},
	    /* mkfs.btrfs: -r is --rootdir here */
	    {&sb_ft_mkfs_btrfs, "-r /etc", "'-r /etc' is refused: it copies a host directory", ""},
	    {&sb_ft_mkfs_btrfs, "-r etc", "'-r etc' is refused", ""},
	    {&sb_ft_mkfs_btrfs, "--rootdir /etc", "'--rootdir /etc' is refused", ""},
	    {&sb_ft_mkfs_btrfs, "--rootdir=/etc --shrink", "'--rootdir /etc' is refused", ""},
	    /* getopt_long takes an unambiguous prefix of a long option */
	    {&sb_ft_mkfs_btrfs, "--root=/etc", "'--root /etc' is refused: it copies", ""},
	    {&sb_ft_mkfs_btrfs, "--rootd /etc", "'--rootd /etc' is refused", ""},
	    {&sb_ft_mkfs_btrfs, "--nodes 16k", NULL, ""},
	    {&sb_ft_mkfs_btrfs, "--subvol rw:a", "'--subvol' is refused: it goes with --rootdir",
	     ""},
	    {&sb_ft_mkfs_btrfs, "-n 4k -s 4096 -L bench --csum xxhash -O ^no-holes", NULL, ""},
	    {&sb_ft_mkfs_btrfs, "-n 4k /dev/sdz", "'/dev/sdz' names a block device", ""},
	    {&sb_ft_mkfs_btrfs, "-f /srv/img", "'/srv/img' is a positional argument", ""},
	    /* before fs.type is known */
	    {&sb_ft_mkfs_any, "-d /etc", "a path as an option's value", ""},
	    {&sb_ft_mkfs_any, "-r ../x", "a path as an option's value", ""},
	    {&sb_ft_mkfs_any, "-d agcount=4 -r extsize=1m -n 4k", NULL, ""},
	    {&sb_ft_mkfs_any, "-llogdev=/x", "'-llogdev=' names another device", ""},
	    /* bonnie++: paths handed back; -u is fine */
	    {&sb_ft_bonnie, "-d /tmp -s 64", NULL, "/tmp"},
	    {&sb_ft_bonnie, "-d/tmp", NULL, "/tmp"},
	    {&sb_ft_bonnie, "-qd /x -u nobody -Z rnd", NULL, "/x|rnd"},
	    {&sb_ft_bonnie, "-s 64 -r 32 -n 1 -m host/name", NULL, ""},
	    {&sb_ft_bonnie, "-d $HOME", "no variables in a path", ""},
	    {&sb_ft_bonnie, "-d /dev/sda", "'/dev/sda' names a block device", ""},
	    {&sb_ft_bonnie, "stray", NULL, "stray"},
	    /* iozone: -F takes the files that follow; -U and -+m never */
	    {&sb_ft_iozone, "-i 0 -s 16m -r 4k -f /tmp/f", NULL, "/tmp/f"},
	    {&sb_ft_iozone, "-t 2 -F a ../b -s 1m", NULL, "a|../b"},
	    {&sb_ft_iozone, "-Rb/tmp/out.xls", NULL, "/tmp/out.xls"},
	    {&sb_ft_iozone, "-U /mnt", "'-U' is refused: it unmounts and remounts", ""},
	    {&sb_ft_iozone, "-+m cluster.cfg", "'-+m' is refused: it runs the test on the hosts",
	     ""},
	    {&sb_ft_iozone, "-+p 50 -i 8", NULL, ""},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sb_ft_paths p = {0};
		char *why = NULL, got[512];
		int r = sb_ft_check_string(cases[i].tool, cases[i].words, &p, &why);
		join(&p, got, sizeof(got));
		if ((r == 0) != !cases[i].want || (why && !strstr(why, cases[i].want)) ||
		    (r == 0 && strcmp(got, cases[i].paths) != 0))
			fail_msg(
			    "case %zu %s '%s': rc %d, got '%s' paths '%s', want '%s' paths '%s'", i,
			    cases[i].tool->name, cases[i].words, r, why ? why : "(accepted)", got,
			    cases[i].want ? cases[i].want : "(accepted)", cases[i].paths);
		free(why);
		sb_ft_paths_free(&p);
	}
}

static void test_fio(void **state)
{
	static const struct {
		const char *text, *want, *paths, *dirs;
	} cases[] = {
	    {"[global]\nioengine=psync\nbs=4k\n[a]\nrw=randread\nsize=16m\n", NULL, "", ""},
	    {"[a]\nfilename=/dev/loop7\n", "job.fio:2: filename=/dev/loop7 names a device", "", ""},
	    {"[a]\nfilename = data.1:/dev/sdb\n", "filename=/dev/sdb names a device", "", ""},
	    {"[a]\nfilename=a\\:b:c\n", NULL, "a:b|c", ""},
	    {"[a]\nfilename=a: /dev/sdb\n", "filename=/dev/sdb names a device", "", ""},
	    {"; comment\n[a]\ndirectory=/tmp/..\nfilename=f\n", NULL, "f", "/tmp/.."},
	    {"[a]\nDirectory=x:y\n", NULL, "", "x|y"},
	    {"[a]\nfilename_format=$jobname.$jobnum.$filenum\n", NULL, "x.x.x", ""},
	    {"[a]\nfilename_format=${HOME}/x\n",
	     "job.fio:2: filename_format=${HOME}/x: fio would expand", "", ""},
	    {"[a]\nfilename=${TARGET}\n", "fio would expand the environment", "", ""},
	    {"[a]\nfilename=$HOME/x\n", "no variables in a path", "", ""},
	    {"[a]\nopendir=/etc\n", NULL, "/etc", ""},
	    {"[a]\nwrite_bw_log=/root/bw\nwrite_lat_log\n", NULL, "/root/bw", ""},
	    {"[a]\nwrite-iops-log=/x/iops\n", NULL, "/x/iops", ""},
	    {"[a]\nread_iolog=/var/trace\n", NULL, "/var/trace", ""},
	    {"[a]\nexec_prerun=rm -rf /\n",
	     "job.fio:2: 'exec_prerun' is refused: it runs a command", "", ""},
	    {"[a]\nexec_postrun\n", "'exec_postrun' is refused", "", ""},
	    {"[a]\nioengine=external:/tmp/evil.so\n", "ioengine=external:/tmp/evil.so is refused",
	     "", ""},
	    {"[a]\nioengine=exec\n", "ioengine=exec is refused", "", ""},
	    {"[a]\nioscheduler=none\n", "'ioscheduler' is refused", "", ""},
	    {"[a]\ncgroup=x\n", "'cgroup' is refused", "", ""},
	    {"[a]\nmem=mmaphuge:/hugetlb/f\n", NULL, "/hugetlb/f", ""},
	    {"include other.fio\n[a]\nrw=read\n", NULL, "", ""},
	    {"[a]\nfilename=\"/dev/sdb\"\n", "names a device", "", ""},
	    {"[a]\nfilename='x'\n", NULL, "x", ""},
	    {"[a]\nioengine=${ENGINE}\n", "job.fio:2: ioengine=${ENGINE}: fio would expand", "",
	     ""},
	    {"[a]\nhttp_s3_keyfile=/root/key\n", NULL, "/root/key", ""},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sb_ft_paths p = {0}, d = {0};
		char *why = NULL, gp[512], gd[512];
		int r = sb_ft_fio_check(cases[i].text, "job.fio", &p, &d, &why);
		join(&p, gp, sizeof(gp));
		join(&d, gd, sizeof(gd));
		if ((r == 0) != !cases[i].want || (why && !strstr(why, cases[i].want)) ||
		    (r == 0 && (strcmp(gp, cases[i].paths) || strcmp(gd, cases[i].dirs))))
			fail_msg(
			    "case %zu: rc %d, got '%s' paths '%s' dirs '%s', want '%s' '%s' '%s'",
			    i, r, why ? why : "(accepted)", gp, gd,
			    cases[i].want ? cases[i].want : "(accepted)", cases[i].paths,
			    cases[i].dirs);
		free(why);
		sb_ft_paths_free(&p);
		sb_ft_paths_free(&d);
	}
}

static void test_include(void **state)
{
	static const struct {
		const char *line, *want;
	} cases[] = {
	    {"include common.fio", "common.fio"},
	    {"  include\t/etc/x.fio  \r", "/etc/x.fio"},
	    {"includes=1", NULL},
	    {"include", NULL},
	    {"filename=include x", NULL},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = sb_ft_fio_include(cases[i].line);
		if (!got != !cases[i].want || (got && strcmp(got, cases[i].want)))
			fail_msg("case %zu '%s': got '%s', want '%s'", i, cases[i].line,
				 got ? got : "(none)", cases[i].want ? cases[i].want : "(none)");
		free(got);
	}
}

static void test_mkfs_tool(void **state)
{
	assert_ptr_equal(sb_ft_mkfs_tool("ext4"), &sb_ft_mke2fs);
	assert_ptr_equal(sb_ft_mkfs_tool("ext3"), &sb_ft_mke2fs);
	assert_ptr_equal(sb_ft_mkfs_tool("xfs"), &sb_ft_mkfs_xfs);
	assert_ptr_equal(sb_ft_mkfs_tool("btrfs"), &sb_ft_mkfs_btrfs);
	assert_ptr_equal(sb_ft_mkfs_tool(NULL), &sb_ft_mkfs_any);
	assert_ptr_equal(sb_ft_mkfs_tool("zfs"), &sb_ft_mkfs_any);
}

/* The fuzz target's seeds (fuzz/corpus/freetext) through its entry. */
static void test_fuzz_seeds(void **state)
{
	DIR *d = opendir("fuzz/corpus/freetext");
	struct dirent *e;
	unsigned n = 0;

	assert_non_null(d);
	while ((e = readdir(d))) {
		char path[512], buf[4096];
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "fuzz/corpus/freetext/%s", e->d_name);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		assert_true(fd >= 0);
		ssize_t len = read(fd, buf, sizeof(buf));
		close(fd);
		assert_true(len >= 0);
		sb_fuzz_freetext((const uint8_t *)buf, (size_t)len);
		n++;
	}
	closedir(d);
	assert_true(n >= 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_words),      cmocka_unit_test(test_fio),
	    cmocka_unit_test(test_include),    cmocka_unit_test(test_mkfs_tool),
	    cmocka_unit_test(test_fuzz_seeds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

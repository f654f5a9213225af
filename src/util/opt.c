/* See opt.h. */
#include "util/opt.h"
#include "util/log.h"
#include "util/suggest.h"

#include <getopt.h>
#include <stdarg.h>
#include <string.h>

enum { OPT_QUIET = 'q', OPT_VERBOSE = 'v', OPT_HELP = 'h' };

static const struct sb_opt common_opts[] = {
    {"quiet", OPT_QUIET, NULL, "print only results and errors"},
    {"verbose", OPT_VERBOSE, NULL, "print every step and command (twice: debug)"},
    {"help", OPT_HELP, NULL, "show this help"},
    {0},
};

int sb_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "stackbench %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'stackbench %s --help' for more information.\n", cmd);
	return 2;
}

static size_t count_opts(const struct sb_opt *o)
{
	size_t n = 0;
	while (o && o[n].name)
		n++;
	return n;
}

void sb_opt_help(FILE *f, const struct sb_cmdline *cl)
{
	const struct sb_opt *tabs[2] = {cl->opts, common_opts};

	fprintf(f, "Usage: stackbench %s %s\n\n%s\n\nOptions:\n", cl->cmd, cl->usage, cl->about);
	for (int t = 0; t < 2; t++) {
		for (const struct sb_opt *o = tabs[t]; o && o->name; o++) {
			char left[64];
			if (o->key > 0 && o->key < 256)
				snprintf(left, sizeof(left), "-%c, --%s%s%s", o->key, o->name,
					 o->arg ? " " : "", o->arg ? o->arg : "");
			else
				snprintf(left, sizeof(left), "    --%s%s%s", o->name,
					 o->arg ? " " : "", o->arg ? o->arg : "");
			fprintf(f, "  %-28s %s\n", left, o->help);
		}
	}
}

int sb_opt_parse(const struct sb_cmdline *cl, int argc, char **argv, char ***rest, int *n_rest)
{
	size_t n = count_opts(cl->opts), nc = count_opts(common_opts), k = 0;
	struct option lopts[n + nc + 1];
	char shorts[2 * (n + nc) + 3];
	const char *names[n + nc + 1]; /* + 1: never a zero-length array */
	size_t s = 0;
	int c, r;

	/* Leading ':' so that a missing argument is told apart from an unknown option. */
	shorts[s++] = ':';
	for (int t = 0; t < 2; t++) {
		const struct sb_opt *tab = t ? common_opts : cl->opts;
		for (const struct sb_opt *o = tab; o && o->name; o++) {
			lopts[k] = (struct option){
			    o->name, o->arg ? required_argument : no_argument, NULL, o->key};
			names[k] = o->name;
			k++;
			if (o->key > 0 && o->key < 256) {
				shorts[s++] = (char)o->key;
				if (o->arg)
					shorts[s++] = ':';
			}
		}
	}
	lopts[k] = (struct option){0};
	shorts[s] = '\0';

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, shorts, lopts, NULL)) != -1) {
		switch (c) {
		case OPT_HELP:
			sb_opt_help(stdout, cl);
			return -1;
		case OPT_QUIET:
			sb_log_level = SB_LOG_QUIET;
			continue;
		case OPT_VERBOSE:
			if (sb_log_level < SB_LOG_DEBUG)
				sb_log_level++;
			continue;
		case ':':
			return sb_usage_error(cl->cmd, "option '%s' needs an argument",
					      argv[optind - 1]);
		case '?': {
			const char *bad = argv[optind - 1];
			if (optopt && optopt < 256)
				return sb_usage_error(cl->cmd, "unknown option '-%c'", optopt);
			if (strncmp(bad, "--", 2) == 0) {
				char word[64];
				snprintf(word, sizeof(word), "%s", bad + 2);
				word[strcspn(word, "=")] = '\0';
				const char *sug = sb_suggest(word, names, k);
				if (sug)
					return sb_usage_error(
					    cl->cmd, "unknown option '%s' (did you mean '--%s'?)",
					    bad, sug);
			}
			return sb_usage_error(cl->cmd, "unknown option '%s'", bad);
		}
		default:
			r = cl->on_opt ? cl->on_opt(c, optarg, cl->ud) : 2;
			if (r)
				return r;
		}
	}
	*rest = argv + optind;
	*n_rest = argc - optind;
	return 0;
}

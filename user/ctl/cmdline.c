// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The one parser of rdmanetctl's command line: global options anywhere,
 * then OBJECT [VERB] [ARG] [OPTIONS], each checked against the tables in
 * cmdline.h. "help", -h and --help at any depth ask for help at that depth
 * and nothing else happens (no config read, no store or bpffs opened). */
#include <stdarg.h>
#include <string.h>

#include "cmdline.h"
#include "config.h"

const struct ctl_opt ctl_global_opts[] = {
	{ "--json", "-j", NULL, "JSON output" },
	{ "--pretty", "-p", NULL, "indented JSON" },
	{ "--config", "-c", "FILE", "node config (default " RN_DEFAULT_CONFIG ", or $RDMANET_CONFIG)" },
	{ "--pin-dir", NULL, "DIR", "bpffs pin directory (default $RDMANET_PIN_DIR, the config's, "
	  "or " RN_DEFAULT_PIN_DIR ")" },
	{ "--verbose", "-v", NULL, "debug log on stderr" },
	{ "--help", "-h", NULL, "help for the object or verb it follows" },
	{ "--version", "-V", NULL, "the version and the commit it was built from" },
	{ NULL },
};

static bool opt_is(const struct ctl_opt *o, const char *name)
{
	return !strcmp(o->name, name) || (o->alias && !strcmp(o->alias, name));
}

const struct ctl_opt *ctl_find_opt(const struct ctl_opt *opts, const char *name)
{
	for (; opts && opts->name; opts++)
		if (opt_is(opts, name))
			return opts;
	return NULL;
}

const struct ctl_object *ctl_find_object(const char *name)
{
	for (int i = 0; i < ctl_n_objects; i++)
		if (!strcmp(ctl_objects[i]->name, name))
			return ctl_objects[i];
	return NULL;
}

const struct ctl_verb *ctl_find_verb(const struct ctl_object *o, const char *name)
{
	for (const struct ctl_verb *v = o->verbs; v->run; v++)
		if (v->name && (!strcmp(v->name, name) || (v->alias && !strcmp(v->alias, name))))
			return v;
	return NULL;
}

const char *ctl_arg(const struct ctl_args *a, const char *name)
{
	for (int i = a->n - 1; i >= 0; i--)
		if (opt_is(a->v[i].opt, name))
			return a->v[i].val;
	return NULL;
}

bool ctl_flag(const struct ctl_args *a, const char *name)
{
	for (int i = 0; i < a->n; i++)
		if (opt_is(a->v[i].opt, name))
			return true;
	return false;
}

int ctl_usage(const struct ctl_args *a, const char *fmt, ...)
{
	va_list ap;

	fputs("rdmanetctl: ", stderr);
	if (a && a->obj) {
		fputs(a->obj->name, stderr);
		if (a->verb && a->verb->name && a->verb_named)
			fprintf(stderr, " %s", a->verb->name);
		fputs(": ", stderr);
	}
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (a && a->obj)
		fprintf(stderr, "; see 'rdmanetctl %s help'\n", a->obj->name);
	else
		fputs("; see 'rdmanetctl help'\n", stderr);
	return CTL_EXIT_USAGE;
}

/* A global option at argv[*i]: 1 if it was one (its value consumed too),
 * 0 if not, CTL_EXIT_USAGE if its value is missing. */
static int global_opt(int argc, char **argv, int *i, struct ctl_globals *g,
		      const struct ctl_args *a)
{
	const struct ctl_opt *o = ctl_find_opt(ctl_global_opts, argv[*i]);
	const char *val = NULL;

	if (!o)
		return 0;
	if (o->arg) {
		if (*i + 1 >= argc)
			return ctl_usage(a, "%s needs a value (%s)", argv[*i], o->arg);
		val = argv[++*i];
	}
	if (!strcmp(o->name, "--json"))
		g->json = true;
	else if (!strcmp(o->name, "--pretty"))
		g->pretty = true;
	else if (!strcmp(o->name, "--config"))
		g->config_path = val;
	else if (!strcmp(o->name, "--pin-dir"))
		g->pin_dir = val;
	else if (!strcmp(o->name, "--verbose"))
		g->verbose++;
	else if (!strcmp(o->name, "--help"))
		g->help = true;
	else if (!strcmp(o->name, "--version"))
		g->version = true;
	return 1;
}

static bool only_one_verb(const struct ctl_object *o)
{
	return o->verbs[0].run && !o->verbs[1].run;
}

/* The token after the object: its verb, or the first argument of the
 * default verb. Returns 1 if the token was the verb (consumed). */
static int pick_verb(const char *tok, struct ctl_args *a)
{
	const struct ctl_object *o = a->obj;
	const struct ctl_verb *v = ctl_find_verb(o, tok);

	if (v) {
		a->verb = v;
		a->verb_named = true;
		return 1;
	}
	if (o->default_verb)
		a->verb = ctl_find_verb(o, o->default_verb);
	if (!a->verb && tok[0] == '-') {
		ctl_usage(a, "a verb comes before \"%s\"", tok);
		return -1;
	}
	if (!a->verb || (tok[0] != '-' && !a->verb->pos)) {
		if (only_one_verb(o))
			ctl_usage(a, "unexpected argument \"%s\"", tok);
		else
			ctl_usage(a, "unknown verb \"%s\"", tok);
		return -1;
	}
	return 0;
}

static int verb_arg(int argc, char **argv, int *i, struct ctl_args *a)
{
	const char *tok = argv[*i];
	const struct ctl_opt *o;

	if (tok[0] != '-' || !tok[1]) {
		if (!a->verb->pos || a->pos)
			return ctl_usage(a, "unexpected argument \"%s\"", tok);
		a->pos = tok;
		return 0;
	}
	o = ctl_find_opt(a->verb->opts, tok);
	if (!o)
		return ctl_usage(a, "unexpected argument \"%s\"", tok);
	if (a->n >= CTL_MAX_ARGS)
		return ctl_usage(a, "more than %d options", CTL_MAX_ARGS);
	a->v[a->n].opt = o;
	a->v[a->n].val = NULL;
	if (o->arg) {
		if (*i + 1 >= argc)
			return ctl_usage(a, "%s needs a value (%s)", tok, o->arg);
		a->v[a->n].val = argv[++*i];
	}
	a->n++;
	return 0;
}

/* A verb's flag given before the object (`rdmanetctl -b stats`, as `ip -s
 * link`): checked once the verb is known. A verb option that takes a value
 * goes after the verb (before it, its value would read as the object). */
static int early_flags(char **early, int n_early, struct ctl_args *a)
{
	for (int k = 0; k < n_early; k++) {
		const struct ctl_opt *o = ctl_find_opt(a->verb->opts, early[k]);

		if (!o)
			return ctl_usage(a, "unexpected argument \"%s\"", early[k]);
		if (o->arg)
			return ctl_usage(a, "%s %s goes after the object", early[k], o->arg);
		if (a->n >= CTL_MAX_ARGS)
			return ctl_usage(a, "more than %d options", CTL_MAX_ARGS);
		a->v[a->n].opt = o;
		a->v[a->n++].val = NULL;
	}
	return 0;
}

/* "rdmanetctl --pod a/b stats": the value read as the object */
static int unknown_object(const char *tok, char **early, int n_early)
{
	for (int i = 0; n_early && i < ctl_n_objects; i++)
		for (const struct ctl_verb *v = ctl_objects[i]->verbs; v->run; v++) {
			const struct ctl_opt *o = ctl_find_opt(v->opts, early[n_early - 1]);

			if (o && o->arg)
				return ctl_usage(NULL, "%s %s goes after the object", o->name,
						 o->arg);
		}
	return ctl_usage(NULL, "unknown object \"%s\"", tok);
}

/* Every required option given, or one usage error naming all of them
 * (checked before the config is read: nothing is opened for a bad line). */
static int required_opts(const struct ctl_args *a)
{
	const struct ctl_opt *o;
	char names[256];
	size_t used = 0;
	int n = 0, missing = 0;

	for (o = a->verb->opts; o && o->name; o++) {
		if (!o->required)
			continue;
		n++;
		/* an empty value is no value (--namespace "") */
		missing |= !ctl_flag(a, o->name) || (o->arg && !*ctl_arg(a, o->name));
	}
	if (!missing)
		return 0;
	names[0] = '\0';
	for (o = a->verb->opts; o && o->name && used < sizeof(names); o++) {
		if (!o->required)
			continue;
		n--;
		used += (size_t)snprintf(names + used, sizeof(names) - used, "%s%s",
					 !used ? "" : n ? ", " : " and ", o->name);
	}
	return ctl_usage(a, "%s %s required", names, strchr(names, ' ') ? "are" : "is");
}

static void verbs_text(const struct ctl_object *o, char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	for (const struct ctl_verb *v = o->verbs; v->run && used < size; v++)
		used += (size_t)snprintf(buf + used, size - used, "%s%s", used ? ", " : "",
					 v->name);
}

int ctl_parse(int argc, char **argv, struct ctl_globals *g, struct ctl_args *a)
{
	char *early[CTL_MAX_ARGS];
	int n_early = 0;
	char verbs[256];

	memset(a, 0, sizeof(*a));
	for (int i = 1; i < argc; i++) {
		const char *tok = argv[i];
		int rc = global_opt(argc, argv, &i, g, a);

		if (rc < 0 || rc > 1)
			return CTL_EXIT_USAGE;
		if (rc)
			continue;
		/* "help" anywhere, as ip's `ip link help`: help at this depth */
		if (!strcmp(tok, "help")) {
			g->help = true;
			continue;
		}
		if (!a->obj) {
			if (tok[0] == '-' && n_early < CTL_MAX_ARGS) {
				early[n_early++] = argv[i];
				continue;
			}
			a->obj = ctl_find_object(tok);
			if (!a->obj)
				return unknown_object(tok, early, n_early);
			if (only_one_verb(a->obj) && !a->obj->verbs[0].name)
				a->verb = &a->obj->verbs[0];
			continue;
		}
		if (!a->verb) {
			rc = pick_verb(tok, a);
			if (rc < 0)
				return CTL_EXIT_USAGE;
			if (rc)
				continue;
		}
		if (verb_arg(argc, argv, &i, a))
			return CTL_EXIT_USAGE;
	}
	if (g->help || g->version)
		return 0;
	if (!a->obj)
		return n_early ? ctl_usage(NULL, "unknown option \"%s\"", early[0]) :
				 ctl_usage(NULL, "which object?");
	if (!a->verb && a->obj->default_verb)
		a->verb = ctl_find_verb(a->obj, a->obj->default_verb);
	if (!a->verb) {
		verbs_text(a->obj, verbs, sizeof(verbs));
		return ctl_usage(a, "which verb? (%s)", verbs);
	}
	return early_flags(early, n_early, a) ?: required_opts(a);
}

/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* rdmanetctl's command line as data: objects, their verbs, each verb's
 * options with the name of their value and a one-line description. One
 * parser reads argv against these tables, and the help text, the man page
 * and the shell completion are printed from the same tables, so none of
 * them can say something the parser does not do. */
#ifndef RDMANET_CTL_CMDLINE_H
#define RDMANET_CTL_CMDLINE_H

#include <stdbool.h>
#include <stdio.h>

struct ctl;
struct ctl_args;

struct ctl_opt {
	const char *name;	/* "--pod" */
	const char *alias;	/* "-b", "--ips"; NULL if none */
	const char *arg;	/* the value's name ("NS/NAME"); NULL: a flag */
	const char *help;	/* one line */
	bool required;		/* the parser refuses the verb without it */
};

struct ctl_verb {
	const char *name;	/* NULL: the object itself is the command (stats) */
	const char *alias;	/* "delete" for "del"; NULL if none */
	const char *pos;	/* positional argument in the usage ("[DEV]"); NULL: none */
	const struct ctl_opt *opts;	/* ends with { NULL } */
	int (*run)(struct ctl *ctl, const struct ctl_args *a);
	const char *help;	/* one line */
	const char *usage;	/* extra usage line(s) beyond options; NULL if none */
	/* The values' checks (a usage error, exit 2), run before the node
	 * config is read: a bad value is told as such, whatever the config
	 * file holds. NULL: run checks them all. */
	int (*check)(const struct ctl_args *a);
};

struct ctl_object {
	const char *name;
	const char *help;	/* one line */
	const struct ctl_verb *verbs;	/* ends with { .run = NULL } */
	const char *default_verb;	/* run when no verb is given; NULL: one is required */
	bool no_config;		/* runs without reading the node config */
};

#define CTL_MAX_ARGS 64

/* One command line, parsed. Options keep their command-line order (pool
 * add builds lists from repeated --range/--route). */
struct ctl_args {
	const struct ctl_object *obj;
	const struct ctl_verb *verb;
	bool verb_named;	/* the verb was on the line (not the default) */
	int n;
	struct {
		const struct ctl_opt *opt;
		const char *val;	/* NULL for a flag */
	} v[CTL_MAX_ARGS];
	const char *pos;	/* the positional argument, or NULL */
};

/* The last value given for option NAME, or NULL. */
const char *ctl_arg(const struct ctl_args *a, const char *name);
/* Whether option NAME was given. */
bool ctl_flag(const struct ctl_args *a, const char *name);

/* Every object, in the order the help lists them. */
extern const struct ctl_object *const ctl_objects[];
extern const int ctl_n_objects;

/* The global options (accepted anywhere on the line). */
extern const struct ctl_opt ctl_global_opts[];

/* What the global options asked for. */
struct ctl_globals {
	const char *config_path, *pin_dir;
	bool json, pretty, help, version;
	int verbose;
};

/* Reads argv against the tables into g and a. Returns 0, or
 * CTL_EXIT_USAGE after ctl_usage() said what is wrong. With g->help or
 * g->version set, a->obj and a->verb say how deep the help goes. */
int ctl_parse(int argc, char **argv, struct ctl_globals *g, struct ctl_args *a);

#define CTL_EXIT_USAGE 2

/* A usage error: one line "rdmanetctl: OBJ VERB: msg; see 'rdmanetctl OBJ
 * help'" on stderr; returns CTL_EXIT_USAGE. a may be NULL (no object yet). */
int ctl_usage(const struct ctl_args *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Help for the whole tool, one object, or one verb (verb may be NULL). */
void ctl_help_all(FILE *f);
void ctl_help_object(FILE *f, const struct ctl_object *o);
void ctl_help_verb(FILE *f, const struct ctl_object *o, const struct ctl_verb *v);
/* The man page of rdmanetctl (roff), from the tables. */
void ctl_man_page(FILE *f, const char *version);
/* Completion candidates for words[0..n-1] with words[cur] being completed
 * (words[0] is the first word after "rdmanetctl"), one per line. */
void ctl_complete(FILE *f, int n, char **words, int cur);

const struct ctl_object *ctl_find_object(const char *name);
const struct ctl_verb *ctl_find_verb(const struct ctl_object *o, const char *name);
const struct ctl_opt *ctl_find_opt(const struct ctl_opt *opts, const char *name);

/* A verb's usage synopsis: "pod add --namespace NS ... [-j]" into buf. */
const char *ctl_verb_synopsis(const struct ctl_object *o, const struct ctl_verb *v, char *buf,
			      size_t size);

#endif

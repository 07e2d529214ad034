// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* rdmanetctl's help, printed from the tables the parser reads
 * (cmdline.h): `rdmanetctl help`, `rdmanetctl OBJ help`, `rdmanetctl OBJ
 * VERB --help`. */
#include <string.h>

#include "cmdline.h"

static size_t append(char *buf, size_t size, size_t used, const char *s)
{
	size_t n = strlen(s);

	if (used + n >= size)
		n = used + 1 < size ? size - used - 1 : 0;
	memcpy(buf + used, s, n);
	buf[used + n] = '\0';
	return used + n;
}

const char *ctl_verb_synopsis(const struct ctl_object *o, const struct ctl_verb *v, char *buf,
			      size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	used = append(buf, size, used, o->name);
	if (v->name) {
		used = append(buf, size, used, " ");
		used = append(buf, size, used, v->name);
	}
	if (v->pos) {
		used = append(buf, size, used, " ");
		used = append(buf, size, used, v->pos);
	}
	for (const struct ctl_opt *p = v->opts; p && p->name; p++) {
		used = append(buf, size, used, p->required ? " " : " [");
		used = append(buf, size, used, p->alias && p->alias[1] != '-' ? p->alias : p->name);
		if (p->arg) {
			used = append(buf, size, used, " ");
			used = append(buf, size, used, p->arg);
		}
		if (!p->required)
			used = append(buf, size, used, "]");
	}
	return buf;
}

static void print_opts(FILE *f, const struct ctl_opt *opts, const char *indent)
{
	for (const struct ctl_opt *p = opts; p && p->name; p++) {
		char head[64];

		if (p->alias && p->alias[1] != '-')
			snprintf(head, sizeof(head), "%s, %s%s%s", p->alias, p->name,
				 p->arg ? " " : "", p->arg ? p->arg : "");
		else if (p->alias)
			snprintf(head, sizeof(head), "%s%s%s (or %s)", p->name, p->arg ? " " : "",
				 p->arg ? p->arg : "", p->alias);
		else
			snprintf(head, sizeof(head), "%s%s%s", p->name, p->arg ? " " : "",
				 p->arg ? p->arg : "");
		fprintf(f, "%s%-24s %s%s\n", indent, head, p->help, p->required ? " (required)" : "");
	}
}

static void print_globals(FILE *f)
{
	fprintf(f, "\nglobal options (anywhere on the line):\n");
	print_opts(f, ctl_global_opts, "  ");
}

void ctl_help_verb(FILE *f, const struct ctl_object *o, const struct ctl_verb *v)
{
	char syn[1024];

	fprintf(f, "usage: rdmanetctl %s\n", ctl_verb_synopsis(o, v, syn, sizeof(syn)));
	if (v->usage)
		fprintf(f, "%s\n", v->usage);
	fprintf(f, "\n%s\n", v->help);
	if (v->name && v->alias)
		fprintf(f, "(\"%s %s\" is the same)\n", o->name, v->alias);
	if (o->default_verb && v->name && !strcmp(v->name, o->default_verb))
		fprintf(f, "(\"rdmanetctl %s\" alone runs it)\n", o->name);
	if (v->opts && v->opts->name) {
		fprintf(f, "\noptions:\n");
		print_opts(f, v->opts, "  ");
	}
	print_globals(f);
}

void ctl_help_object(FILE *f, const struct ctl_object *o)
{
	char syn[1024];
	const char *lead = "usage:";

	if (!o->verbs[1].run) {
		ctl_help_verb(f, o, &o->verbs[0]);
		return;
	}
	for (const struct ctl_verb *v = o->verbs; v->run; v++) {
		fprintf(f, "%-6s rdmanetctl %s\n", lead, ctl_verb_synopsis(o, v, syn, sizeof(syn)));
		lead = "";
	}
	fprintf(f, "\n%s\n", o->help);
	if (o->default_verb)
		fprintf(f, "\"rdmanetctl %s\" alone runs \"%s %s\".\n", o->name, o->name,
			o->default_verb);
	fprintf(f, "\nverbs:\n");
	for (const struct ctl_verb *v = o->verbs; v->run; v++) {
		fprintf(f, "  %-22s %s\n", v->name, v->help);
		print_opts(f, v->opts, "      ");
	}
	fprintf(f, "\n'rdmanetctl %s VERB --help' for one verb.\n", o->name);
	print_globals(f);
}

void ctl_help_all(FILE *f)
{
	fprintf(f, "usage: rdmanetctl [OPTIONS] OBJECT [VERB] [ARG] [OPTIONS]\n"
		   "       rdmanetctl help [OBJECT [VERB]]\n"
		   "       rdmanetctl OBJECT help | OBJECT [VERB] --help\n"
		   "       rdmanetctl -V|--version\n\nobjects:\n");
	for (int i = 0; i < ctl_n_objects; i++) {
		const struct ctl_object *o = ctl_objects[i];

		fprintf(f, "  %-10s %s\n", o->name, o->help);
		if (o->verbs[1].run) {
			fprintf(f, "  %-10s verbs:", "");
			for (const struct ctl_verb *v = o->verbs; v->run; v++)
				fprintf(f, " %s", v->name);
			fprintf(f, "\n");
		}
	}
	print_globals(f);
	fprintf(f, "\nexit status: 0 success, 1 failure, 2 usage error, 75 IPAM store busy "
		   "(try again)\n");
}

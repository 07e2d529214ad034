// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* rdmanetctl(8), printed from the parser's tables (`rdmanetctl __man`,
 * run by the build): every object, verb and option the parser takes is in
 * the page, and nothing else. */
#include <string.h>

#include "cmdline.h"

/* roff text: '-' as \-, '\' as \e, and no line starting with '.' or '\'' */
static void roff(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '-')
			fputs("\\-", f);
		else if (*s == '\\')
			fputs("\\e", f);
		else
			fputc(*s, f);
	}
}

static void opt_list(FILE *f, const struct ctl_opt *o)
{
	for (; o && o->name; o++) {
		fputs(".TP\n.B ", f);
		if (o->alias && o->alias[1] != '-') {
			roff(f, o->alias);
			fputs(", ", f);
		}
		roff(f, o->name);
		if (o->arg) {
			fputs(" \\fI", f);
			roff(f, o->arg);
			fputs("\\fR", f);
		}
		if (o->alias && o->alias[1] == '-') {
			fputs(" (or ", f);
			roff(f, o->alias);
			fputs(")", f);
		}
		fputs("\n", f);
		roff(f, o->help);
		fputs(o->required ? " (required)\n" : "\n", f);
	}
}

static void verb_section(FILE *f, const struct ctl_object *o, const struct ctl_verb *v)
{
	char syn[1024];

	fputs(".TP\n.B rdmanetctl ", f);
	roff(f, ctl_verb_synopsis(o, v, syn, sizeof(syn)));
	fputs("\n", f);
	roff(f, v->help);
	if (v->name && v->alias) {
		fputs(" (also: ", f);
		roff(f, v->alias);
		fputs(")", f);
	}
	if (o->default_verb && v->name && !strcmp(v->name, o->default_verb)) {
		fputs("; the default: \\fBrdmanetctl ", f);
		roff(f, o->name);
		fputs("\\fR alone runs it", f);
	}
	fputs(".\n", f);
	if (v->opts && v->opts->name) {
		fputs(".RS\n", f);
		opt_list(f, v->opts);
		fputs(".RE\n", f);
	}
}

void ctl_man_page(FILE *f, const char *version)
{
	fputs(".TH RDMANETCTL 8 \"\" \"rdmanet ", f);
	roff(f, version);
	fputs("\" \"rdmanet\"\n"
	      ".SH NAME\nrdmanetctl \\- inspect and drive rdmanet on a node\n"
	      ".SH SYNOPSIS\n.B rdmanetctl\n[\\fIOPTIONS\\fR] \\fIOBJECT\\fR [\\fIVERB\\fR] "
	      "[\\fIARG\\fR] [\\fIOPTIONS\\fR]\n.br\n.B rdmanetctl help\n"
	      "[\\fIOBJECT\\fR [\\fIVERB\\fR]]\n.br\n.B rdmanetctl\n\\fIOBJECT\\fR "
	      "[\\fIVERB\\fR] \\fB\\-\\-help\\fR\n"
	      ".SH DESCRIPTION\n"
	      "rdmanetctl reads and changes what rdmanetd and the rdmanet CNI plugin keep on a "
	      "node: the data path's counters and pods, the RDMA devices and SR\\-IOV VFs, the "
	      "device plugin's resources, the IPAM store and the agent's health. "
	      "As with ip(8): an object, then a verb, a table by default and JSON with "
	      "\\fB\\-j\\fR. "
	      "\\fBhelp\\fR or \\fB\\-\\-help\\fR after any object or verb prints its usage and "
	      "touches nothing.\n"
	      ".SH OPTIONS\nAccepted anywhere on the line, before or after the object.\n", f);
	opt_list(f, ctl_global_opts);
	fputs(".SH COMMANDS\n", f);
	for (int i = 0; i < ctl_n_objects; i++) {
		const struct ctl_object *o = ctl_objects[i];

		fputs(".SS ", f);
		roff(f, o->name);
		fputs("\n", f);
		roff(f, o->help);
		fputs(".\n", f);
		for (const struct ctl_verb *v = o->verbs; v->run; v++)
			verb_section(f, o, v);
	}
	fputs(".SH EXIT STATUS\n"
	      ".TP\n.B 0\nsuccess\n"
	      ".TP\n.B 1\nfailure (one line on stderr says why)\n"
	      ".TP\n.B 2\nusage error: an unknown object, verb or option, a missing or bad "
	      "value\n"
	      ".TP\n.B 75\nthe IPAM store did not answer in time (pool, ip): try again\n"
	      ".SH ENVIRONMENT\n"
	      ".TP\n.B RDMANET_CONFIG\nthe node config when \\fB\\-c\\fR is not given\n"
	      ".TP\n.B RDMANET_PIN_DIR\nthe bpffs pin directory when \\fB\\-\\-pin\\-dir\\fR "
	      "is not given\n"
	      ".SH FILES\n"
	      ".TP\n.I /etc/rdmanet/config.json\nthe node config (all defaults if missing)\n"
	      ".TP\n.I /sys/fs/bpf/rdmanet\nthe data path's pinned maps\n"
	      ".SH SEE ALSO\n.BR rdmanetd (8),\n.BR rdmanet (8),\n.BR ip (8),\n.BR rdma (8)\n",
	      f);
}

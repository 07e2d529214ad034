// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Shell completion from the parser's tables: `rdmanetctl __complete CWORD
 * WORD...` prints the candidates for word CWORD (1 = the first word after
 * rdmanetctl), one per line; rdmanetctl.bash filters them by the prefix.
 * Nothing printed after an option that takes a value: the shell falls back
 * to file names. */
#include <string.h>

#include "cmdline.h"

static void opts(FILE *f, const struct ctl_opt *o)
{
	for (; o && o->name; o++) {
		fprintf(f, "%s\n", o->name);
		if (o->alias)
			fprintf(f, "%s\n", o->alias);
	}
}

/* "[shared|exclusive]": its words; "[DEV]", "NAME": nothing (not a word list) */
static void pos_words(FILE *f, const char *pos)
{
	char buf[128], *save = NULL;

	if (!pos || !strchr(pos, '|'))
		return;
	snprintf(buf, sizeof(buf), "%s", pos + (pos[0] == '['));
	buf[strcspn(buf, "]")] = '\0';
	for (char *w = strtok_r(buf, "|", &save); w; w = strtok_r(NULL, "|", &save))
		fprintf(f, "%s\n", w);
}

void ctl_complete(FILE *f, int n, char **words, int cur)
{
	const struct ctl_object *obj = NULL;
	const struct ctl_verb *verb = NULL;
	const char *word = cur >= 0 && cur < n ? words[cur] : "";

	if (cur < 0)
		return;
	for (int i = 0; i < cur && i < n; i++) {
		const struct ctl_opt *o = ctl_find_opt(ctl_global_opts, words[i]);

		if (!o && verb)
			o = ctl_find_opt(verb->opts, words[i]);
		if (o) {
			if (o->arg && ++i == cur)
				return;	/* completing an option's value */
			continue;
		}
		if (!obj) {
			obj = ctl_find_object(words[i]);
			if (obj && !obj->verbs[0].name)
				verb = &obj->verbs[0];
		} else if (!verb) {
			verb = ctl_find_verb(obj, words[i]);
			if (!verb && obj->default_verb)
				verb = ctl_find_verb(obj, obj->default_verb);
		}
	}
	if (word[0] == '-') {
		opts(f, ctl_global_opts);
		if (verb)
			opts(f, verb->opts);
		else if (obj && obj->default_verb)
			opts(f, ctl_find_verb(obj, obj->default_verb)->opts);
		return;
	}
	if (!obj) {
		for (int i = 0; i < ctl_n_objects; i++)
			fprintf(f, "%s\n", ctl_objects[i]->name);
		fprintf(f, "help\n");
		return;
	}
	if (!verb) {
		for (const struct ctl_verb *v = obj->verbs; v->run; v++)
			fprintf(f, "%s\n", v->name);
		fprintf(f, "help\n");
		if (obj->default_verb)
			pos_words(f, ctl_find_verb(obj, obj->default_verb)->pos);
		return;
	}
	pos_words(f, verb->pos);
}

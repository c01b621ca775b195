/*
 * rules.c - the table of legality rules (rules.h) and the function that
 * runs it.  Adding a rule: one file in this folder exporting
 * `const kp_rule kp_rule_NAME`, and one line in the table below.
 */
#include "rules.h"

#include <stdarg.h>
#include <string.h>

#include "util.h"

#define RULES(X) /* one line per rule, in the order they run */                                    \
	X(no_tile_load)                                                                            \
	X(loaded_tiles)                                                                            \
	X(dependences)                                                                             \
	X(partial_tile_write)                                                                      \
	X(step_invariant)                                                                          \
	X(cond_pure)                                                                               \
	X(store_order)                                                                             \
	X(hidden_induction)                                                                        \
	X(staged_address)                                                                          \
	X(tile_escapes)                                                                            \
	X(copy_trivial)                                                                            \
	X(copy_trips)                                                                              \
	X(macro_redefined)                                                                         \
	X(phase_effects)                                                                           \
	X(load_writes)                                                                             \
	X(volatile_load)

#define DECLARE(name) extern const kp_rule kp_rule_##name;
RULES(DECLARE)
#undef DECLARE

#define ENTRY(name) &kp_rule_##name,
const kp_rule *const kp_rules[] = {RULES(ENTRY) NULL};
#undef ENTRY
const int kp_nrules = (int)(sizeof(kp_rules) / sizeof(kp_rules[0])) - 1;

void kp_loop_vrefuse(kp_file *f, kp_loop *l, const kp_node *at, const char *id, const char *fmt,
		     va_list ap)
{
	for (int i = 0; i < l->nreasons; i++)
		if (!strcmp(l->reasons[i].id, id))
			return; /* one entry per id and loop */
	kp_reason *nr = kp_arena_alloc(&f->arena, sizeof(*nr) * (size_t)(l->nreasons + 1));
	if (l->nreasons)
		memcpy(nr, l->reasons, sizeof(*nr) * (size_t)l->nreasons);
	kp_strbuf sb = KP_STRBUF_INIT;
	kp_strbuf_vaddf(&sb, fmt, ap);
	nr[l->nreasons].id = id;
	nr[l->nreasons].message = kp_arena_strdup(&f->arena, kp_strbuf_str(&sb));
	nr[l->nreasons].line = at && at->line ? at->line : l->node->line;
	nr[l->nreasons].col = at && at->line ? at->col : l->node->col;
	kp_strbuf_release(&sb);
	l->reasons = nr;
	l->nreasons++;
}

void kp_rule_refuse(kp_rule_ctx *c, const kp_node *at, const char *id, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	kp_loop_vrefuse(c->f, c->l, at, id, fmt, ap);
	va_end(ap);
}

int kp_rule_loop_local(const kp_loop *l, const kp_decl *d)
{
	return d && d->in_main && l->body && l->body->in_main && d->begin >= l->body->begin &&
	       d->begin < l->body->end;
}

int kp_rule_direct_local_write(const kp_loop *l, const kp_effect *w)
{
	return w->loc.kind == KP_LOC_LOCAL &&
	       ((!w->via && !w->call && !w->by_asm) || kp_rule_loop_local(l, w->loc.decl));
}

void kp_rules_run(kp_rule_ctx *c)
{
	for (int i = 0; i < kp_nrules; i++)
		kp_rules[i]->check(c);
}

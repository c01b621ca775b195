/*
 * rules.h - the table of legality rules that run on a K-loop once the
 * analysis (analyze.c) has split it into phases and read its copies.
 *
 * Each rule is one file in this folder exporting one kp_rule descriptor,
 * and one line in the table of rules.c; analyze.c runs the table.  A rule
 * reads the loop and the model and refuses through kp_rule_refuse(): it
 * changes nothing else.  The effect sets (effects.h) are where rules about
 * what a phase reads and writes get their facts.
 */
#ifndef KPIPE_RULES_H
#define KPIPE_RULES_H

#include <stdarg.h>

#include "effects.h"
#include "loop.h"

struct kp_loop_rw;
struct kp_analyze_opts;

/* What a rule sees: the file, the kernel, the loop being analysed and,
 * for a template kernel analysed per instantiation, that instantiation's
 * value arguments (NULL when symbolic) and type arguments (NULL); and the
 * read and write sets of the loop's phases (analyze_int.h, kp_loop_rw). */
typedef struct kp_rule_ctx {
	kp_file *f;
	kp_kernel *k;
	kp_loop *l;
	const long long *iv;
	const kp_targ *targs;
	const struct kp_loop_rw *rw;
	const struct kp_analyze_opts *o; /* the analysis's options (block shape), or NULL */
} kp_rule_ctx;

typedef struct {
	const char *id;      /* the diagnostic id it refuses with, "kpipe-..." */
	const char *summary; /* one line, for docs and --list-rules */
	/* runs on a loop whose phases were found (l->load_b < l->load_e);
	 * refuses with kp_rule_refuse() */
	void (*check)(kp_rule_ctx *c);
} kp_rule;

/* Refuse the loop with diagnostic `id` at node `at` (NULL: the loop). */
void kp_rule_refuse(kp_rule_ctx *c, const kp_node *at, const char *id, const char *fmt, ...)
	KP_PRINTF(4, 5);
/* The same for loop l of file f, the message from fmt and ap (analyze.c's
 * own checks refuse through it too): one reason per id and loop. */
void kp_loop_vrefuse(kp_file *f, kp_loop *l, const kp_node *at, const char *id, const char *fmt,
		     va_list ap);

/* Whether d is declared in l's body: it starts afresh each iteration. */
int kp_rule_loop_local(const kp_loop *l, const kp_decl *d);
/* Whether write w (of any phase) is of a variable of the thread that
 * dependences.c's direct checks cover, which the effect rules leave
 * alone: a plain write of the variable itself (no alias, call or asm), or
 * a write of one declared in l's body. */
int kp_rule_direct_local_write(const kp_loop *l, const kp_effect *w);

/* The rules, in the order they run. */
extern const kp_rule *const kp_rules[];
extern const int kp_nrules;

/* Runs every rule of the table on c->l. */
void kp_rules_run(kp_rule_ctx *c);

#endif

/*
 * cmd_analyze.c - `kpipe analyze`: parses each file (with its
 * compile_commands.json entry's flags, and its target when --arch is not
 * given), analyses every candidate K-loop and prints what it found, as a
 * report for people (text) or as the stable JSON document described in
 * docs/json.md.  Each registered transform with facts of its own gets a
 * line (and a "variants" entry) from its descriptor (transform.h).
 */
#define _GNU_SOURCE
#include "analyze_targets.h"
#include "banks.h"
#include "cli.h"
#include "cmd.h"
#include "findings.h"
#include "plan.h"
#include "sarif.h"
#include "trial.h"
#include "batch.h"
#include "jobs.h"
#include "out_tree.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The options it takes (cli.h; -I, -D and -U for the listing of
 * kp_cli_list_options: the parser takes them anyway). */
const char *const kp_opts_analyze[] = {
	"--arch",     "--kernel",    "--format", "--cuda-path", "-p",       "--spec",
	"--threads",  "--extra-arg", "-v",       "--variant",   "--stages", "--header-filter",
	"--no-ptxas", "--block",     "-j",       "--exclude",   "-I",       "-D",
	"-U",         NULL,
};

static const char *guard_name(kp_guard_kind g)
{
	return g == KP_G_TERNARY ? "ternary" : g == KP_G_IFELSE ? "if-else" : "none";
}

static const char *vec_name(const kp_load *ld)
{
	if (ld->bytes == 16)
		return ld->vector > 1 ? "16-byte vector" : "16-byte";
	if (ld->bytes == 8)
		return ld->vector > 1 ? "8-byte vector" : "8-byte";
	return "scalar";
}

typedef struct {
	kp_decl **v;
	int n;
} decl_list;

static void add_decl(decl_list *l, kp_decl *d)
{
	for (int i = 0; i < l->n; i++)
		if (l->v[i] == d)
			return;
	l->v = kp_xrealloc(l->v, sizeof(*l->v) * (size_t)(l->n + 1));
	l->v[l->n++] = d;
}

static int collect_reads(kp_node *n, kp_node *parent, void *ud)
{
	(void)parent;
	if (n->kind == KP_N_DECLREF && n->decl && n->decl->is_shared)
		add_decl(ud, n->decl);
	return 1;
}

static void compute_reads(const kp_loop *l, decl_list *out)
{
	memset(out, 0, sizeof(*out));
	for (int i = l->comp_b; i < l->comp_e && i < l->nstmts; i++)
		kp_node_walk(l->stmts[i], NULL, collect_reads, out);
	/* and the tiles it reads through pointers set before the loop */
	for (int i = 0; i < l->ntiles; i++)
		if (l->tiles[i].naliases)
			add_decl(out, l->tiles[i].arr);
}

static int compute_writes_smem(const kp_loop *l)
{
	if (l->comp_writes_shared)
		return 1;
	for (int i = 0; i < l->nreasons; i++)
		if (!strcmp(l->reasons[i].id, "kpipe-compute-writes-tile"))
			return 1;
	return 0;
}

static void cliff_text(const kp_loop *l, const kp_arch *a, char *buf, size_t n)
{
	kp_budget b1, b2;
	kp_loop_budget(l, a, 1, &b1);
	kp_loop_budget(l, a, 2, &b2);
	if (b1.bytes < 0) {
		snprintf(buf, n, "unknown (tile sizes not constant)");
		return;
	}
	if (b2.occ.blocks_per_sm < b1.occ.blocks_per_sm)
		snprintf(buf, n, "crossed: double buffering drops %d -> %d blocks/SM (limit: %s)",
			 b1.occ.blocks_per_sm, b2.occ.blocks_per_sm, kp_limit_name(b2.occ.limiter));
	else {
		int cliff = kp_arch_smem_cliff(a, b1.occ.blocks_per_sm);
		snprintf(buf, n, "not crossed: %d blocks/SM up to %d B per block",
			 b2.occ.blocks_per_sm, cliff);
	}
}

/* One line per instantiation of a template kernel's loop: what was
 * checked for each (the report below shows the worst case). */
static void text_insts(kp_file *f, const kp_loop *l)
{
	int nx;
	const kp_transform *const *xs = kp_transform_all(&nx);
	for (int i = 0; i < l->nper_inst; i++) {
		const kp_loop *p = l->per_inst[i];
		printf("    instantiation <%s>: %s", p->inst,
		       p->eligible ? "eligible" : "not eligible");
		for (int r = 0; r < p->nreasons; r++)
			printf("%s%s", r ? ", " : " [", p->reasons[r].id);
		printf("%s; ", p->nreasons ? "]" : "");
		if (p->tile_bytes >= 0)
			printf("tiles %lld B, double-buffered %lld B", p->tile_bytes,
			       p->tile_bytes * 2 + p->other_smem);
		else
			printf("tile sizes unknown");
		for (int t = 0; t < nx; t++) {
			if (!kp_transform_reports_facts(xs[t]))
				continue;
			kp_xfacts x;
			kp_transform_facts(xs[t], f, p, &f->arena, &x);
			printf("; %s ", xs[t]->label);
			if (!x.ok)
				printf("no");
			else if (xs[t]->reports_regs && x.regs >= 0)
				printf("%d register%s per thread", x.regs, x.regs == 1 ? "" : "s");
			else
				printf("possible");
		}
		printf("\n");
	}
}

/* One transform's facts: "    cp.async: possible", "    register staging:
 * possible (2 registers per thread)", or why not. */
static void text_facts(kp_file *f, const kp_loop *l, const kp_arch *a, const kp_transform *t)
{
	kp_xfacts x;
	kp_transform_facts(t, f, l, &f->arena, &x);
	if (x.ok && !kp_transform_arch_ok(t, a)) {
		printf("    %s: not on %s (needs sm_%d or newer)\n", t->label, a->name, t->min_cc);
		return;
	}
	if (!x.ok || !t->reports_regs) {
		if (x.ok && x.note)
			printf("    %s: possible (%s)\n", t->label, x.note);
		else
			printf("    %s: %s\n", t->label,
			       x.ok        ? "possible"
			       : x.why_not ? x.why_not
					   : "no copies");
		return;
	}
	if (x.regs < 0) {
		int symbolic = 0;
		for (int i = 0; i < l->nloads; i++)
			for (int d = 0; d < l->loads[i].depth && d < 4; d++)
				symbolic |= l->loads[i].trips_symbolic[d];
		printf("    %s: possible (registers per thread not known%s)\n", t->label,
		       symbolic ? ": the copy loops count with template parameters" : "");
		return;
	}
	int regs_differ = 0;
	for (int i = 1; i < l->nper_inst; i++) {
		kp_xfacts x0, xi;
		kp_transform_facts(t, f, l->per_inst[0], &f->arena, &x0);
		kp_transform_facts(t, f, l->per_inst[i], &f->arena, &xi);
		regs_differ |= xi.regs != x0.regs;
	}
	if (regs_differ && x.regs_inst)
		printf("    %s: possible (%d registers per thread, the most of any "
		       "instantiation: <%s>)\n",
		       t->label, x.regs, x.regs_inst);
	else if (l->nper_inst > 1)
		printf("    %s: possible (%d registers per thread in every instantiation)\n",
		       t->label, x.regs);
	else
		printf("    %s: possible (%d registers per thread)\n", t->label, x.regs);
}

static void text_reasons(kp_file *f, const kp_loop *l)
{
	for (int i = 0; i < l->nreasons; i++)
		if (l->reasons[i].line > 0)
			printf("    %s:%d:%d: not eligible: %s [%s]\n", f->path, l->reasons[i].line,
			       l->reasons[i].col, l->reasons[i].message, l->reasons[i].id);
		else /* no position: never FILE:0:0 */
			printf("    %s: not eligible: %s [%s]\n", f->path, l->reasons[i].message,
			       l->reasons[i].id);
}

/* The compute/load ratio and the rule of thumb, for comparison: the plan
 * does not follow it. */
static void text_rule_of_thumb(kp_file *f, const kp_loop *l)
{
	const char *why, *rule = kp_ratio_rule(l, &f->arena, &why);
	if (l->ratio >= 0)
		printf("    compute/load: %.1f FLOP/B; ", l->ratio);
	else
		printf("    compute/load: unknown; ");
	printf("rule of thumb (not what kpipe picks): %s (%s)\n", rule, why);
}

/* A loop around K-loops: its header, the K-loop it holds, its reason. */
static void text_enclosing(kp_file *f, const kp_loop *l)
{
	printf("  loop %d at %s:%d:%d  [not a K-loop]\n", l->index, f->path, l->node->line,
	       l->node->col);
	if (l->cond && l->inc) {
		const char *it = l->init ? kp_node_text(f, l->init) : "";
		size_t il = strlen(it);
		printf("    header: for (%.*s; %s; %s)\n",
		       (int)(il && it[il - 1] == ';' ? il - 1 : il), it, kp_node_text(f, l->cond),
		       kp_node_text(f, l->inc));
	}
	printf("    encloses: the K-loop at line %d (a candidate of its own)\n", l->encloses_line);
	text_reasons(f, l);
}

/* The plan of an eligible loop (for each target when there are several). */
static void text_plan(kp_file *f, const kp_loop *l, const kp_cli *o)
{
	if (kp_an_multi(o)) {
		kp_an_text_targets(f, l, o);
		return;
	}
	kp_plan p;
	kp_plan_loop(&p, f, l, o->arch, o->variant, o->stages);
	if (p.xform && p.dynamic)
		printf("    plan: %s, %d stages: %s; tiles in dynamic shared memory, %lld B "
		       "per block (%d launch%s in this file)\n",
		       p.xform->name, p.stages, p.why, p.dyn_bytes, kp_plan_launches(f, l),
		       kp_plan_launches(f, l) == 1 ? "" : "es");
	else if (p.xform)
		printf("    plan: %s, %d stages: %s\n", p.xform->name, p.stages, p.why);
	else
		printf("    plan: refused [%s] %s\n", p.refuse_id, p.refuse_msg);
	if (p.xform && p.unchecked)
		printf("    launch: %s\n", p.unchecked);
}

static void text_loop(kp_file *f, const kp_loop *l, const kp_cli *o)
{
	const kp_arch *a = o->arch;
	if (l->encloses_line) {
		text_enclosing(f, l);
		return;
	}
	printf("  loop %d at %s:%d:%d  [%s]\n", l->index, f->path, l->node->line, l->node->col,
	       l->eligible            ? "eligible"
	       : l->already_pipelined ? "already pipelined"
				      : "not eligible");
	if (l->inst && l->nper_inst > 1)
		printf("    sizes from instantiation <%s> (the largest shared-memory need of %d "
		       "instantiations)\n",
		       l->inst, l->nper_inst);
	else if (l->inst)
		printf("    sizes from instantiation <%s>\n", l->inst);
	if (l->nper_inst > 1)
		text_insts(f, l);
	if (l->cond && l->inc) {
		const char *it = l->init ? kp_node_text(f, l->init) : "";
		size_t il = strlen(it);
		printf("    header: for (%.*s; %s; %s)\n",
		       (int)(il && it[il - 1] == ';' ? il - 1 : il), it, kp_node_text(f, l->cond),
		       kp_node_text(f, l->inc));
	}
	for (int i = 0; i < l->nind; i++) {
		const kp_induct *in = &l->ind[i];
		printf("    induction: %s %s= %s (%s)\n", in->var->name, in->sign < 0 ? "-" : "+",
		       in->step,
		       in->in_header    ? "loop counter"
		       : in->is_pointer ? "pointer bump in the body"
					: "bump in the body");
	}
	if (l->nind) {
		printf("    tile-count loop: %s; trip count computable: yes (from the loop "
		       "condition)",
		       l->tile_count ? "yes" : "no");
		if (l->trips >= 0)
			printf("; trips: %.0f at compile time%s", l->trips,
			       l->nper_inst > 1 ? " (the most of any instantiation)" : "");
		putchar('\n');
	}
	printf("    barriers: %d (%s)\n", l->nbarriers,
	       l->bar1 < 0              ? "none at top level"
	       : l->form == KP_FORM_TOP ? "at the top of the body and after the loads"
					: "after the loads and after the compute phase");
	if (l->nloads) {
		printf("    load phase:\n");
		for (int i = 0; i < l->nloads; i++) {
			const kp_load *ld = &l->loads[i];
			printf("      line %d: %s <- %s  %s, %lld B, %s", ld->line, ld->tile->name,
			       ld->src ? ld->src->name : "?", ld->elem_type, ld->bytes,
			       vec_name(ld));
			if (ld->guard != KP_G_NONE)
				printf(", guarded (%s, %s %s)", guard_name(ld->guard),
				       ld->guard_inverted ? "the condition storing" : "else",
				       ld->otherwise ? ld->otherwise : "?");
			if (ld->under_text)
				printf(", under %s", ld->under_text);
			if (ld->depth)
				printf(", in %d nested loop%s", ld->depth,
				       ld->depth > 1 ? "s" : "");
			if (ld->tmp_decl && ld->tmp_decl->nkids && ld->tmp_decl->kids[0]->decl)
				printf(", through the temporary '%s'",
				       ld->tmp_decl->kids[0]->decl->name);
			if (ld->via)
				printf(", staged in '%s'", ld->via->name);
			else if (!ld->pure)
				printf(", converting");
			printf("\n");
		}
	}
	if (l->loads_in_helper)
		printf("    load phase: through a __device__ helper\n");
	decl_list reads;
	compute_reads(l, &reads);
	printf("    compute: %s", kp_math_name(l->math));
	if (l->flops_thread >= 0)
		printf(", %.0f FLOP per thread per tile", l->flops_thread);
	if (l->flops_tile >= 0)
		printf(", %.0f per tile (%d threads from %s)", l->flops_tile, l->threads,
		       l->threads_from);
	printf("; reads");
	for (int i = 0; i < reads.n; i++)
		printf(" %s", reads.v[i]->name);
	if (!reads.n)
		printf(" nothing shared");
	printf("; writes shared: %s\n", compute_writes_smem(l) ? "yes" : "no");
	free(reads.v);
	for (int i = 0; i < l->ntiles; i++)
		for (int j = 0; j < l->tiles[i].naliases; j++)
			printf("    tile pointer: '%s' into %s, declared before the loop, read at the "
			       "current stage when the tile is doubled\n",
			       l->tiles[i].alias[j]->name, l->tiles[i].arr->name);
	if (l->ntiles) {
		printf("    shared arrays:\n");
		for (int i = 0; i < l->ntiles; i++) {
			const kp_tile *t = &l->tiles[i];
			printf("      %s %s", t->arr->elem_type, t->arr->name);
			for (int d = 0; d < t->arr->ndims; d++)
				printf("[%s]", t->arr->dim_text[d] ? t->arr->dim_text[d] : "?");
			if (t->bytes >= 0)
				printf("  %lld elements, %lld B", t->elems, t->bytes);
			else
				printf("  size unknown");
			printf("%s%s\n", t->loaded ? ", loaded tile" : "",
			       t->in_loop ? ", declared in the loop" : "");
		}
	}
	if (l->tile_bytes > 0) {
		printf("    shared-memory budget on %s (%s; %d KB/SM, static %d KB/block, opt-in %d KB/block):\n",
		       a->name, a->family, a->smem_per_sm / 1024, a->smem_static_per_block / 1024,
		       a->smem_optin_per_block / 1024);
		printf("      %-8s %10s %8s %8s %12s %10s\n", "stages", "bytes", "static", "opt-in",
		       "blocks/SM", "warps/SM");
		for (int s = 1; s <= 4; s++) {
			kp_budget b;
			kp_loop_budget(l, a, s, &b);
			printf("      %-8s %10lld %8s %8s %12d %10d\n",
			       s == 1   ? "single"
			       : s == 2 ? "double"
			       : s == 3 ? "3"
					: "4",
			       b.bytes, b.fits_static ? "fits" : "over",
			       b.fits_optin ? "fits" : "over", b.occ.blocks_per_sm,
			       b.occ.warps_per_sm);
		}
		char cl[200];
		cliff_text(l, a, cl, sizeof(cl));
		printf("      occupancy cliff: %s%s\n", cl,
		       l->threads ? "" : " (assuming 256 threads per block)");
	}
	text_rule_of_thumb(f, l);
	int nx;
	const kp_transform *const *xs = kp_transform_all(&nx);
	for (int t = 0; t < nx; t++)
		if (kp_transform_reports_facts(xs[t]))
			text_facts(f, l, a, xs[t]);
	if (l->eligible)
		text_plan(f, l, o);
	text_reasons(f, l);
}

static void json_induction(cJSON *j, const kp_loop *l)
{
	cJSON *ind = cJSON_AddArrayToObject(j, "induction");
	for (int i = 0; i < l->nind; i++) {
		cJSON *x = cJSON_CreateObject();
		cJSON_AddStringToObject(x, "variable", l->ind[i].var->name);
		cJSON_AddStringToObject(x, "step", l->ind[i].step);
		cJSON_AddNumberToObject(x, "sign", l->ind[i].sign);
		cJSON_AddStringToObject(x, "kind",
					l->ind[i].in_header    ? "counter"
					: l->ind[i].is_pointer ? "pointer-bump"
							       : "bump");
		cJSON_AddItemToArray(ind, x);
	}
}

static void json_loads(cJSON *j, const kp_loop *l)
{
	cJSON *loads = cJSON_AddArrayToObject(j, "loads");
	for (int i = 0; i < l->nloads; i++) {
		const kp_load *ld = &l->loads[i];
		cJSON *x = cJSON_CreateObject();
		cJSON_AddNumberToObject(x, "line", ld->line);
		cJSON_AddStringToObject(x, "tile", ld->tile->name);
		if (ld->src)
			cJSON_AddStringToObject(x, "source", ld->src->name);
		else
			cJSON_AddNullToObject(x, "source");
		cJSON_AddStringToObject(x, "type", ld->elem_type);
		cJSON_AddNumberToObject(x, "bytes", (double)ld->bytes);
		cJSON_AddNumberToObject(x, "vector", ld->vector);
		cJSON_AddStringToObject(x, "guard", guard_name(ld->guard));
		if (ld->guard_inverted)
			cJSON_AddTrueToObject(x, "guard_inverted");
		if (ld->otherwise)
			cJSON_AddStringToObject(x, "otherwise", ld->otherwise);
		if (ld->under_text)
			cJSON_AddStringToObject(x, "under", ld->under_text);
		cJSON_AddBoolToObject(x, "pure_copy", ld->pure);
		if (ld->via)
			cJSON_AddStringToObject(x, "staged_in", ld->via->name);
		cJSON_AddNumberToObject(x, "loop_depth", ld->depth);
		if (ld->tmp_decl && ld->tmp_decl->nkids && ld->tmp_decl->kids[0]->decl)
			cJSON_AddStringToObject(x, "temporary", ld->tmp_decl->kids[0]->decl->name);
		cJSON_AddItemToArray(loads, x);
	}
}

static void json_compute(cJSON *j, const kp_loop *l)
{
	cJSON *comp = cJSON_AddObjectToObject(j, "compute");
	cJSON_AddStringToObject(comp, "math", kp_math_name(l->math));
	if (l->flops_thread >= 0)
		cJSON_AddNumberToObject(comp, "flops_per_thread", l->flops_thread);
	else
		cJSON_AddNullToObject(comp, "flops_per_thread");
	if (l->flops_tile >= 0)
		cJSON_AddNumberToObject(comp, "flops_per_tile", l->flops_tile);
	else
		cJSON_AddNullToObject(comp, "flops_per_tile");
	cJSON_AddNumberToObject(comp, "threads", l->threads);
	if (l->threads_from)
		cJSON_AddStringToObject(comp, "threads_from", l->threads_from);
	decl_list reads;
	compute_reads(l, &reads);
	cJSON *rd = cJSON_AddArrayToObject(comp, "reads");
	for (int i = 0; i < reads.n; i++)
		cJSON_AddItemToArray(rd, cJSON_CreateString(reads.v[i]->name));
	free(reads.v);
	cJSON_AddBoolToObject(comp, "writes_shared", compute_writes_smem(l));
	cJSON *tp = NULL;
	for (int i = 0; i < l->ntiles; i++)
		for (int j = 0; j < l->tiles[i].naliases; j++) {
			if (!tp)
				tp = cJSON_AddArrayToObject(comp, "tile_pointers");
			cJSON *x = cJSON_CreateObject();
			cJSON_AddStringToObject(x, "pointer", l->tiles[i].alias[j]->name);
			cJSON_AddStringToObject(x, "tile", l->tiles[i].arr->name);
			cJSON_AddItemToArray(tp, x);
		}
}

static void json_shared(cJSON *j, const kp_loop *l)
{
	cJSON *sh = cJSON_AddArrayToObject(j, "shared");
	for (int i = 0; i < l->ntiles; i++) {
		const kp_tile *t = &l->tiles[i];
		cJSON *x = cJSON_CreateObject();
		cJSON_AddStringToObject(x, "name", t->arr->name);
		cJSON_AddStringToObject(x, "element_type", t->arr->elem_type);
		cJSON *dims = cJSON_AddArrayToObject(x, "dims");
		for (int d = 0; d < t->arr->ndims; d++)
			cJSON_AddItemToArray(dims, cJSON_CreateString(t->arr->dim_text[d]
									      ? t->arr->dim_text[d]
									      : "?"));
		if (t->bytes >= 0) {
			cJSON_AddNumberToObject(x, "elements", (double)t->elems);
			cJSON_AddNumberToObject(x, "bytes", (double)t->bytes);
		} else {
			cJSON_AddNullToObject(x, "elements");
			cJSON_AddNullToObject(x, "bytes");
		}
		cJSON_AddBoolToObject(x, "loaded", t->loaded);
		cJSON_AddBoolToObject(x, "declared_in_loop", t->in_loop);
		cJSON_AddItemToArray(sh, x);
	}
}

static void json_budget(cJSON *j, const kp_loop *l, const kp_arch *a)
{
	cJSON *bud = cJSON_AddArrayToObject(j, "budget");
	if (l->tile_bytes > 0)
		for (int s = 1; s <= 4; s++) {
			kp_budget b;
			kp_loop_budget(l, a, s, &b);
			cJSON *x = cJSON_CreateObject();
			cJSON_AddNumberToObject(x, "stages", s);
			cJSON_AddNumberToObject(x, "bytes", (double)b.bytes);
			cJSON_AddBoolToObject(x, "fits_static", b.fits_static);
			cJSON_AddBoolToObject(x, "fits_optin", b.fits_optin);
			cJSON_AddNumberToObject(x, "blocks_per_sm", b.occ.blocks_per_sm);
			cJSON_AddNumberToObject(x, "warps_per_sm", b.occ.warps_per_sm);
			cJSON_AddStringToObject(x, "limiter", kp_limit_name(b.occ.limiter));
			cJSON_AddItemToArray(bud, x);
		}
	char cl[200];
	cliff_text(l, a, cl, sizeof(cl));
	cJSON_AddStringToObject(j, "occupancy_cliff", cl);
}

/* "rule_of_thumb" (called "seed_rule" before 0.2: CHANGELOG.md) */
static void json_rule_of_thumb(cJSON *j, kp_file *f, const kp_loop *l)
{
	cJSON *rule = cJSON_AddObjectToObject(j, "rule_of_thumb");
	if (l->ratio >= 0)
		cJSON_AddNumberToObject(rule, "ratio", l->ratio);
	else
		cJSON_AddNullToObject(rule, "ratio");
	const char *why, *variant = kp_ratio_rule(l, &f->arena, &why);
	cJSON_AddStringToObject(rule, "variant", variant);
	cJSON_AddStringToObject(rule, "reason", why);
}

/* The "variants" object of a loop: one object per registered transform
 * with facts of its own (transform.h), under its name.  top: the loop as
 * reported (also the target's verdict, and whose register count it is),
 * else one instantiation's. */
static void json_variants(cJSON *j, kp_file *f, const kp_loop *l, const kp_arch *a, int top)
{
	cJSON *var = cJSON_AddObjectToObject(j, "variants");
	int nx;
	const kp_transform *const *xs = kp_transform_all(&nx);
	for (int i = 0; i < nx; i++) {
		const kp_transform *t = xs[i];
		if (!kp_transform_reports_facts(t))
			continue;
		kp_xfacts x;
		kp_transform_facts(t, f, l, &f->arena, &x);
		int arch_ok = kp_transform_arch_ok(t, a);
		cJSON *o = cJSON_AddObjectToObject(var, t->name);
		cJSON_AddBoolToObject(o, "possible", x.ok && arch_ok);
		if (t->reports_regs) {
			cJSON_AddNumberToObject(o, "registers_per_thread", x.regs);
			if (top && l->nper_inst > 0 && x.regs_inst)
				cJSON_AddStringToObject(o, "registers_instantiation", x.regs_inst);
		}
		if (top && x.ok && !arch_ok)
			cJSON_AddStringToObject(o, "why_not",
						kp_arena_printf(&f->arena,
								"%s needs sm_%d or newer", t->label,
								t->min_cc));
		if (!x.ok && x.why_not)
			cJSON_AddStringToObject(o, "why_not", x.why_not);
		if (x.ok && x.note)
			cJSON_AddStringToObject(o, "note", x.note);
	}
}

static void json_plan(cJSON *j, kp_file *f, const kp_loop *l, const kp_cli *o)
{
	if (!l->eligible) {
		cJSON_AddNullToObject(j, "plan");
		return;
	}
	kp_plan p;
	kp_tplan tp;
	int asis_below = 0;
	if (kp_an_multi(o)) { /* the oldest target's (the per-target plans: "targets") */
		kp_plan_targets(&tp, f, l, &o->targets, o->variant, o->stages);
		p = *kp_tplan_for(&tp, o->targets.v[0]);
		if (tp.lo_asis) { /* the newer targets' plan; the older keep the loop */
			p = tp.hi;
			asis_below = tp.guard_cc;
		}
	} else
		kp_plan_loop(&p, f, l, o->arch, o->variant, o->stages);
	cJSON *pl = cJSON_AddObjectToObject(j, "plan");
	if (p.xform) {
		cJSON_AddStringToObject(pl, "variant", p.xform->name);
		cJSON_AddNumberToObject(pl, "stages", p.stages);
		cJSON_AddStringToObject(pl, "why", p.why);
		/* 0: static shared memory; else the bytes every launch passes */
		cJSON_AddNumberToObject(pl, "dynamic_smem", p.dynamic ? (double)p.dyn_bytes : 0);
		if (asis_below) /* the targets below sm_NN keep the loop as written */
			cJSON_AddNumberToObject(pl, "as_written_below", asis_below);
	} else {
		cJSON_AddNullToObject(pl, "variant");
		cJSON_AddStringToObject(pl, "refused", p.refuse_id);
		cJSON_AddStringToObject(pl, "why", p.refuse_msg);
	}
}

static void json_reasons(cJSON *j, const kp_loop *l)
{
	cJSON *rs = cJSON_AddArrayToObject(j, "reasons");
	for (int i = 0; i < l->nreasons; i++) {
		cJSON *x = cJSON_CreateObject();
		cJSON_AddStringToObject(x, "id", l->reasons[i].id);
		cJSON_AddStringToObject(x, "message", l->reasons[i].message);
		cJSON_AddNumberToObject(x, "line", l->reasons[i].line);
		cJSON_AddNumberToObject(x, "column", l->reasons[i].col);
		cJSON_AddItemToArray(rs, x);
	}
}

static void json_per_inst(cJSON *j, kp_file *f, const kp_loop *l, const kp_arch *a)
{
	if (l->nper_inst <= 0)
		return;
	cJSON *pi = cJSON_AddArrayToObject(j, "per_instantiation");
	for (int i = 0; i < l->nper_inst; i++) {
		const kp_loop *p = l->per_inst[i];
		cJSON *x = cJSON_CreateObject();
		cJSON_AddStringToObject(x, "instantiation", p->inst);
		cJSON_AddBoolToObject(x, "eligible", p->eligible);
		if (p->tile_bytes >= 0) {
			cJSON_AddNumberToObject(x, "tile_bytes", (double)p->tile_bytes);
			cJSON_AddNumberToObject(x, "double_buffered_bytes",
						(double)(p->tile_bytes * 2 + p->other_smem));
		} else {
			cJSON_AddNullToObject(x, "tile_bytes");
			cJSON_AddNullToObject(x, "double_buffered_bytes");
		}
		cJSON_AddNumberToObject(x, "other_shared_bytes", (double)p->other_smem);
		json_variants(x, f, p, a, 0);
		json_reasons(x, p);
		cJSON_AddItemToArray(pi, x);
	}
}

static cJSON *json_loop(kp_file *f, const kp_loop *l, const kp_cli *o)
{
	const kp_arch *a = o->arch;
	cJSON *j = cJSON_CreateObject();
	cJSON_AddNumberToObject(j, "index", l->index);
	cJSON_AddNumberToObject(j, "line", l->node->line);
	cJSON_AddNumberToObject(j, "column", l->node->col);
	cJSON_AddBoolToObject(j, "eligible", l->eligible);
	cJSON_AddBoolToObject(j, "already_pipelined", l->already_pipelined);
	if (l->encloses_line) /* only on a loop around K-loops */
		cJSON_AddNumberToObject(j, "encloses_line", l->encloses_line);
	if (l->inst)
		cJSON_AddStringToObject(j, "instantiation", l->inst);
	else
		cJSON_AddNullToObject(j, "instantiation");
	json_induction(j, l);
	if (l->cond)
		cJSON_AddStringToObject(j, "condition", kp_node_text(f, l->cond));
	cJSON_AddBoolToObject(j, "tile_count_loop", l->tile_count);
	cJSON_AddBoolToObject(j, "trip_count_computable", l->nind > 0 && l->cond);
	if (l->nind > 0 && l->trips >= 0)
		cJSON_AddNumberToObject(j, "trips", l->trips);
	cJSON_AddStringToObject(j, "barrier_form",
				l->bar1 < 0              ? "none"
				: l->form == KP_FORM_TOP ? "top"
							 : "bottom");
	cJSON_AddNumberToObject(j, "barriers", l->nbarriers);
	json_loads(j, l);
	cJSON_AddBoolToObject(j, "loads_in_helper", l->loads_in_helper);
	json_compute(j, l);
	json_shared(j, l);
	json_budget(j, l, a);
	json_rule_of_thumb(j, f, l);
	json_variants(j, f, l, a, 1);
	json_plan(j, f, l, o);
	if (l->eligible && kp_an_multi(o))
		kp_an_json_targets(j, f, l, o);
	json_per_inst(j, f, l, a);
	json_reasons(j, l);
	return j;
}

/* The analysis of one file's model: the main file (`from` NULL), or a
 * project header with kernels (f->headers) included from `from`.  The
 * launch description is looked up beside spec_path (the main file, which
 * launches the kernels). */
/* kp_trial_env.reparse for analyze: the unit parsed again with f's text
 * replaced. */
typedef struct {
	const kp_parse_opts *po;
	const char *path;
} an_reparse;

static kp_file *an_reparse_with(void *env, const kp_file *f, const char *text, size_t len,
				kp_file **tu)
{
	an_reparse *e = env;
	kp_parse_opts p2 = *e->po;
	kp_unsaved u = {f->abs_path, text, len};
	*tu = kp_xcalloc(1, sizeof(**tu));
	if (!f->abs_path) {
		p2.contents = text;
		p2.contents_len = len;
	} else {
		p2.unsaved = &u;
		p2.nunsaved = 1;
	}
	char *err = NULL;
	int prc = kp_parse(*tu, e->path, &p2, &err);
	free(err);
	return prc == KP_PARSE_OK ? kp_file_model_in(*tu, f) : NULL;
}

/* What rewrite's canon or inline pass does with a refused loop (trial.h),
 * shown in both formats: under the loop's JSON member named as the pass,
 * or one line of text with the pass's note or remark id. */
static void show_trial(const kp_trial_kind *k, const kp_trial_env *e, kp_file *f, const kp_loop *l,
		       cJSON *jloop)
{
	kp_edits ed = {0};
	kp_trial_result r;
	k->loop(e, f, l, &ed, &r);
	kp_edits_release(&ed);
	if (!r.status)
		return;
	if (jloop) {
		cJSON *x = cJSON_AddObjectToObject(jloop, k->name);
		cJSON_AddBoolToObject(x, "pipelined", r.status > 0);
		cJSON_AddStringToObject(x, "message", r.message);
		if (r.status > 0) {
			cJSON_AddStringToObject(x, "variant", r.variant);
			cJSON_AddNumberToObject(x, "stages", r.stages);
			if (r.why)
				cJSON_AddStringToObject(x, "why", r.why);
		}
	} else if (r.status > 0)
		printf("    rewrite: %s [%s]; then plan: %s, %d stages%s%s\n", r.message,
		       k->done_id, r.variant, r.stages, r.why ? ": " : "", r.why ? r.why : "");
	else
		printf("    rewrite: %s [%s]\n", r.message, k->refused_id);
}

/* "none of 4 shared accesses conflict", "1 of 3 global accesses
 * uncoalesced", "no shared access" */
static const char *found_text(kp_file *f, int found, int of, const char *space, const char *what)
{
	if (!of)
		return kp_arena_printf(&f->arena, "no %s access", space);
	if (!found)
		return kp_arena_printf(&f->arena, "none of %d %s accesses %s", of, space, what);
	return kp_arena_printf(&f->arena, "%d of %d %s accesses %s", found, of, space, what);
}

/* The bank conflicts and uncoalesced accesses of kernel k (banks.h):
 * in text a summary line (also when nothing is found) and the findings; in JSON (jk, the kernel's
 * object) the block shape, the counts, the findings and what was not analysed. */
static void report_memory(kp_file *f, const kp_kernel *k, const kp_analyze_opts *ao, cJSON *jk)
{
	kp_bk_block b;
	kp_bk_block_of(f, k, ao, &b);
	kp_bk_result r;
	kp_bk_analyze(f, k, &b, NULL, 0, &r);
	cJSON *jm = jk ? cJSON_AddObjectToObject(jk, "memory") : NULL, *jfind = NULL, *jna = NULL;
	static const char no_block[] = "no block shape known (--block, a launch description, a "
				       "<<<>>> launch with a constant block, --threads or "
				       "__launch_bounds__)";
	if (jm && !b.x) {
		cJSON_AddNullToObject(jm, "block");
		cJSON_AddStringToObject(jm, "note", no_block);
	} else if (jm) {
		cJSON *jb = cJSON_AddArrayToObject(jm, "block");
		cJSON_AddItemToArray(jb, cJSON_CreateNumber(b.x));
		cJSON_AddItemToArray(jb, cJSON_CreateNumber(b.y));
		cJSON_AddItemToArray(jb, cJSON_CreateNumber(b.z));
		cJSON_AddStringToObject(jm, "block_from", b.from);
	}
	if (!b.x && !r.n) { /* no block, and no fragment load to analyse without one */
		if (!jm)
			printf("  memory: not analysed: %s\n", no_block);
		return;
	}
	if (jm) {
		jfind = cJSON_AddArrayToObject(jm, "findings");
		jna = cJSON_AddArrayToObject(jm, "not_analysed");
	}
	int nsh = 0, nconf = 0, ngl = 0, nunc = 0, nna = 0;
	kp_strbuf lines = KP_STRBUF_INIT;
	for (int i = 0; i < r.n; i++) {
		const kp_bk_access *x = &r.acc[i];
		const char *id = NULL, *msg = kp_bk_finding(f, x, &id);
		nsh += x->space == KP_BK_SHARED;
		ngl += x->space == KP_BK_GLOBAL;
		nna += x->not_analysed != NULL;
		if (x->not_analysed && jna) {
			cJSON *y = cJSON_CreateObject();
			cJSON_AddStringToObject(y, "access", kp_node_text(f, x->node));
			cJSON_AddNumberToObject(y, "line", x->line);
			cJSON_AddNumberToObject(y, "column", x->col);
			cJSON_AddStringToObject(y, "reason", x->not_analysed);
			cJSON_AddItemToArray(jna, y);
		}
		if (!msg)
			continue;
		nconf += x->space == KP_BK_SHARED;
		nunc += x->space == KP_BK_GLOBAL;
		if (!jm) {
			kp_strbuf_addf(&lines, "    %s:%d:%d: warning: %s [%s]\n", f->path, x->line,
				       x->col, msg, id);
			continue;
		}
		cJSON *y = cJSON_CreateObject();
		cJSON_AddStringToObject(y, "id", id);
		cJSON_AddStringToObject(y, "message", msg);
		cJSON_AddNumberToObject(y, "line", x->line);
		cJSON_AddNumberToObject(y, "column", x->col);
		cJSON_AddStringToObject(y, "array", x->arr->name);
		cJSON_AddBoolToObject(y, "store", x->store);
		cJSON_AddNumberToObject(y, "bytes_per_lane", x->width);
		if (x->space == KP_BK_SHARED) {
			cJSON_AddNumberToObject(y, "degree", x->degree);
			cJSON_AddNumberToObject(y, "bank", x->bank);
			cJSON_AddStringToObject(y, "lanes", kp_bk_lanes_text(f, x->lanes));
			if (x->wmma && x->frag) { /* read as ldmatrix phases */
				cJSON_AddStringToObject(y, "wmma_fragment", x->frag);
				cJSON_AddNumberToObject(y, "row_stride", (double)x->row_stride);
			}
			if (x->ldmatrix)
				cJSON_AddNumberToObject(y, "ldmatrix", x->ldmatrix);
		} else {
			cJSON_AddNumberToObject(y, "sectors", x->sectors);
			cJSON_AddNumberToObject(y, "ideal_sectors", x->ideal);
		}
		cJSON_AddItemToArray(jfind, y);
	}
	if (jm) {
		cJSON_AddNumberToObject(jm, "shared_accesses", nsh);
		cJSON_AddNumberToObject(jm, "conflicted", nconf);
		cJSON_AddNumberToObject(jm, "global_accesses", ngl);
		cJSON_AddNumberToObject(jm, "uncoalesced", nunc);
	} else if (!b.x) /* the fragment loads alone */
		printf("  memory: %s; wmma fragment loads only (a fragment's banks follow its "
		       "row stride, not the block): %s, %d not analysed\n",
		       no_block, found_text(f, nconf, nsh, "fragment", "conflict"), nna);
	else /* always, "none" when nothing is found */
		printf("  memory: block %dx%dx%d from %s; %s, %s, %d not analysed\n", b.x, b.y, b.z,
		       b.from, found_text(f, nconf, nsh, "shared", "conflict"),
		       found_text(f, nunc, ngl, "global", "uncoalesced"), nna);
	fputs(kp_strbuf_str(&lines), stdout);
	kp_strbuf_release(&lines);
}

static void analyze_model(const kp_cli *o, const kp_file_setup *fs, kp_file *f, const char *path,
			  const char *from, const char *spec_path, int json, cJSON *files,
			  int *any_loop, const kp_file *tu, an_reparse *re)
{
	kp_analyze_opts ao;
	char *sk;
	kp_cli_analyze_opts(o, spec_path, &ao, &sk);
	kp_trial_env ie = {o->arch,         o->variant, o->stages, &ao,        tu,
			   an_reparse_with, re,         0,         &o->targets};
	kp_analysis an;
	kp_analyze(&an, f, &ao);
	const char *an_arch = o->arch->name, *ps_arch = kp_parse_arch(an_arch);
	cJSON *jf = NULL, *jk = NULL;
	if (json) {
		jf = cJSON_CreateObject();
		cJSON_AddStringToObject(jf, "file", path);
		if (from)
			cJSON_AddStringToObject(jf, "included_from", from);
		if (fs->arch_from_db) {
			cJSON_AddStringToObject(jf, "arch", an_arch);
			cJSON_AddStringToObject(jf, "arch_from", fs->db_json);
		}
		if (kp_an_multi(o)) {
			cJSON *ts = cJSON_AddArrayToObject(jf, "targets");
			for (int i = 0; i < o->targets.n; i++)
				cJSON_AddItemToArray(ts, cJSON_CreateString(o->targets.v[i]->name));
		}
		jk = cJSON_AddArrayToObject(jf, "kernels");
		cJSON_AddItemToArray(files, jf);
	} else {
		int ndev = 0;
		for (int ki = 0; ki < f->nkernels; ki++)
			ndev += f->kernels[ki]->is_device;
		int nk = an.nkernels - ndev;
		char tnames[256];
		kp_targets_names(o->targets.v, o->targets.n, tnames, (int)sizeof(tnames));
		printf("%s%s%s%s: %d kernel%s%s, %d candidate loop%s (target%s %s%s%s%s)\n", path,
		       from ? " (included from " : "", from ? from : "", from ? ")" : "", nk,
		       nk == 1 ? "" : "s",
		       !ndev ? ""
		       : ndev == 1
			       ? ", 1 __device__ function with __shared__ arrays"
			       : kp_arena_printf(&f->arena,
						 ", %d __device__ functions with __shared__ arrays",
						 ndev),
		       an.nloops, an.nloops == 1 ? "" : "s", kp_an_multi(o) ? "s" : "",
		       kp_an_multi(o) ? tnames : an_arch,
		       fs->arch_from_db ? ", from compile_commands.json" : "",
		       strcmp(ps_arch, an_arch) ? "; parsed as " : "",
		       strcmp(ps_arch, an_arch) ? ps_arch : "");
	}
	for (int ki = 0; ki < f->nkernels; ki++) {
		kp_kernel *k = f->kernels[ki];
		if (!kp_kernel_matches(k, o->kernel))
			continue;
		cJSON *jl = NULL;
		if (json) {
			cJSON *x = cJSON_CreateObject();
			cJSON_AddStringToObject(x, "name", k->name);
			cJSON_AddStringToObject(x, "display", k->display);
			cJSON_AddNumberToObject(x, "line", k->line);
			cJSON_AddBoolToObject(x, "template", k->is_template);
			cJSON *ins = cJSON_AddArrayToObject(x, "instantiations");
			for (int i = 0; i < k->ninst; i++)
				cJSON_AddItemToArray(ins, cJSON_CreateString(k->inst_args[i]));
			cJSON_AddNumberToObject(x, "launch_bounds", k->launch_bounds);
			if (k->is_device) {
				cJSON_AddBoolToObject(x, "device_function", 1);
				if (k->callers)
					cJSON_AddStringToObject(x, "called_from", k->callers);
			}
			jl = cJSON_AddArrayToObject(x, "loops");
			cJSON_AddItemToArray(jk, x);
		} else {
			printf("%s %s (line %d)", k->is_device ? "__device__ function" : "kernel",
			       k->display, k->line);
			if (k->is_device && k->callers)
				printf(", called from %s", k->callers);
			else if (k->is_device) /* a call through a pointer is not seen */
				printf(", called by name from no kernel of the file");
			if (k->ninst) {
				printf(", instantiated as");
				for (int i = 0; i < k->ninst; i++)
					printf("%s <%s>", i ? "," : "", k->inst_args[i]);
			} else if (k->is_template)
				printf(", template parameters left symbolic");
			printf("\n");
		}
		int nl = 0;
		for (int li = 0; li < an.nloops; li++) {
			kp_loop *l = an.loops[li];
			if (l->kernel != k)
				continue;
			nl++;
			*any_loop = 1;
			if (json) {
				cJSON *jlp = json_loop(f, l, o);
				show_trial(&kp_trial_canon, &ie, f, l, jlp);
				show_trial(&kp_trial_inline, &ie, f, l, jlp);
				cJSON_AddItemToArray(jl, jlp);
			} else {
				text_loop(f, l, o);
				show_trial(&kp_trial_canon, &ie, f, l, NULL);
				show_trial(&kp_trial_inline, &ie, f, l, NULL);
			}
		}
		if (!nl && !json)
			printf("  no candidate K-loop (no loop that stages global data in __shared__ "
			       "memory behind a barrier)\n");
		report_memory(f, k, &ao,
			      json ? cJSON_GetArrayItem(jk, cJSON_GetArraySize(jk) - 1) : NULL);
	}
	free(sk);
}

/* --format sarif: the findings of one file's model (as analyze_model
 * sees it) as diagnostics of *r: the refusals of its loops (the reasons of
 * a loop that is not eligible, the plan's refusal of an eligible one) and
 * its kernels' bank conflicts and uncoalesced accesses. */
static void sarif_model(const kp_cli *o, kp_file *f, const char *path, const char *from,
			const char *spec_path, kp_rw_result *r, int *any_loop)
{
	kp_analyze_opts ao;
	char *sk;
	kp_cli_analyze_opts(o, spec_path, &ao, &sk);
	kp_analysis an;
	kp_analyze(&an, f, &ao);
	memset(r, 0, sizeof(*r));
	r->path = kp_xstrdup(path);
	r->abs_path = kp_rw_abs_path(path);
	r->included_from = from ? kp_xstrdup(from) : NULL;
	r->kernels = an.nkernels;
	for (int ki = 0; ki < f->nkernels; ki++) {
		kp_kernel *k = f->kernels[ki];
		if (!kp_kernel_matches(k, o->kernel))
			continue;
		for (int li = 0; li < an.nloops; li++) {
			kp_loop *l = an.loops[li];
			if (l->kernel != k)
				continue;
			*any_loop = 1;
			r->loops++;
			if (!l->eligible) {
				kp_rw_loop_refusals(r, f, l);
				r->refused++;
				continue;
			}
			kp_plan p;
			kp_tplan tp;
			if (kp_an_multi(o)) {
				kp_plan_targets(&tp, f, l, &o->targets, o->variant, o->stages);
				p = tp.split ? tp.hi : tp.one;
			} else
				kp_plan_loop(&p, f, l, o->arch, o->variant, o->stages);
			if (p.xform)
				continue;
			kp_rw_diag_at(r, f, NULL, l->node->line, l->node->col,
				      kp_rw_refusal_level(p.refuse_id), p.refuse_id, p.refuse_msg,
				      l->node->begin);
			kp_counts_add(&r->by_reason, p.refuse_id, 1);
			r->refused++;
		}
		kp_rw_memory_findings(r, f, k, &ao);
	}
	free(sk);
}

/* A file's SARIF result when it cannot be analysed: its errors. */
static void sarif_failed(kp_rw_result *r, const kp_file *f, const char *path, const char *err)
{
	memset(r, 0, sizeof(*r));
	r->path = kp_xstrdup(path);
	r->abs_path = kp_rw_abs_path(path);
	r->status = KP_EXIT_INPUT;
	if (err)
		kp_rw_diag_add(r, path, 0, 0, -1, "error", NULL, err);
	else
		kp_rw_parse_errors(r, f, path, "the file does not compile; nothing analysed");
}

/* Prints the SARIF log of the n results and frees them. */
static void sarif_print(kp_rw_result *v, int n, int status)
{
	const kp_rw_result **p = kp_xcalloc((size_t)n + 1, sizeof(*p));
	for (int i = 0; i < n; i++)
		p[i] = &v[i];
	char *cwd = getcwd(NULL, 0);
	char *log = kp_sarif_log(p, n, cwd, status, 0);
	fputs(log, stdout);
	free(log);
	free(cwd);
	free(p);
	for (int i = 0; i < n; i++)
		kp_rw_result_release(&v[i]);
	free(v);
}

/* One run of analyze over its files: the options, the inputs (directories
 * walked, -p's database), the report being built and what was seen. */
typedef struct {
	const kp_cli *o;
	char **paths;
	int npaths;
	char *root; /* with directories or -p: the inputs' common directory,
		     * under which headers are analysed through the .cu files */
	int json, sarif;
	cJSON *files;     /* --format json: the report's "files" */
	kp_rw_result *sr; /* --format sarif: one result per file and header */
	int nsr;
	int status, any_loop;
} an_run;

/* One input file: parsed with its flags, each kernel's loops reported
 * (the file's and its project headers'). */
static void analyze_path(an_run *x, const char *path)
{
	const kp_cli *o = x->o;
	/* the file's compile_commands.json entry: its flags, and its target
	 * when --arch was not given */
	kp_file_setup fs;
	kp_cli_file_setup(o, path, 1, &fs);
	kp_cli fo = *o;
	fo.arch = fs.arch;
	fo.arch_name = fs.arch_name;
	fo.targets = fs.targets;
	kp_file f = {0};
	kp_parse_opts po;
	kp_cli_parse_opts(&fo, &po);
	po.args = kp_cli_file_args(o, &fs, &po.nargs);
	po.no_compdb = 1;
	po.build_dir = NULL;
	char *root = x->root ? kp_xstrdup(x->root) : kp_dir_of_real_path(path);
	po.headers = 1;
	po.header_root = root;
	char *err = NULL;
	int prc = kp_parse(&f, path, &po, &err);
	an_reparse re = {&po, path};
	if (x->sarif && prc != KP_PARSE_OK) {
		x->sr = kp_xrealloc(x->sr, sizeof(*x->sr) * (size_t)(x->nsr + 1));
		sarif_failed(&x->sr[x->nsr++], &f, path,
			     prc == KP_PARSE_ERRORS ? NULL
			     : err                  ? err
						    : "cannot parse");
	}
	if (prc == KP_PARSE_IO || prc == KP_PARSE_FAILED)
		fprintf(stderr, "%s: error: %s\n", path, err ? err : "cannot parse");
	else if (prc == KP_PARSE_ERRORS) {
		kp_cli_print_parse_diags(&f, 0);
		fprintf(stderr, "%s: error: the file does not compile; nothing analysed\n", path);
	}
	free(err);
	if (prc != KP_PARSE_OK) {
		free((void *)po.args);
		free(root);
		kp_file_release(&f);
		kp_file_setup_release(&fs);
		x->status = KP_EXIT_INPUT;
		return;
	}
	kp_cli_print_ignored_errors(&f);
	if (o->kernel && !kp_file_has_kernel(&f, o->kernel))
		fprintf(stderr,
			"%s: warning: --kernel %s names no kernel of this file or its project "
			"headers (%s%s) [kpipe-no-such-kernel]\n",
			path, o->kernel, *kp_kernel_names(&f) ? "they have: " : "none",
			kp_kernel_names(&f));
	if (x->sarif) {
		x->sr = kp_xrealloc(x->sr, sizeof(*x->sr) * (size_t)(x->nsr + 1 + f.nheaders));
		sarif_model(&fo, &f, path, NULL, path, &x->sr[x->nsr++], &x->any_loop);
		for (int h = 0; h < f.nheaders; h++)
			sarif_model(&fo, f.headers[h], f.headers[h]->path, path, path,
				    &x->sr[x->nsr++], &x->any_loop);
	} else {
		analyze_model(&fo, &fs, &f, path, NULL, path, x->json, x->files, &x->any_loop, &f,
			      &re);
		for (int h = 0; h < f.nheaders; h++)
			analyze_model(&fo, &fs, f.headers[h], f.headers[h]->path, path, path,
				      x->json, x->files, &x->any_loop, &f, &re);
	}
	free((void *)po.args);
	free(root);
	kp_file_release(&f);
	kp_file_setup_release(&fs);
}

/* -j: file i in a child, its report (the JSON entries as one array) on
 * stdout; the exit status says whether it failed (2) and saw a loop (1). */
static int job_run(int i, void *ud)
{
	an_run y = *(an_run *)ud;
	y.files = y.json ? cJSON_CreateArray() : NULL;
	y.status = KP_EXIT_OK;
	y.any_loop = 0;
	analyze_path(&y, y.paths[i]);
	if (y.files) {
		char *s = cJSON_PrintUnformatted(y.files);
		fputs(s, stdout);
		free(s);
		cJSON_Delete(y.files);
	}
	return (y.status == KP_EXIT_INPUT ? 2 : 0) | (y.any_loop ? 1 : 0);
}

/* In the parent, in file order: the child's stderr, then its report. */
static void job_done(int i, int status, FILE *out, FILE *err, void *ud)
{
	an_run *x = ud;
	const char *path = x->paths[i];
	if (err)
		kp_jobs_copy(err, stderr);
	if (status < 0) {
		if (status == KP_JOB_NOT_STARTED)
			fprintf(stderr, "%s: error: no process could be started for this file\n",
				path);
		else
			fprintf(stderr,
				"%s: error: kpipe crashed on this file (signal %d); other files "
				"are not affected\n",
				path, -status);
		x->status = KP_EXIT_INPUT;
		return;
	}
	if (status & 2)
		x->status = KP_EXIT_INPUT;
	if (status & 1)
		x->any_loop = 1;
	if (!out)
		return;
	if (!x->json) {
		kp_jobs_copy(out, stdout);
		return;
	}
	kp_strbuf sb = KP_STRBUF_INIT;
	char buf[8192];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), out)) > 0)
		kp_strbuf_add(&sb, buf, n);
	cJSON *arr = sb.len ? cJSON_ParseWithLength(sb.buf, sb.len) : NULL;
	kp_strbuf_release(&sb);
	cJSON *e;
	while (arr && (e = cJSON_DetachItemFromArray(arr, 0)))
		cJSON_AddItemToArray(x->files, e);
	cJSON_Delete(arr);
}

/* The inputs: directories walked and -p's database (without files) as a
 * rewrite batch lists them (batch.h); files named as they are. */
static int list_paths(const kp_cli *o, an_run *x)
{
	int dirs = o->nfiles == 0;
	for (int i = 0; i < o->nfiles && !dirs; i++) {
		struct stat st;
		dirs = !stat(o->files[i], &st) && S_ISDIR(st.st_mode);
	}
	if (!dirs) {
		x->paths = kp_xcalloc((size_t)o->nfiles + 1, sizeof(char *));
		for (int i = 0; i < o->nfiles; i++)
			x->paths[x->npaths++] = kp_xstrdup(o->files[i]);
		return KP_EXIT_OK;
	}
	kp_batch_opts b;
	kp_cli_batch_opts(o, &b);
	int rc = kp_batch_list(&b, &x->paths, &x->npaths, &x->root);
	/* a header a .cu of the list includes is analysed through it (with
	 * its instantiations), not on its own */
	kp_tree_src *srcs = kp_xcalloc((size_t)x->npaths + 1, sizeof(*srcs));
	int ns = 0;
	for (int i = 0; i < x->npaths; i++) {
		const char *dot = strrchr(x->paths[i], '.');
		char *a = dot && !strcmp(dot, ".cu") ? realpath(x->paths[i], NULL) : NULL;
		if (a)
			srcs[ns++] = (kp_tree_src){a, NULL, 0, 0};
	}
	kp_out_tree t = {.root = x->root ? x->root : "/",
			 .srcs = srcs,
			 .nsrcs = ns,
			 .args = o->cargs,
			 .nargs = o->ncargs};
	char **inc = NULL;
	int ninc = kp_tree_included(&t, &inc), m = 0;
	for (int i = 0; i < x->npaths; i++) {
		const char *dot = strrchr(x->paths[i], '.');
		char *a = dot && !strcmp(dot, ".cuh") ? realpath(x->paths[i], NULL) : NULL;
		int reached = 0;
		for (int k = 0; a && k < ninc && !reached; k++)
			reached = !strcmp(inc[k], a);
		free(a);
		if (reached)
			free(x->paths[i]);
		else
			x->paths[m++] = x->paths[i];
	}
	x->npaths = m;
	for (int k = 0; k < ninc; k++)
		free(inc[k]);
	free(inc);
	for (int i = 0; i < ns; i++)
		free((char *)srcs[i].abs);
	free(srcs);
	return rc;
}

int cmd_analyze(int argc, char **argv)
{
	kp_cli o;
	int rc = kp_cli_parse(&o, argc, argv, "analyze", kp_opts_analyze);
	if (rc)
		return rc;
	if (o.nfiles == 0 && !o.build_dir) {
		fprintf(stderr, "kpipe: error: no input files\n");
		kp_cli_release(&o);
		return KP_EXIT_USAGE;
	}
	an_run x = {0};
	x.o = &o;
	x.json = !strcmp(o.format, "json");
	x.sarif = !strcmp(o.format, "sarif");
	x.status = list_paths(&o, &x);
	cJSON *root = x.json ? cJSON_CreateObject() : NULL;
	if (x.json) {
		cJSON_AddStringToObject(root, "kpipe", KPIPE_VERSION);
		cJSON_AddStringToObject(root, "arch", o.arch->name);
		if (strcmp(kp_parse_arch(o.arch->name), o.arch->name))
			cJSON_AddStringToObject(root, "parse_arch", kp_parse_arch(o.arch->name));
		x.files = cJSON_AddArrayToObject(root, "files");
	}
	int jobs = o.jobs;
	if (jobs <= 0) {
		long nc = sysconf(_SC_NPROCESSORS_ONLN);
		jobs = nc > 0 ? (int)nc : 1;
	}
	/* one file, or SARIF (its results are built whole): in this process */
	if (x.npaths > 1 && jobs > 1 && !x.sarif)
		kp_jobs_run(x.npaths, jobs, job_run, job_done, &x);
	else
		for (int i = 0; i < x.npaths; i++)
			analyze_path(&x, x.paths[i]);
	if (x.json) {
		char *s = cJSON_Print(root);
		printf("%s\n", s);
		free(s);
		cJSON_Delete(root);
	}
	int status = x.status;
	if (status == KP_EXIT_OK && !x.any_loop)
		status = KP_EXIT_NOTHING;
	if (x.sarif)
		sarif_print(x.sr, x.nsr, status);
	for (int i = 0; i < x.npaths; i++)
		free(x.paths[i]);
	free(x.paths);
	free(x.root);
	kp_cli_release(&o);
	return status;
}

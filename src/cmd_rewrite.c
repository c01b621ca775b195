/*
 * cmd_rewrite.c - `kpipe rewrite`: parse, analyse, plan each eligible
 * loop, let its transform produce edits, apply them and write the result
 * (stdout, -o, -i, --diff or --dry-run).  Refusals are printed as
 * file:line:col diagnostics with their stable ids; nothing is written
 * for a file that failed or had nothing to pipeline.
 */
#define _GNU_SOURCE
#include "cli.h"
#include "plan.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const rewrite_opts[] = {
	"--arch",	   "--kernel",	"--cuda-path", "-p",	    "--spec",	       "--threads",
	"--extra-arg",	   "-o",	"-i",	       "--diff",    "--dry-run",       "--variant",
	"--stages",	   "-v",	"--assume-filename",	    "--backup-suffix", NULL,
};

typedef struct {
	int loops, pipelined, refused;
} rw_stats;

/* Rewrites one buffer; *out is NULL when nothing changed. */
static int rewrite_one(const kp_cli *o, const char *path, const char *contents, size_t clen,
		       char **out, size_t *outlen, rw_stats *st)
{
	*out = NULL;
	kp_file f = {0};
	kp_parse_opts po;
	kp_cli_parse_opts(o, &po);
	po.contents = contents;
	po.contents_len = clen;
	char *err = NULL;
	int prc = kp_parse(&f, path, &po, &err);
	if (prc == KP_PARSE_IO || prc == KP_PARSE_FAILED) {
		fprintf(stderr, "%s: error: %s\n", path, err ? err : "cannot parse");
		free(err);
		kp_file_release(&f);
		return KP_EXIT_INPUT;
	}
	if (prc == KP_PARSE_ERRORS) {
		kp_cli_print_parse_diags(&f, 0);
		fprintf(stderr, "%s: error: the file does not compile; nothing was rewritten\n", path);
		kp_file_release(&f);
		return KP_EXIT_INPUT;
	}
	kp_analyze_opts ao;
	char *sk;
	kp_cli_analyze_opts(o, path, &ao, &sk);
	kp_analysis an;
	kp_analyze(&an, &f, &ao);
	kp_edits ed = {0};
	kp_decl **done = NULL;
	int ndone = 0;
	int rc = KP_EXIT_OK;
	for (int i = 0; i < an.nloops; i++) {
		kp_loop *l = an.loops[i];
		st->loops++;
		if (!l->eligible) {
			st->refused++;
			for (int r = 0; r < l->nreasons; r++) {
				const kp_reason *x = &l->reasons[r];
				int remark = !strcmp(x->id, "kpipe-already-pipelined");
				fprintf(stderr, "%s:%d:%d: %s: %s [%s]\n", path, x->line, x->col,
					remark ? "remark" : "warning", x->message, x->id);
			}
			continue;
		}
		int clash = 0;
		for (int t = 0; t < l->ntiles; t++)
			for (int d = 0; d < ndone; d++)
				if (l->tiles[t].loaded && done[d] == l->tiles[t].arr)
					clash = 1;
		if (clash) {
			st->refused++;
			fprintf(stderr,
				"%s:%d:%d: warning: a tile of this loop was already pipelined in an "
				"earlier loop [kpipe-tile-shared-by-loops]\n",
				path, l->node->line, l->node->col);
			continue;
		}
		kp_plan p;
		kp_plan_loop(&p, &f, l, o->arch, o->variant, o->stages);
		if (!p.xform) {
			st->refused++;
			fprintf(stderr, "%s:%d:%d: warning: %s [%s]\n", path, l->node->line, l->node->col,
				p.refuse_msg, p.refuse_id);
			continue;
		}
		kp_xform_opts xo = {o->arch, p.stages, p.why};
		const char *xerr = NULL;
		kp_edits mine = {0};
		if (p.xform->apply(&f, l, &xo, &mine, &xerr)) {
			st->refused++;
			fprintf(stderr, "%s:%d:%d: warning: %s [kpipe-transform-failed]\n", path,
				l->node->line, l->node->col, xerr ? xerr : "the transform failed");
			kp_edits_release(&mine);
			continue;
		}
		for (int e = 0; e < mine.n; e++) {
			/* one #include per file */
			int dup = 0;
			for (int k = 0; k < ed.n; k++)
				if (ed.v[k].off == mine.v[e].off && ed.v[k].len == mine.v[e].len &&
				    !strcmp(ed.v[k].text, mine.v[e].text) && mine.v[e].len == 0 &&
				    strstr(mine.v[e].text, "#include"))
					dup = 1;
			if (!dup)
				kp_edits_add(&ed, mine.v[e].off, mine.v[e].len, mine.v[e].text);
		}
		kp_edits_release(&mine);
		for (int t = 0; t < l->ntiles; t++)
			if (l->tiles[t].loaded) {
				done = kp_xrealloc(done, sizeof(*done) * (size_t)(ndone + 1));
				done[ndone++] = l->tiles[t].arr;
			}
		st->pipelined++;
		if (o->verbose)
			fprintf(stderr, "%s:%d:%d: note: pipelined with %s (%d stages): %s\n", path,
				l->node->line, l->node->col, p.xform->name, p.stages, p.why);
	}
	free(done);
	if (ed.n && memmem(f.src, f.len, "\r\n", 2)) {
		/* a CRLF file gets CRLF in the generated lines too */
		for (int e = 0; e < ed.n; e++) {
			kp_strbuf t = KP_STRBUF_INIT;
			for (const char *p = ed.v[e].text; *p; p++) {
				if (*p == '\n' && (p == ed.v[e].text || p[-1] != '\r'))
					kp_strbuf_addc(&t, '\r');
				kp_strbuf_addc(&t, *p);
			}
			free(ed.v[e].text);
			ed.v[e].text = kp_strbuf_detach(&t);
		}
	}
	if (ed.n) {
		if (kp_edits_apply(&ed, f.src, f.len, out, outlen)) {
			fprintf(stderr, "%s: error: internal error: overlapping edits; nothing written\n",
				path);
			rc = KP_EXIT_INPUT;
		}
	} else
		rc = KP_EXIT_NOTHING;
	kp_edits_release(&ed);
	free(sk);
	kp_file_release(&f);
	return rc;
}

static int write_out(const char *path, const char *data, size_t len)
{
	int e = kp_write_file_atomic(path, data, len);
	if (e) {
		fprintf(stderr, "kpipe rewrite: error: cannot write '%s': %s\n", path, strerror(-e));
		return KP_EXIT_INPUT;
	}
	return 0;
}

int cmd_rewrite(int argc, char **argv)
{
	kp_cli o;
	int rc = kp_cli_parse(&o, argc, argv, "rewrite", rewrite_opts);
	if (rc)
		return rc;
	if (o.nfiles != 1) {
		fprintf(stderr, "kpipe rewrite: error: %s\n",
			o.nfiles ? "one input file at a time (directories and several files: not yet)"
				 : "no input file");
		kp_cli_release(&o);
		return KP_EXIT_USAGE;
	}
	if ((o.in_place && o.output) || (o.in_place && o.diff) || (o.diff && o.output)) {
		fprintf(stderr, "kpipe rewrite: error: -o, -i and --diff exclude each other\n");
		kp_cli_release(&o);
		return KP_EXIT_USAGE;
	}
	const char *in = o.files[0];
	int from_stdin = !strcmp(in, "-");
	if (from_stdin && o.in_place) {
		fprintf(stderr, "kpipe rewrite: error: -i needs a file, not stdin\n");
		kp_cli_release(&o);
		return KP_EXIT_USAGE;
	}
	const char *path = from_stdin ? (o.assume_filename ? o.assume_filename : "<stdin>.cu") : in;
	char *src = NULL;
	size_t len = 0;
	int e = from_stdin ? kp_read_stream(stdin, &src, &len) : kp_read_file(in, &src, &len);
	if (e) {
		fprintf(stderr, "kpipe rewrite: error: cannot read '%s': %s\n", in, strerror(-e));
		kp_cli_release(&o);
		return KP_EXIT_INPUT;
	}
	/* -o naming the input behaves like -i */
	if (o.output && !from_stdin && strcmp(o.output, "-")) {
		char *a = realpath(in, NULL), *b = realpath(o.output, NULL);
		if (a && b && !strcmp(a, b)) {
			o.in_place = 1;
			o.output = NULL;
		}
		free(a);
		free(b);
	}
	rw_stats st = {0};
	char *out = NULL;
	size_t outlen = 0;
	rc = rewrite_one(&o, path, src, len, &out, &outlen, &st);
	if (rc == KP_EXIT_NOTHING && o.verbose)
		fprintf(stderr, "%s: nothing to pipeline (%d loop%s found, %d refused)\n", path, st.loops,
			st.loops == 1 ? "" : "s", st.refused);
	if (rc == KP_EXIT_OK) {
		if (o.dry_run) {
			printf("%s: would pipeline %d of %d loop%s\n", path, st.pipelined, st.loops,
			       st.loops == 1 ? "" : "s");
			rc = KP_EXIT_NOTHING; /* like clang-format --dry-run -Werror: 1 = would change */
		} else if (o.diff) {
			kp_strbuf la = KP_STRBUF_INIT, lb = KP_STRBUF_INIT;
			const char *lp = path;
			while (lp[0] == '.' && lp[1] == '/')
				lp += 2;
			while (lp[0] == '/')
				lp++;
			kp_strbuf_addf(&la, "a/%s", lp);
			kp_strbuf_addf(&lb, "b/%s", lp);
			char *d = kp_diff(kp_strbuf_str(&la), src, len, kp_strbuf_str(&lb), out, outlen);
			fputs(d, stdout);
			free(d);
			kp_strbuf_release(&la);
			kp_strbuf_release(&lb);
		} else if (o.in_place) {
			if (o.backup_suffix) {
				kp_strbuf bk = KP_STRBUF_INIT;
				kp_strbuf_addf(&bk, "%s%s", in, o.backup_suffix);
				rc = write_out(kp_strbuf_str(&bk), src, len);
				struct stat st;
				if (rc == KP_EXIT_OK && stat(in, &st) == 0)
					chmod(kp_strbuf_str(&bk), st.st_mode & 07777);
				kp_strbuf_release(&bk);
			}
			if (rc == KP_EXIT_OK)
				rc = write_out(in, out, outlen);
		} else if (o.output && strcmp(o.output, "-")) {
			rc = write_out(o.output, out, outlen);
		} else {
			fwrite(out, 1, outlen, stdout);
		}
	} else if (rc == KP_EXIT_NOTHING && o.dry_run) {
		printf("%s: nothing to pipeline\n", path);
		rc = KP_EXIT_OK;
	} else if (rc == KP_EXIT_NOTHING && from_stdin && !o.diff && !o.in_place &&
		   (!o.output || !strcmp(o.output, "-"))) {
		/* an editor piping its buffer gets it back unchanged (exit 1 still
		 * says nothing was pipelined), as clang-format does */
		fwrite(src, 1, len, stdout);
	}
	free(out);
	free(src);
	kp_cli_release(&o);
	return rc;
}

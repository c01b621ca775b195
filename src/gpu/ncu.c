/*
 * ncu.c - the metric table, the parser of Nsight Compute's `--csv --page
 * raw` report and the rendering of a two-version profile (ncu.h).
 */
#include "ncu.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Edit here when an ncu release renames a metric: nothing else names them. */
const kp_ncu_metric kp_ncu_metrics[KP_NCU_NMETRICS] = {
	[KP_NCU_BANK_LD] = {"bank_conflicts_ld",
			    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
			    "shared load bank conflicts", ""},
	[KP_NCU_BANK_ST] = {"bank_conflicts_st",
			    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
			    "shared store bank conflicts", ""},
	[KP_NCU_DRAM_PCT] = {"dram_throughput_pct",
			     "dram__throughput.avg.pct_of_peak_sustained_elapsed",
			     "DRAM throughput (% of peak)", "%"},
	[KP_NCU_OCCUPANCY] = {"achieved_occupancy_pct",
			      "sm__warps_active.avg.pct_of_peak_sustained_active",
			      "achieved occupancy (%)", "%"},
	[KP_NCU_STALL_LONG_SB] =
		{"stall_long_scoreboard",
		 "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio",
		 "stall: long scoreboard (cyc/instr)", "cycles"},
	[KP_NCU_STALL_BARRIER] = {"stall_barrier",
				  "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio",
				  "stall: barrier (cyc/instr)", "cycles"},
	[KP_NCU_STALL_MIO] =
		{"stall_mio_throttle",
		 "smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio",
		 "stall: MIO throttle (cyc/instr)", "cycles"},
	[KP_NCU_DURATION] = {"duration_ns", "gpu__time_duration.sum", "duration (ns)", "ns"},
};

char *kp_ncu_metric_list(const int use[KP_NCU_NMETRICS])
{
	kp_strbuf sb = KP_STRBUF_INIT;
	for (int i = 0; i < KP_NCU_NMETRICS; i++)
		if (use[i])
			kp_strbuf_addf(&sb, "%s%s", sb.len ? "," : "", kp_ncu_metrics[i].metric);
	return kp_strbuf_detach(&sb);
}

/* Splits one CSV line (len bytes) into at most max fields, unquoted, in a.
 * Returns the number of fields. */
static int csv_fields(const char *line, size_t len, const char **f, int max, kp_arena *a)
{
	int n = 0;
	size_t i = 0;
	kp_strbuf sb = KP_STRBUF_INIT;
	while (n < max) {
		sb.len = 0;
		if (i < len && line[i] == '"') {
			for (i++; i < len; i++) {
				if (line[i] == '"' && i + 1 < len && line[i + 1] == '"')
					kp_strbuf_addc(&sb, line[i++]);
				else if (line[i] == '"')
					break;
				else
					kp_strbuf_addc(&sb, line[i]);
			}
			i++; /* the closing quote */
			while (i < len && line[i] != ',')
				i++;
		} else
			for (; i < len && line[i] != ','; i++)
				kp_strbuf_addc(&sb, line[i]);
		f[n++] = kp_arena_strdup(a, kp_strbuf_str(&sb));
		if (i >= len)
			break;
		i++; /* the comma */
	}
	kp_strbuf_release(&sb);
	return n;
}

/* A value as ncu prints it: "1,048,576", "63.52", "n/a", "".  Returns 1
 * with *v set, or 0. */
static int parse_value(const char *s, double *v)
{
	char buf[64];
	size_t n = 0;
	for (; *s && n + 1 < sizeof(buf); s++)
		if (*s != ',' && !isspace((unsigned char)*s))
			buf[n++] = *s;
	buf[n] = '\0';
	if (!n)
		return 0;
	char *end;
	*v = strtod(buf, &end);
	return *end == '\0';
}

/* Multiplier to nanoseconds for a time unit, or 1. */
static double time_scale(const char *unit)
{
	static const struct {
		const char *u;
		double f;
	} t[] = {{"nsecond", 1},   {"ns", 1},   {"usecond", 1e3}, {"us", 1e3},
		 {"msecond", 1e6}, {"ms", 1e6}, {"second", 1e9},  {"s", 1e9}};
	for (size_t i = 0; i < KP_ARRAY_LEN(t); i++)
		if (!strcmp(unit, t[i].u))
			return t[i].f;
	return 1;
}

/* The first line of text containing needle, copied into msg. */
static int line_with(const char *text, const char *needle, char *msg, size_t msgsz)
{
	const char *p = strstr(text, needle);
	if (!p)
		return 0;
	const char *s = p;
	while (s > text && s[-1] != '\n')
		s--;
	snprintf(msg, msgsz, "%.*s", (int)strcspn(s, "\r\n"), s);
	return 1;
}

enum { MAX_COLS = 512 };

/* Reads the header, units and first data row starting at line h. */
static kp_ncu_status read_table(const char *h, kp_ncu_values *out, kp_arena *a)
{
	const char **head = kp_xcalloc(MAX_COLS, sizeof(char *));
	const char **units = kp_xcalloc(MAX_COLS, sizeof(char *));
	const char **row = kp_xcalloc(MAX_COLS, sizeof(char *));
	size_t len = strcspn(h, "\r\n");
	int nh = csv_fields(h, len, head, MAX_COLS, a), nu = 0, nr = 0;
	/* the rows after the header that are CSV (start with a quote) */
	for (const char *p = h + len; *p;) {
		p += strspn(p, "\r\n");
		size_t l = strcspn(p, "\r\n");
		if (l && *p == '"') {
			if (!nu)
				nu = csv_fields(p, l, units, MAX_COLS, a);
			else if (!nr) {
				nr = csv_fields(p, l, row, MAX_COLS, a);
				break;
			}
		}
		p += l;
	}
	kp_ncu_status st = nr ? KP_NCU_OK : KP_NCU_NO_KERNEL;
	for (int c = 0; c < nh && c < nr; c++) {
		if (!strcmp(head[c], "Kernel Name"))
			out->kernel = row[c];
		for (int m = 0; m < KP_NCU_NMETRICS; m++) {
			double v;
			if (strcmp(head[c], kp_ncu_metrics[m].metric) || !parse_value(row[c], &v))
				continue;
			if (m == KP_NCU_DURATION && c < nu)
				v *= time_scale(units[c]);
			out->have[m] = 1;
			out->value[m] = v;
		}
	}
	free(head);
	free(units);
	free(row);
	return st;
}

kp_ncu_status kp_ncu_parse(const char *text, kp_ncu_values *out, int *bad, kp_arena *a, char *msg,
			   size_t msgsz)
{
	memset(out, 0, sizeof(*out));
	*bad = -1;
	if (msgsz)
		msg[0] = '\0';
	if (!text)
		text = "";
	if (line_with(text, "ERR_NVGPUCTRPERM", msg, msgsz))
		return KP_NCU_NOPERM;
	char line[512];
	if (line_with(text, "ailed to find metric", line, sizeof(line)) ||
	    line_with(text, "nvalid metric", line, sizeof(line)) ||
	    line_with(text, "nknown metric", line, sizeof(line))) {
		/* the longest of our names on that line: one may prefix another */
		size_t best = 0;
		for (int m = 0; m < KP_NCU_NMETRICS; m++) {
			const char *name = kp_ncu_metrics[m].metric;
			if (strstr(line, name) && strlen(name) > best) {
				best = strlen(name);
				*bad = m;
			}
		}
		snprintf(msg, msgsz, "%s", line);
		if (*bad >= 0)
			return KP_NCU_BAD_METRIC;
	}
	for (const char *p = text; *p;) {
		size_t l = strcspn(p, "\n");
		if (!strncmp(p, "\"ID\",", 5))
			return read_table(p, out, a);
		p += l + (p[l] == '\n');
	}
	if (line_with(text, "No kernels were profiled", msg, msgsz))
		return KP_NCU_NO_KERNEL;
	if (!msg[0])
		line_with(text, "==ERROR==", msg, msgsz);
	return KP_NCU_NO_REPORT;
}

double kp_ncu_copy_fraction(const kp_ncu_profile *p, int v)
{
	if (p->copy_skip || p->copy_ms <= 0 || p->ms[v] <= 0)
		return -1;
	return p->copy_ms / p->ms[v];
}

static void text_value(kp_strbuf *sb, const kp_ncu_profile *p, int v, int m)
{
	char buf[64] = "-";
	if (!p->ran[v])
		snprintf(buf, sizeof(buf), "-");
	else if (!p->v[v].have[m])
		snprintf(buf, sizeof(buf), "n/a");
	else if (!kp_ncu_metrics[m].unit[0] || m == KP_NCU_DURATION)
		snprintf(buf, sizeof(buf), "%.0f", p->v[v].value[m]);
	else
		snprintf(buf, sizeof(buf), "%.2f", p->v[v].value[m]);
	kp_strbuf_addf(sb, " %14s", buf);
}

void kp_ncu_render_text(kp_strbuf *sb, const kp_ncu_profile *p)
{
	if (!p->requested)
		return;
	if (p->skip) {
		kp_strbuf_addf(sb, "    profile: SKIPPED: %s\n", p->skip);
		return;
	}
	kp_strbuf_addf(sb, "    profile (Nsight Compute, one launch each at '%s'):\n", p->size);
	kp_strbuf_addf(sb, "      %-36s %14s %14s\n", "", p->names[0], p->names[1]);
	for (int m = 0; m < KP_NCU_NMETRICS; m++) {
		kp_strbuf_addf(sb, "      %-36s", kp_ncu_metrics[m].label);
		text_value(sb, p, 0, m);
		text_value(sb, p, 1, m);
		kp_strbuf_addc(sb, '\n');
	}
	kp_strbuf_addf(sb, "      %-36s", "bandwidth (% of a copy kernel)");
	for (int v = 0; v < 2; v++) {
		double f = kp_ncu_copy_fraction(p, v);
		char buf[32] = "-";
		if (f >= 0)
			snprintf(buf, sizeof(buf), "%.1f", 100 * f);
		kp_strbuf_addf(sb, " %14s", buf);
	}
	kp_strbuf_addc(sb, '\n');
	if (p->copy_skip)
		kp_strbuf_addf(sb, "      copy comparison skipped: %s\n", p->copy_skip);
	else
		kp_strbuf_addf(sb, "      copy kernel: %.0f bytes in %.4f ms (%.1f GB/s)\n",
			       p->copy_bytes, p->copy_ms, p->copy_bytes / (p->copy_ms * 1e6));
	for (int v = 0; v < 2; v++)
		if (p->error[v])
			kp_strbuf_addf(sb, "      %s: not profiled: %s\n", p->names[v],
				       p->error[v]);
	if (p->dropped)
		kp_strbuf_addf(sb, "      metrics this ncu does not know (left out): %s\n",
			       p->dropped);
	if (p->ncu)
		kp_strbuf_addf(sb, "      ncu: %s\n", p->ncu);
}

static void add_str(cJSON *o, const char *k, const char *v)
{
	if (v)
		cJSON_AddStringToObject(o, k, v);
	else
		cJSON_AddNullToObject(o, k);
}

void *kp_ncu_render_json(const kp_ncu_profile *p)
{
	cJSON *j = cJSON_CreateObject();
	cJSON_AddBoolToObject(j, "requested", p->requested);
	add_str(j, "skipped", p->skip);
	add_str(j, "ncu", p->ncu);
	add_str(j, "size", p->size);
	add_str(j, "dropped_metrics", p->dropped);
	cJSON *vs = cJSON_AddArrayToObject(j, "versions");
	for (int v = 0; v < 2 && p->requested && !p->skip; v++) {
		cJSON *o = cJSON_CreateObject();
		add_str(o, "name", p->names[v]);
		cJSON_AddBoolToObject(o, "profiled", p->ran[v]);
		add_str(o, "error", p->error[v]);
		add_str(o, "kernel", p->v[v].kernel);
		cJSON *ms = cJSON_AddObjectToObject(o, "metrics");
		for (int m = 0; m < KP_NCU_NMETRICS; m++)
			if (p->ran[v] && p->v[v].have[m])
				cJSON_AddNumberToObject(ms, kp_ncu_metrics[m].key,
							p->v[v].value[m]);
			else
				cJSON_AddNullToObject(ms, kp_ncu_metrics[m].key);
		double f = kp_ncu_copy_fraction(p, v);
		if (f >= 0)
			cJSON_AddNumberToObject(o, "copy_fraction", f);
		else
			cJSON_AddNullToObject(o, "copy_fraction");
		cJSON_AddItemToArray(vs, o);
	}
	cJSON *c = cJSON_AddObjectToObject(j, "copy");
	add_str(c, "skipped", p->requested && !p->skip ? p->copy_skip : "not profiled");
	if (p->requested && !p->skip && !p->copy_skip) {
		cJSON_AddNumberToObject(c, "bytes", p->copy_bytes);
		cJSON_AddNumberToObject(c, "median_ms", p->copy_ms);
	}
	return j;
}

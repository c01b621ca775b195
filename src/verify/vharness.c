/*
 * vharness.c - the verifier's launcher translation unit (vharness.h).
 */
#define _GNU_SOURCE
#include "vharness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *kp_vharness_setting(const kp_launch_spec *s, int inst, int size)
{
	kp_strbuf sb = KP_STRBUF_INIT;
	kp_strbuf_adds(&sb, s->sizes[size].name);
	if (s->ninsts > 1)
		kp_strbuf_addf(&sb, "@%d", inst);
	return kp_strbuf_detach(&sb);
}

static const char *role_code(kp_arg_role r)
{
	return r == KP_ROLE_IN ? "kph::IN" : r == KP_ROLE_OUT ? "kph::OUT" : "kph::INOUT";
}

static const char *type_code(kp_arg_type t)
{
	t = kp_arg_type_lane(t); /* float2, double2: two lanes each */
	return t == KP_TYPE_FLOAT    ? "kph::F32"
	       : t == KP_TYPE_HALF   ? "kph::F16"
	       : t == KP_TYPE_INT8   ? "kph::I8"
	       : t == KP_TYPE_DOUBLE ? "kph::F64"
				     : "kph::I32";
}

/* The size table: every (instantiation, size) setting. */
static void gen_tables(kp_strbuf *sb, const kp_launch_spec *s)
{
	int ni = s->ninsts > 0 ? s->ninsts : 1;
	kp_strbuf_adds(sb, "static const char *const kp_size_names[] = {");
	for (int i = 0; i < ni; i++)
		for (int z = 0; z < s->nsizes; z++) {
			char *n = kp_vharness_setting(s, i, z);
			kp_strbuf_addf(sb, "\"%s\", ", n);
			free(n);
		}
	kp_strbuf_addf(sb, "};\nstatic const int kp_size_inst[] = {");
	for (int i = 0; i < ni; i++)
		for (int z = 0; z < s->nsizes; z++)
			kp_strbuf_addf(sb, "%d, ", i);
	kp_strbuf_addf(sb, "};\nstatic const long kp_size_vals[][%d] = {",
		       s->nsymbols > 0 ? s->nsymbols : 1);
	for (int i = 0; i < ni; i++)
		for (int z = 0; z < s->nsizes; z++) {
			kp_strbuf_adds(sb, "{");
			for (int k = 0; k < s->nsymbols; k++)
				kp_strbuf_addf(sb, "%s%ld", k ? ", " : "", s->sizes[z].vals[k]);
			kp_strbuf_adds(sb, s->nsymbols ? "}, " : "0}, ");
		}
	kp_strbuf_adds(sb, "};\n");
}

/* The launch of instantiation i with the call's arguments. */
static void gen_launch(kp_strbuf *sb, const kp_launch_spec *s, const char *via, const char *call)
{
	int ni = s->ninsts > 0 ? s->ninsts : 1;
	for (int i = 0; i < ni; i++) {
		const char *targs = s->ninsts > 0 ? s->insts[i] : s->template_args;
		kp_strbuf_addf(sb, "    if (kp_inst == %d) ", i);
		if (via)
			kp_strbuf_addf(sb, "%s(kp_grid, kp_block, kp_smem, (cudaStream_t)0%s);\n",
				       via, call);
		else
			kp_strbuf_addf(sb,
				       "kp::launch(kp::cfg(kp_grid, kp_block, kp_smem), %s%s%s);\n",
				       s->kernel, targs ? targs : "", call);
	}
}

/* The buffers and the argument list of the launch. */
static void gen_args(kp_strbuf *sb, const kp_launch_spec *s, kp_strbuf *bufs, kp_strbuf *call)
{
	int bi = 0;
	kp_strbuf_adds(sb, "    const size_t kp_counts[] = {");
	for (int a = 0; a < s->nargs; a++)
		if (s->args[a].role != KP_ROLE_SCALAR)
			kp_strbuf_addf(sb, "(size_t)(%s)%s, ", s->args[a].expr,
				       kp_arg_lanes_factor(s->args[a].type));
	kp_strbuf_adds(sb, "0};\n");
	for (int a = 0; a < s->nargs; a++) {
		const kp_launch_arg *x = &s->args[a];
		const char *ct = kp_arg_type_ctype(x->type);
		if (x->role == KP_ROLE_SCALAR) {
			char *v = kp_arg_scalar_expr(x->type, x->expr);
			kp_strbuf_addf(call, ", %s", v);
			free(v);
			continue;
		}
		kp_strbuf_addf(
			bufs,
			"    %s *kp_buf%d = (%s *)kph::buffer(\"%s\", %s, %s, kp_counts[%d]);\n",
			ct, bi, ct, x->name, role_code(x->role), type_code(x->type), bi);
		kp_strbuf_addf(call, ", kp_buf%d", bi);
		bi++;
	}
}

static const char harness_main[] =
	"int main(int argc, char **argv)\n"
	"{\n"
	"    const int kp_n = (int)(sizeof kp_size_names / sizeof *kp_size_names);\n"
	"    if (argc == 2 && !strcmp(argv[1], \"--info\")) {\n"
	"        kph::Opts o;\n"
	"        o.info = true;\n"
	"        for (int i = 0; i < kp_n; ++i) {\n"
	"            printf(\"%%s \", kp_size_names[i]);\n"
	"            kp_run(i, o);\n"
	"        }\n"
	"        return 0;\n"
	"    }\n"
	"    kph::Opts o = kph::parse(argc, argv);\n"
	"    kph::install_handlers(%d);\n"
	"    for (int i = 0; i < kp_n; ++i)\n"
	"        if (!strcmp(kp_size_names[i], o.size))\n"
	"            return kp_run(i, o);\n"
	"    kp::fail(\"no size named %%s in the spec\", o.size);\n"
	"}\n";

char *kp_vharness_source(const kp_launch_spec *s, const char *prepped_path, const char *dyn_smem,
			 const char *via, int timeout_s)
{
	kp_strbuf sb = KP_STRBUF_INIT, call = KP_STRBUF_INIT, bufs = KP_STRBUF_INIT;
	/* a program's own main() (kernels beside their test driver) is
	 * renamed: the launcher brings the one that runs */
	kp_strbuf_addf(&sb,
		       "#include \"kp_cpu_cuda.h\"\n#define main kp_program_main\n#include "
		       "\"%s\"\n#undef main\n#include \"kp_harness.h\"\n",
		       prepped_path);
	gen_tables(&sb, s);
	kp_strbuf_adds(&sb, "static int kp_run(int kp_si, const kph::Opts &kp_o)\n{\n"
			    "    const int kp_inst = kp_size_inst[kp_si]; (void)kp_inst;\n");
	for (int k = 0; k < s->nsymbols; k++)
		kp_strbuf_addf(&sb, "    const long %s = kp_size_vals[kp_si][%d]; (void)%s;\n",
			       s->symbols[k], k, s->symbols[k]);
	for (int r = 0; r < s->nrequires; r++)
		kp_strbuf_addf(
			&sb,
			"    if (!(%s)) { printf(\"requires-failed %%s\\n\", \"%s\"); return 0; "
			"}\n",
			s->requires[r], s->requires[r]);
	kp_strbuf_addf(&sb,
		       "    const dim3 kp_grid((unsigned)(%s), (unsigned)(%s), (unsigned)(%s));\n"
		       "    const dim3 kp_block((unsigned)(%s), (unsigned)(%s), (unsigned)(%s));\n",
		       s->grid[0], s->grid[1], s->grid[2], s->block[0], s->block[1], s->block[2]);
	const char *spec_smem = s->dynamic_smem && *s->dynamic_smem ? s->dynamic_smem : "0";
	kp_strbuf_addf(&sb,
		       "    const size_t kpipe_spec_smem = (size_t)(%s); (void)kpipe_spec_smem;\n"
		       "    const size_t kp_smem = (size_t)(%s);\n",
		       spec_smem, dyn_smem ? dyn_smem : spec_smem);
	gen_args(&sb, s, &bufs, &call);
	kp_strbuf_adds(
		&sb, "    if (kp_o.info) {\n"
		     "        size_t e = 0; for (size_t c : kp_counts) e += c;\n"
		     "        printf(\"ok threads=%llu blocks=%llu elems=%zu\\n\", (unsigned long "
		     "long)kp_grid.x * kp_grid.y * kp_grid.z * kp_block.x * kp_block.y * "
		     "kp_block.z, (unsigned long long)kp_grid.x * kp_grid.y * kp_grid.z, e);\n"
		     "        return 0;\n    }\n");
	/* the buffers after --info, which runs every setting in one process */
	kp_strbuf_adds(&sb, kp_strbuf_str(&bufs));
	kp_strbuf_adds(&sb, "    kph::fill_all();\n");
	gen_launch(&sb, s, via, kp_strbuf_str(&call));
	kp_strbuf_adds(&sb, "    kph::dump(kp_o.out);\n    return 0;\n}\n");
	kp_strbuf_addf(&sb, harness_main, timeout_s > 0 ? timeout_s : 60);
	kp_strbuf_release(&call);
	kp_strbuf_release(&bufs);
	return kp_strbuf_detach(&sb);
}

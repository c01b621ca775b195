/*
 * analyze_targets.h - `kpipe analyze` for several targets
 * (analyze_targets.c): the plan each target of the build gets (one
 * source, split at the cp.async line; src/plan/targets.c), in text and in
 * the JSON report's "targets" array.
 */
#ifndef KPIPE_ANALYZE_TARGETS_H
#define KPIPE_ANALYZE_TARGETS_H

#include "cli.h"
#include "plan.h"

#include <cjson/cJSON.h>

/* Whether o names several targets (then the functions below report). */
int kp_an_multi(const kp_cli *o);
/* The plan line and one line per target, in text (an eligible loop). */
void kp_an_text_targets(kp_file *f, const kp_loop *l, const kp_cli *o);
/* "targets": [{name, variant, stages, smem_bytes, smem_static_limit,
 * smem_optin_limit, dynamic_smem}], and "split_cc" (80, 90 or null), on j
 * (the loop's object). */
void kp_an_json_targets(cJSON *j, kp_file *f, const kp_loop *l, const kp_cli *o);

#endif

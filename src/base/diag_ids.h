/*
 * diag_ids.h - the registry of kpipe's diagnostic ids: each stable
 * `kpipe-NAME` with the level it is reported at and a one-line summary.
 *
 * Every id kpipe prints is registered here (tests/layout/diag_ids.sh fails
 * on an id used in src/ or transforms/ that is not, and on a registered id
 * without its section in docs/diagnostics.md); the level of a loop's
 * refusal, the SARIF rules' descriptions and `kpipe help diagnostics` come
 * from this table.  Each id's documentation is the section of the same
 * name in docs/diagnostics.md.
 */
#ifndef KPIPE_DIAG_IDS_H
#define KPIPE_DIAG_IDS_H

typedef enum { KP_LEVEL_ERROR, KP_LEVEL_WARNING, KP_LEVEL_REMARK, KP_LEVEL_NOTE } kp_level;

typedef struct {
	const char *id;      /* "kpipe-loop-shape" */
	kp_level level;      /* how a finding with this id is reported */
	const char *summary; /* one line, as in docs/diagnostics.md's table of ids */
} kp_diag_id;

extern const kp_diag_id kp_diag_ids[];
extern const int kp_ndiag_ids;

/* The registered id, or NULL when `id` is not one. */
const kp_diag_id *kp_diag_id_find(const char *id);
/* "error", "warning", "remark" or "note". */
const char *kp_level_name(kp_level level);
/* The level name of id (warning for an id that is not registered). */
const char *kp_diag_level(const char *id);

#endif

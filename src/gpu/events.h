/*
 * events.h - the one decoder of the GPU harness's event stream: the JSON
 * lines bench/harness/bench_main.cu prints (device, attrs, begin, baseline,
 * check, time, copy, dropped, error, fatal, single, done) and the sanitize,
 * sanitize-skip and phase lines `kpipe tune` adds to them (gpu_run.c).  Each line
 * becomes a kp_event with every member the harness prints in a typed
 * field; lines that are not a JSON object with a string "event" member are
 * skipped.  gpu_run.c (validate's steps 3-5) and tune.c (the choice of a
 * variant) read the stream through it.
 *
 * Ownership: the strings and the all_ms array of an event belong to the
 * reader and live until the next kp_event_next() call or
 * kp_event_reader_release().  Nothing here prints.
 */
#ifndef KPIPE_EVENTS_H
#define KPIPE_EVENTS_H

typedef enum {
	KP_EV_OTHER, /* an event name this decoder does not know */
	KP_EV_DEVICE,
	KP_EV_ATTRS,
	KP_EV_BEGIN,
	KP_EV_BASELINE,
	KP_EV_CHECK,
	KP_EV_TIME,
	KP_EV_ERROR,
	KP_EV_FATAL,
	KP_EV_SINGLE,
	KP_EV_DONE,
	KP_EV_SANITIZE,
	KP_EV_SANITIZE_SKIP,
	KP_EV_COPY,    /* --copy: the copy kernel's median over "bytes" */
	KP_EV_DROPPED, /* --drop-slower: a version timed no more at a size */
	KP_EV_PHASE,   /* kpipe tune: the wall time of one part of the GPU run */
} kp_event_kind;

/* One event.  Where the line does not have a member as a string or a
 * number (the harness prints null for a value that is infinite or NaN),
 * its string is NULL, its count or time 0, and max_abs, max_rel, work,
 * first_got and first_want are NaN. */
typedef struct {
	kp_event_kind kind;
	const char *name;    /* the "event" member */
	const char *version; /* "original", "rewritten", "cp-async-s3", "harness" */
	const char *size;    /* the size's name in the launch description */
	const char *inst;    /* the instantiation ("<64>") when the description names several */
	int ok;              /* "ok": true */
	/* device */
	const char *device_name, *cc;
	int sms, clock_mhz, driver, runtime;
	/* attrs */
	int regs, smem_static, local_bytes, max_threads, blocks_per_sm, threads;
	/* baseline and check */
	long elements, unwritten, nondeterministic, mismatches, differ, clobbered_inputs;
	double max_abs, max_rel;
	int has_first; /* check: a "first_mismatch" object */
	const char *first_arg;
	double first_index; /* -1 when absent */
	int first_unwritten;
	double first_got, first_want;
	/* time */
	int reps, warmup, round;
	double median_ms, min_ms, max_ms, mean_ms, work;
	const char *work_kind;
	double bytes;         /* copy */
	const double *all_ms; /* the numbers of "all_ms", one per timed launch */
	int nall_ms;
	int all_entries; /* the entries of "all_ms", numbers or not */
	/* error and fatal */
	const char *stage, *msg;
	/* sanitize (and phase: seconds) */
	const char *tool;
	long errors;
	double seconds;
	/* dropped: the rounds it was timed and the geometric mean of its
	 * per-round speedups; phase: its name ("build", "run", "sanitize") */
	int rounds;
	double speedup;
	const char *phase;
} kp_event;

typedef struct {
	const char *p; /* the rest of the text */
	void *json;    /* the current line (a cJSON *) */
	double *all;   /* the current all_ms */
} kp_event_reader;

/* Reads text (NULL reads nothing). */
void kp_event_reader_init(kp_event_reader *r, const char *text);
/* Decodes the next event into e: 1, or 0 at the end of the text (the
 * reader is then released). */
int kp_event_next(kp_event_reader *r, kp_event *e);
/* For a reader left before its end. */
void kp_event_reader_release(kp_event_reader *r);

#endif

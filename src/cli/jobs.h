/*
 * jobs.h - n jobs in child processes, at most `jobs` at a time, whose
 * outputs are printed in job order: each child's stdout and stderr go to
 * anonymous temporary files, which the parent copies out once the child
 * is done and every earlier one has been printed.  For commands that run
 * one file per job (`kpipe analyze DIR -j N`): the output is the same
 * whatever -j is.
 */
#ifndef KPIPE_JOBS_H
#define KPIPE_JOBS_H

#include <stdio.h>

/* Runs job i in a child: prints on stdout and stderr; returns the child's
 * exit status (0..255). */
typedef int (*kp_job_run)(int i, void *ud);
/* In the parent, in job order: the child's exit status (-N: killed by
 * signal N), and its stdout and stderr, rewound (the callback copies or
 * parses them). */
typedef void (*kp_job_done)(int i, int status, FILE *out, FILE *err, void *ud);

/* The status of a job whose child could not be started (done gets NULL
 * files). */
#define KP_JOB_NOT_STARTED (-1000)

/* Returns 0, or -1 when a child could not be started. */
int kp_jobs_run(int n, int jobs, kp_job_run run, kp_job_done done, void *ud);

/* Copies the rest of `from` to `to`. */
void kp_jobs_copy(FILE *from, FILE *to);

#endif

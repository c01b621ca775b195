/*
 * batch_int.h - what the parts of the batch share inside src/rewrite/
 * (batch.c, the batch itself; batch_write.c, the outputs of one file): not
 * for other modules.  It includes no project header, so the module graph
 * keeps no cycle.
 */
#ifndef KPIPE_BATCH_INT_H
#define KPIPE_BATCH_INT_H

/* a/b ("." names no directory; a may end in '/'); the caller frees it. */
char *kp_batch_join(const char *a, const char *b);

#endif

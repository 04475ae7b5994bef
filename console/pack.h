/* pack — the scenario's folder as the bundle a StartRun ships to agents:
 * every regular file below the script's folder (8 levels deep), without
 * hidden files, databases and logs, within agent/bundle.h's limits. */
#ifndef QUERN_PACK_H
#define QUERN_PACK_H

#include <stddef.h>

struct run;

/** Packs the folder of run->o.script into run->files and sets
 *  run->script_name. 0 ok; -1 with err (unreadable, or too big to ship). */
int pack_build(struct run *r, char *err, size_t errlen);

#endif

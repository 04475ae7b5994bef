/* memsize — amounts of memory as people write them ("256M", "2G"), and the
 * share of the host's memory a worker's Lua state may hold by default.
 *
 * What it is for: --worker-memory (quern run, quern agent) caps each
 * worker's Lua state (worker/lua/lalloc.h); the flag is parsed here, and when it
 * is not given the agent derives the cap from its own host: 75 % of its
 * memory (MemTotal, or the cgroup's memory.max when lower) shared by its
 * workers, at least MEMSIZE_WORKER_MIN.
 *
 * Usage:
 *     uint64_t b;
 *     if (memsize_parse("256M", &b, err, sizeof(err)) != 0) ... err says why ...
 *     b = memsize_worker_default(memsize_host_total(), workers); */
#ifndef QUERN_MEMSIZE_H
#define QUERN_MEMSIZE_H

#include <stddef.h>
#include <stdint.h>

/** The smallest --worker-memory accepted: the engine and a few VUs fit. */
#define MEMSIZE_WORKER_MIN (16ull << 20)
/** The largest accepted: 1 TiB. */
#define MEMSIZE_WORKER_MAX (1ull << 40)
/** The smallest default a host's share gives a worker. */
#define MEMSIZE_DEFAULT_MIN (64ull << 20)
/** The default when the host's memory cannot be read. */
#define MEMSIZE_DEFAULT_UNKNOWN (1ull << 30)
/** A buffer of this size holds memsize_format's output. */
#define MEMSIZE_FORMAT_MAX 24

/** Parses a whole number of bytes with an optional binary unit K, M, G or T
 *  (case-insensitive, "MB"/"MiB" too): "256M" is 268435456. 0 ok; -1 with
 *  err set on anything else, on 0 and on an overflow. */
int memsize_parse(const char *s, uint64_t *out, char *err, size_t errlen);

/** The host's memory in bytes: MemTotal, or the cgroup v2 memory.max of this
 *  process when it is lower; 0 when neither can be read. */
uint64_t memsize_host_total(void);

/** 75 % of total shared by workers (at least 1), at least
 *  MEMSIZE_DEFAULT_MIN and at most MEMSIZE_WORKER_MAX; total 0 (unknown)
 *  gives MEMSIZE_DEFAULT_UNKNOWN. */
uint64_t memsize_worker_default(uint64_t total, unsigned workers);

/** Writes b in the largest unit that divides it ("256M", "1536K", "100").
 *  Returns buf. */
char *memsize_format(uint64_t b, char *buf, size_t len);

#endif

/* hostres — the "host:port:address" entries that name a host's address
 * without DNS (curl's --resolve), as `quern run --resolve` and a request's
 * `resolve` option give them.
 *
 * What it is for: the console checks the flag's entries before a run, the
 * agent checks what a console sends, and the worker checks a script's, with
 * the same rule. libcurl reads the entries (CURLOPT_RESOLVE); this only
 * says whether one is well-formed.
 *
 * Use: if (hostres_check(entry, err, sizeof(err)) != 0) report(err); */
#ifndef QUERN_HOSTRES_H
#define QUERN_HOSTRES_H

#include <stddef.h>

/** Longest entry, in bytes. */
#define HOSTRES_ENTRY_MAX 512
/** Most entries in one list (the flag's, or a request's). */
#define HOSTRES_ENTRIES_MAX 64

/** Checks an entry "host:port:address[,address...]": a non-empty host
 *  without ':', a port 1..65535, non-empty addresses (IPv6 in brackets), no
 *  white space, at most HOSTRES_ENTRY_MAX bytes. 0, or -1 with the reason
 *  in err. */
int hostres_check(const char *entry, char *err, size_t errlen);

#endif

/* traceid — W3C trace context ids for the requests of one worker.
 *
 * What it is for: with --traceparent (or a scenario's traceparent = true)
 * each request carries a fresh `traceparent: 00-<trace id>-<parent id>-01`
 * header (W3C Trace Context, version 00, sampled), so that a tester finds a
 * slow or failed request in the server's traces by its trace id.
 *
 * The ids come from a xoshiro256** generator seeded once per worker from
 * getrandom(2): three 64-bit draws and a table lookup per request, no system
 * call. Ids are random, not secret: nothing here is a key. An all-zero id
 * (invalid in the standard) is drawn again.
 *
 * Usage:
 *     traceid_gen g;
 *     traceid_init(&g);                       // once, at the worker's start
 *     char line[TRACEID_LINE_LEN + 1], id[TRACEID_HEX_LEN + 1];
 *     traceid_line(&g, line, id);             // "traceparent: 00-...-01", its trace id
 *     traceid_parse(value, id);               // a script's own header: its trace id */
#ifndef QUERN_TRACEID_H
#define QUERN_TRACEID_H

#include <stdint.h>

#define TRACEID_HEX_LEN 32                        /* hex digits of a trace id */
#define TRACEID_VALUE_LEN 55                      /* "00-" 32 "-" 16 "-01" */
#define TRACEID_LINE_LEN (13 + TRACEID_VALUE_LEN) /* "traceparent: " value */

/** One worker's id generator. */
typedef struct traceid_gen {
    uint64_t s[4]; /**< xoshiro256** state, never all zero */
} traceid_gen;

/** Seeds g from getrandom(2) (the clock and pid if that fails). */
void traceid_init(traceid_gen *g);
/** Seeds g from seed (tests: a repeatable sequence). */
void traceid_seed(traceid_gen *g, uint64_t seed);
/** Writes a fresh header line "traceparent: 00-T-P-01" (TRACEID_LINE_LEN
 *  characters and a NUL) into line, and its trace id T (TRACEID_HEX_LEN
 *  lowercase hex digits and a NUL) into id. */
void traceid_line(traceid_gen *g, char *line, char *id);
/** When value is a well-formed version-00 traceparent (lowercase hex, ids
 *  not all zero), writes its trace id into id (TRACEID_HEX_LEN + 1 bytes)
 *  and returns 0; else returns -1 and leaves id "". Surrounding blanks are
 *  allowed. */
int traceid_parse(const char *value, char *id);

#endif

/* trace — each request and response of a debug run, printed (--trace).
 *
 * What it is for: `quern run x.lua --trace` shows what one VU sends and gets,
 * as k6's --http-debug does: for each transfer, the method and URL (its
 * password redacted, common/redact.h), the request headers as libcurl sent
 * them (credentials in Authorization masked), the status and response
 * headers, the body's first TRACE_BODY_MAX bytes (cut between UTF-8
 * characters) and the timings (DNS, connect, TLS, time to first byte,
 * total), and the request's trace id when it sent a traceparent
 * (worker/wire/traceid.h). Mode 1 traces the VU of global index 1 only, mode 2 every VU
 * (--trace=all).
 *
 * Where it goes: the worker's stderr, which is the agent's: in a local run
 * the terminal of `quern run`, in a distributed run the agent's output on
 * its host. Each transfer is one write() of at most TRACE_OUT_MAX bytes.
 * That write may block the worker's loop: tracing is for a debug run, not
 * for a load test.
 *
 * Cost when off: the engine holds no trace (NULL) and each transfer pays one
 * branch. When on, the request headers are collected with libcurl's debug
 * callback (CURLINFO_HEADER_OUT), and the rest read with curl_easy_getinfo
 * when the transfer is done.
 *
 * Use: t = trace_new(mode, vu_count) (NULL when mode is 0);
 * trace_request(t, v, easy, method) when a transfer is set up;
 * trace_response(t, v, rc) when it completed (v->x filled); trace_free(t).
 * Internal to worker/. */
#ifndef QUERN_TRACE_H
#define QUERN_TRACE_H

#include <curl/curl.h>
#include <stdint.h>

struct vu;

/** Bytes of a response body printed. */
#define TRACE_BODY_MAX 1024u
/** Bytes of request headers kept per transfer (redirects add theirs). */
#define TRACE_REQ_MAX (16u << 10)
/** Largest output of one transfer. */
#define TRACE_OUT_MAX (48u << 10)

typedef struct trace trace;

/** A trace of mode 1 (VU 1) or 2 (every VU) over an engine's vu_count VUs;
 *  NULL when mode is 0. */
trace *trace_new(unsigned mode, uint32_t vu_count);
/** Releases it; NULL is fine. Every traced transfer is over. */
void trace_free(trace *t);
/** v's transfer on easy is set up: traced or not, libcurl is told (a pooled
 *  handle may have been traced for another VU). */
void trace_request(trace *t, struct vu *v, CURL *easy, const char *method);
/** v's transfer completed with rc: printed if it was traced. */
void trace_response(trace *t, struct vu *v, CURLcode rc);
/** A WebSocket event of v (what: "GET url", "101 in 2.1 ms", "sent text,
 *  5 bytes"), then text's lines (len bytes, at most TRACE_BODY_MAX; NULL:
 *  none) each after mark, if v is traced; t may be NULL. */
void trace_ws(trace *t, struct vu *v, const char *what, const char *mark, const char *text,
              size_t len);

#endif

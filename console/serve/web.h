/* web — `quern run --web HOST:PORT`: a live page of the run for a browser.
 *
 * What it is for: one self-contained page (console/serve/webpage.h: no file from
 * elsewhere, works offline) at "/", which polls "/state.json" every second
 * (console/serve/web_state.h) and draws the live table, the charts, the agents, the
 * thresholds and the progress; after the run, the verdict and the summary.
 * Read-only, unless the run has --control and --token-file: then a page
 * opened with "/?token=TOKEN" gets a secret of its own in the redirect's
 * fragment and shows controls, which POST to /control/COMMAND with it in
 * the X-Quern-Control header (never a cookie alone: no CSRF); the
 * commands are --control's (console/serve/ctlsrv.h).
 *
 * Cost: the loop renders the state once per merged second (web_show,
 * after agg_add) and swaps it in under a mutex; a request only copies
 * bytes, on libmicrohttpd's thread, bounded as console/serve/hsrv.h says.
 *
 * Access: as --metrics. A loopback address serves anyone on this host; any
 * other needs --token-file, and then each request must carry the token:
 * "Authorization: Bearer TOKEN", or the cookie WEB_COOKIE that "/?token=TOKEN"
 * sets (HttpOnly, SameSite=Strict) once, with a redirect to "/" so that the
 * token leaves the address bar (a browser cannot send a bearer header by
 * itself). The cookie holds a secret made for the run (WEB_SECRET_LEN random
 * bytes in hex), never the token: a browser sends it to every server on the
 * host, whatever the port. A '+' in the token may be typed as is after
 * "?token=" (a query decodes it to a space). Compared in constant time; 401
 * otherwise; never logged. Only GET and HEAD of "/" and "/state.json" are
 * answered (404 elsewhere, 405 for other methods); on loopback, a Host that
 * does not name the server gets 421 (console/serve/hsrv.h).
 *
 * Usage:
 *     if (web_check(&o) != 0) return 2;                 // after opts_parse
 *     web *w = web_start(&o, err, sizeof(err));         // NULL: err
 *     each merged second:  web_second(w, &agg, late);
 *                          if (!late) web_show(w, &in);   // what the page shows
 *     at the end:          web_final(w, &in);             // in.summary set
 *     hsrv_linger(...); web_stop(w);
 * The run fills in (console/webfeed.h): the page never reads struct run. */
#ifndef QUERN_WEB_H
#define QUERN_WEB_H

#include <stddef.h>

#include "console/agg.h"
#include "console/opts.h"
#include "console/serve/web_state.h"

/** The cookie "/?token=" sets is named this and the port ("quern_web_8089"):
 *  browsers keep cookies per host, not per port, and two consoles on one
 *  host must not overwrite each other's. */
#define WEB_COOKIE "quern_web_"

/** Random bytes of the cookie's secret (its value is them in hex). */
#define WEB_SECRET_LEN 32

struct ctlsrv;

/** A running page server; opaque. */
typedef struct web web;

/** Checks o->web as metrics_check does o->metrics. 0, or -1 after one
 *  usage line on stderr naming --web. */
int web_check(const run_opts *o);

/** Builds the page, reads the token (a non-loopback address), binds
 *  o->web, writes --web-port-file and logs the address. Returns the
 *  server, or NULL with a message in err. */
web *web_start(const run_opts *o, char *err, size_t errlen);

/** 1 while w takes what the run hands it: not NULL, web_final not run. */
int web_open(const web *w);

/** Adds the merged second of a (a->last; late: merged after its time) to
 *  the charts. Loop thread only; nothing when !web_open(w). */
void web_second(web *w, const agg *a, int late);

/** Renders in (borrowed; its run is w's own, whatever in->run says) as
 *  the state "/state.json" serves. Loop thread only; nothing when
 *  !web_open(w). */
void web_show(web *w, const web_state_input *in);

/** Renders the final state in (in->summary: the summary's JSON); nothing
 *  changes it after. NULL w is fine. */
void web_final(web *w, const web_state_input *in);

/** Stops serving and frees w (no linger: the caller waits first). NULL is
 *  fine. */
void web_stop(web *w);

/** With --control and --token-file the page has controls (pause, resume,
 *  vus, rate, stop), shown once it was opened with "/?token=TOKEN" (on
 *  loopback too): their commands go to ctl (borrowed; NULL: none yet). */
void web_set_control(web *w, struct ctlsrv *ctl);

#endif

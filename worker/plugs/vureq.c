/* vureq — the VU's own request as a plug; see vureq.h. */
#include "worker/plugs/vureq.h"

#include "worker/engine/engine.h"
#include "worker/engine/vu.h"
#include "worker/plugs/pageres.h"
#include "worker/plugs/trace.h"

/* easy, of v, ended with rc (CURLE_FAILED_INIT: the multi refused it, and it
 * never ran): 1 when it is v's own handle. */
static int plug_xfer_done(vu *v, CURL *easy, CURLcode rc)
{
    if (v->xh == NULL || easy != v->xh->easy)
        return 0;
    /* a handle the multi refused is in none: removing it is a no-op */
    curl_multi_remove_handle(engine_multi(v->eng), easy);
    vu_collect(v, v->xh, v->url, rc, &v->x, v->pend.step >= 0 && v->xfer_timed ? &v->pend : NULL);
    if (engine_trace(v->eng) != NULL)
        trace_response(engine_trace(v->eng), v, rc);
    if (!pageres_start(v))
        vu_xfer_resume(v); /* else once the page's resources are in */
    return 1;
}

const plug vureq_plug = {.name = "vureq", .xfer_done = plug_xfer_done};

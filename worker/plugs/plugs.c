/* plugs — the protocols the engine drives, in the order it asks them; see plug.h. */
#include "worker/plugs/plug.h"

#include "worker/plugs/batch.h"
#include "worker/plugs/dgram.h"
#include "worker/plugs/gstream.h"
#include "worker/plugs/pageres.h"
#include "worker/plugs/vureq.h"
#include "worker/plugs/sock.h"
#include "worker/plugs/sse.h"
#include "worker/plugs/websocket.h"

/* A page's resources and a batch's requests first: they are the VU's own
 * request fanned out; then the streams, each holding its own handles; the
 * VU's own request last, the handle none of the others took. */
const plug *const plugs[] = {&pageres_plug, &batch_plug, &websocket_plug, &sse_plug,
                             &gstream_plug, &sock_plug,  &dgram_plug,     &vureq_plug};
const size_t nplugs = sizeof(plugs) / sizeof(plugs[0]);

int plugs_xfer_done(struct vu *v, CURL *easy, CURLcode rc)
{
    for (size_t i = 0; i < nplugs; i++)
        if (plugs[i]->xfer_done != NULL && plugs[i]->xfer_done(v, easy, rc))
            return 1;
    return 0;
}

void plugs_vu_abort(struct vu *v)
{
    for (size_t i = 0; i < nplugs; i++)
        if (plugs[i]->vu_abort != NULL)
            plugs[i]->vu_abort(v);
}

void plugs_vu_finalize(struct vu *v)
{
    for (size_t i = 0; i < nplugs; i++)
        if (plugs[i]->vu_finalize != NULL)
            plugs[i]->vu_finalize(v);
}

void plugs_vu_end(struct vu *v)
{
    for (size_t i = 0; i < nplugs; i++)
        if (plugs[i]->vu_end != NULL)
            plugs[i]->vu_end(v);
}

void plugs_vu_free(struct vu *v)
{
    for (size_t i = 0; i < nplugs; i++)
        if (plugs[i]->vu_free != NULL)
            plugs[i]->vu_free(v);
}

void plugs_engine_end(struct engine *e)
{
    for (size_t i = 0; i < nplugs; i++)
        if (plugs[i]->engine_end != NULL)
            plugs[i]->engine_end(e);
}

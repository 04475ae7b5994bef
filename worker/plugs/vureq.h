/* vureq — the VU's own request as a plug: an HTTP request, a page's main
 * document, a unary gRPC call, each on the VU's easy handle.
 *
 * What it is for: the engine knows no protocol by name, the VU's own
 * transfer included. When that transfer ends (or could not start), this plug
 * takes it off the multi handle, reads its figures into the VU's pending
 * sample (vu_collect), prints it for --trace, and either starts the page's
 * resources (pageres.h) or resumes the script (vu_xfer_resume). It is the
 * last plug the engine asks: a page's, a batch's and a stream's handles are
 * their own plugs'.
 *
 * Usage: the table of worker/plugs/plugs.c; nothing calls it by name. */
#ifndef QUERN_VUREQ_H
#define QUERN_VUREQ_H

#include "worker/plugs/plug.h"

/** The VU's own request, for plugs.c's table. */
extern const plug vureq_plug;

#endif

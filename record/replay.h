/* replay — the scenario written from a recording: what is replayed, in
 * which steps, and the Lua of it.
 *
 * What it is for: `quern har2lua` parses a HAR (record/har.h) and hands it
 * here. The first page's origin becomes the base URL property; requests of
 * other origins are left out (unless an include glob keeps them) and
 * listed in the header, as are websockets and failed requests. Steps: a
 * page (a document navigation, with the redirects the browser followed for
 * it and, with REPLAY_RES_LIST, its static files, timed as one step:time
 * block) or an XHR/fetch call; labels from the page's <title>, the
 * recording's title or the path. Each request expects its recorded
 * status; think times are the recorded gaps between steps; bodies become
 * form = {...}, json = ... or body = ...; only the application's own
 * headers are kept; values the server handed out (record/correl.h) are
 * extracted after their response and used in place of the recorded ones;
 * fields named like secrets become properties.
 *
 * Usage:
 *     replay_opts o = {.source = "journey.har", .name = "JOURNEY", .prop = "base_url"};
 *     dbuf b; dbuf_init(&b, REPLAY_SCRIPT_MAX);
 *     if (replay_write(&h, &o, &b, err, sizeof(err)) != 0) ... too long: err says where ...
 */
#ifndef QUERN_REPLAY_H
#define QUERN_REPLAY_H

#include <stddef.h>

#include "common/dbuf.h"
#include "record/har.h"

/** How a page's static resources are replayed. */
typedef enum replay_res {
    REPLAY_RES_AUTO, /**< resources = true on the page's request (the engine fetches them) */
    REPLAY_RES_LIST, /**< each recorded resource requested, the page timed as one block */
    REPLAY_RES_NONE, /**< not replayed */
} replay_res;

/** The longest script written, in bytes: a recording that would pass it
 *  (large uploads, tens of thousands of calls) is refused, naming the
 *  request at fault, which --exclude leaves out. Four times what a run may
 *  bundle (BUNDLE_MAX_BYTES, proto/bundle.h): room for a script a tester
 *  trims before running it, not for one nobody could. */
#define REPLAY_SCRIPT_MAX (64u << 20)

/** The most include or exclude patterns. */
#define REPLAY_PATTERNS 16

/** What to write and how. */
typedef struct replay_opts {
    const char *source;                   /**< borrowed: the file's name, for the header */
    const char *name;                     /**< borrowed: the scenario's name */
    const char *prop;                     /**< borrowed: the base URL's property ("base_url") */
    replay_res resources;                 /**< static resources */
    const char *include[REPLAY_PATTERNS]; /**< borrowed: URL globs kept though of another origin */
    size_t ninclude;                      /**< number of include patterns */
    const char *exclude[REPLAY_PATTERNS]; /**< borrowed: URL globs left out */
    size_t nexclude;                      /**< number of exclude patterns */
} replay_opts;

/** Appends the scenario replaying h to out (its maximum bounds the
 *  script: REPLAY_SCRIPT_MAX for the command). Returns 0, or -1 with "the
 *  script would be longer than N bytes at step S, METHOD URL ..." in err
 *  when it does not fit (out then holds part of it). */
int replay_write(const har *h, const replay_opts *o, dbuf *out, char *err, size_t errlen);

#endif

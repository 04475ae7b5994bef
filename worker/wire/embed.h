/* embed — what an HTML page embeds, as a browser would load it, and which of
 * it a request's `resources` option keeps.
 *
 * What it is for: `resources = true` on a page request fetches the page's
 * static resources (pageres.h). This file finds them, with no I/O: the HTML is
 * parsed by libxml2's HTML parser (tolerant, like a browser's), and the
 * stylesheets' text is scanned for `url()` and `@import`. Every reference is
 * resolved against its base (the page's <base href>, else its URL; a
 * stylesheet's own URL for what it names) with curl_url, its fragment
 * dropped; only http: and https: URLs are kept, each once.
 *
 * Collected from HTML: <link rel=stylesheet> (marked as CSS, to be scanned
 * once fetched), <link rel=icon|shortcut icon|apple-touch-icon>, <script
 * src>, <img>: one image, as a browser with a 1x display picks it (the 1x
 * candidate of srcset, else src, else the narrowest `w` candidate),
 * <iframe src> and <frame src> (not parsed further), <input type=image
 * src>, <video poster>, and the url()s and @imports of <style> elements and
 * style attributes (an @import'ed stylesheet is CSS too). From a fetched
 * stylesheet: its url()s and @imports, not scanned further (one level).
 *
 * Filters: a pattern is a shell glob (fnmatch(3), `*` matching `/` too)
 * over the whole absolute URL, e.g. "https://cdn.example.com/" followed by a star, or
 * "*.woff2". With no include pattern only the page's origin (scheme, host,
 * port) is kept; with some, a URL must match one of them instead. A URL
 * matching an exclude pattern is dropped either way.
 *
 * Bounds: at most EMBED_MAX URLs a page (more are counted in `dropped`),
 * each at most EMBED_URL_MAX bytes (longer ones are dropped).
 *
 * Use:
 *     embed_list l; embed_list_init(&l);
 *     embed_html(&l, body, len, page_url);
 *     embed_origin(page_url, origin, sizeof(origin));
 *     for (i...) if (embed_keep(&filter, origin, l.v[i].url)) ...
 *     embed_css(&l, css, len, css_url);    // once a stylesheet is fetched
 *     embed_list_clear(&l);
 * Internal to worker/. */
#ifndef QUERN_EMBED_H
#define QUERN_EMBED_H

#include <stddef.h>
#include <stdint.h>

/** Resources kept from one page. */
#define EMBED_MAX 256u
/** Longest resource URL kept. */
#define EMBED_URL_MAX 2048u

/** One resource to load. */
typedef struct embed_ent {
    char *url;   /**< owned: absolute URL, no fragment */
    uint8_t css; /**< 1: a stylesheet, whose url()s are loaded too */
} embed_ent;

/** The resources of a page, in document order, each URL once. */
typedef struct embed_list {
    embed_ent *v; /**< owned array of n entries */
    size_t n, cap;
    size_t dropped; /**< references past EMBED_MAX or too long */
} embed_list;

/** Include and exclude patterns (shell globs over the absolute URL). */
typedef struct embed_filter {
    char **include; /**< owned array of owned patterns; none: the page's origin */
    size_t ninclude;
    char **exclude; /**< owned array of owned patterns */
    size_t nexclude;
} embed_filter;

/** Makes l empty. */
void embed_list_init(embed_list *l);
/** Frees what l owns and makes it empty. */
void embed_list_clear(embed_list *l);
/** Adds ref resolved against base (an absolute URL) unless it is not
 *  http(s), already there, too long, or the list is full. 1 added, else 0. */
int embed_add(embed_list *l, const char *base, const char *ref, size_t reflen, int css);

/** Adds what the HTML page at url (len bytes, any encoding libxml2 detects)
 *  embeds. Returns the number of entries added. */
size_t embed_html(embed_list *l, const char *html, size_t len, const char *url);
/** Adds the url()s and @imports of a stylesheet's text, resolved against
 *  base; @imports are marked css when import_css (a <style> element's). */
size_t embed_css(embed_list *l, const char *css, size_t len, const char *base, int import_css);

/** Writes "scheme://host:port" of url (host in lower case, the scheme's
 *  port when none is given) into out; 0, or -1 when url is no URL or it
 *  does not fit. */
int embed_origin(const char *url, char *out, size_t outlen);
/** 1 when url passes filter (NULL: the default), origin being the page's
 *  (embed_origin, computed once a page). */
int embed_keep(const embed_filter *filter, const char *origin, const char *url);
/** Adds a copy of pattern to the include (exclude = 0) or exclude list. */
void embed_filter_add(embed_filter *f, int exclude, const char *pattern);
/** Frees what f owns and zeroes it. */
void embed_filter_clear(embed_filter *f);

#endif

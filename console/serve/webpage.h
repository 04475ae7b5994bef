/* webpage — the one page `quern run --web` serves, compiled into the binary.
 *
 * What it is for: the page (HTML, CSS and script, nothing fetched from
 * elsewhere, so that it works offline) has one source,
 * console/serve/webpage.html; the Makefile turns it into
 * build/gen/console/serve/webpage_html.c, which defines webpage_html.
 * console/serve/web.c puts the reports' stylesheet (reports/html.h) in front
 * of it once, at start. The page polls state.json every second
 * (console/serve/web_state.h says what it holds) and draws it.
 * Internal to console/serve/. */
#ifndef QUERN_WEBPAGE_H
#define QUERN_WEBPAGE_H

#include <stddef.h>

/** The page's body: markup, its own style and script; NUL-terminated. */
extern const char webpage_html[];
/** Its length in bytes, without the NUL. */
extern const size_t webpage_html_len;

#endif

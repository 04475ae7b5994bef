/* version — the release every process reports: `quern version`, the Hello
 * of the console-agent link, the results database, the reports' footers and
 * the User-Agent a VU sends, the generator mark of the HTML pages (by which
 * the bundle knows them, proto/bundle.h). One define, so the processes cannot disagree. */
#ifndef QUERN_VERSION_H
#define QUERN_VERSION_H

/** The release, as `quern version` prints it. */
#define QUERN_VERSION "0.1.0"
/** The User-Agent header a VU sends unless its script sets one. */
#define QUERN_USER_AGENT "quern/" QUERN_VERSION
/** The start of the generator mark in the head of every HTML page quern
 *  writes (reports/html.c); a page carrying it is never shipped to agents. */
#define QUERN_HTML_GENERATOR_PREFIX "<meta name=\"generator\" content=\"quern"
/** The whole mark. */
#define QUERN_HTML_GENERATOR QUERN_HTML_GENERATOR_PREFIX " " QUERN_VERSION "\">\n"

#endif

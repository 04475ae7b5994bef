/* version — the release every process reports: `quern version`, the Hello
 * of the console-agent link, the results database, the reports' footers and
 * the User-Agent a VU sends. One define, so the processes cannot disagree. */
#ifndef QUERN_VERSION_H
#define QUERN_VERSION_H

/** The release, as `quern version` prints it. */
#define QUERN_VERSION "0.1.0"
/** The User-Agent header a VU sends unless its script sets one. */
#define QUERN_USER_AGENT "quern/" QUERN_VERSION

#endif

/* lcsv — CSV data feeders: quern.csv(path, opts) and the feeder object.
 *
 * The file is read and parsed once, when the script loads (RFC 4180: quoted
 * fields, doubled quotes, CRLF or LF line ends). It is kept compact: the file
 * buffer, unescaped in place, and one 8-byte (offset, length) cell per field;
 * feeder:next builds a fresh table for the row it hands out, so a script may
 * modify what it gets. For the unique and circular
 * modes the feeder counts the rows each VU has taken in a table keyed by
 * vu.id, so a call costs O(1) whatever the number of VUs.
 *
 * Use: lcsv_new is the quern.csv function of the quern module (lquern.h).
 * Internal to worker/. */
#ifndef QUERN_LCSV_H
#define QUERN_LCSV_H

#include <lua.h>

/** quern.csv(path, opts): reads a CSV file at load time and returns a feeder
 *  (methods next, count, row); see docs/scenarios.md, "Data feeders". */
int lcsv_new(lua_State *L);

#endif

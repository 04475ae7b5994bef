/* luaout — Lua source written from untrusted text: every byte that comes
 * from a recording (a name, a value, a URL, a title, the file's name) goes
 * into the script through one of these, made inert where it lands.
 *
 * What it is for: a HAR file is data from anyone (a colleague, a proxy, a
 * page that chose its own field names). A line break in a comment ends the
 * comment (Lua ends a line on "\n" and on "\r"), a quote in a string ends
 * the string, and what follows would run when the script loads. So the
 * writers (record/replay.c, record/correl.c) never print recorded text with
 * fprintf("%s"); they call:
 *   - luaout_str / luaout_str_n: a string literal, every byte that is not
 *     plain printable ASCII or well-formed UTF-8 written as "\ddd" (quotes,
 *     backslashes, control bytes, C1 controls, invalid UTF-8, the Unicode
 *     controls that reorder or break lines on screen);
 *   - luaout_comment: a comment's text, with no line end of any kind, no
 *     control byte, no terminal escape, no reordering character, invalid
 *     UTF-8 replaced (each by '?'), at most LUAOUT_COMMENT_MAX bytes;
 *   - luaout_key: a table key, bare when it is a Lua name, else ["..."];
 *   - luaout_name: a name made of [A-Za-z0-9_] only (a property name given
 *     on a command line, a local's name), other bytes mapped to '_'.
 * luaout_plain says whether text may stand as it is (inside an XPath or an
 * index chain that is then written whole). They append to a dbuf: one that
 * is full keeps its refusal (out->refused), which the writer checks once.
 *
 * Usage:
 *     luaout_str(out, url);                          // "http://h/a\010b"
 *     luaout_comment(out, "  -- ", "%s: %s", var, why);  // one line, '\n' added
 *     char prop[64]; luaout_name(field, prop, sizeof(prop));
 */
#ifndef QUERN_LUAOUT_H
#define QUERN_LUAOUT_H

#include <stddef.h>

#include "common/dbuf.h"

/** The most bytes of text one comment line holds (longer text is cut at a
 *  character's boundary and ends with "..."). */
#define LUAOUT_COMMENT_MAX 1024

/** Writes s as a Lua string literal, quotes included. */
void luaout_str(dbuf *out, const char *s);

/** Writes the n bytes of s (NUL bytes included) as a string literal's
 *  content, without the quotes. */
void luaout_str_n(dbuf *out, const char *s, size_t n);

/** Writes a table key followed by " = ": `k = ` when k is a Lua name and no
 *  keyword, else `["k"] = `. */
void luaout_key(dbuf *out, const char *k);

/** Writes lead (the caller's own text: "-- ", "--   ", or " -- " after
 *  code; "--" then a space, so that no text starts a long comment) and then
 *  the text printf formats, made inert as said above, and a '\n'. */
void luaout_comment(dbuf *out, const char *lead, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/** Copies s into out (len bytes, NUL-ended, cut to len - 1) with every
 *  byte other than [A-Za-z0-9_] as '_'. Returns the length written. */
size_t luaout_name(const char *s, char *out, size_t len);

/** 1 when s is not empty, shorter than max bytes and made only of
 *  [A-Za-z0-9_.:[]-]: it may then stand as it is inside a string literal,
 *  a comment or an XPath between quotes; else 0. */
int luaout_plain(const char *s, size_t max);

#endif

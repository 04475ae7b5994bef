/* ignore — a folder's ignore file (.quernignore) in gitignore syntax, and
 * the test of a path against it.
 *
 * What it is for: the console leaves out of the scenario's bundle the files
 * the tester names in the script folder's .quernignore (proto/bundle.h).
 * The rules are git's (gitignore(5)), so a tester can copy a .gitignore:
 *   - a blank line or a line starting with '#' is nothing; "\#" and "\!"
 *     start a pattern with those characters; trailing spaces are dropped
 *     unless escaped ("\ "), and so is a trailing CR;
 *   - '!' before a pattern re-includes what an earlier rule excluded; the
 *     last rule that matches a path decides;
 *   - a trailing '/' matches folders only;
 *   - a pattern with a '/' at its start or middle is anchored to the
 *     folder of the file (a leading '/' only anchors); one without matches
 *     a name at any depth;
 *   - '*' is any run of characters but '/', '?' one of them, "[...]" a set
 *     ("[!...]" or "[^...]" its complement, ranges, "[:alpha:]" classes),
 *     '\' quotes the next character; two stars alone between slashes, or
 *     at either end, are any number of folders: leading, at any depth;
 *     trailing, everything inside the folder (not the folder itself, so a
 *     later '!' can bring one file back); in the middle, zero folders or
 *     more; elsewhere two stars are one.
 * A folder excluded is not walked, so nothing under it can be re-included
 * (as git). Where git silently never matches (an unclosed '[', a trailing
 * lone '\', an empty pattern after '!'), ignore_parse refuses the line.
 *
 * Usage:
 *     ignore *ig = ignore_parse(text, len, "scen/.quernignore", err, sizeof(err));
 *     if (ig == NULL) ... err is "scen/.quernignore:3: ..."
 *     if (ignore_match(ig, "data/big.csv", 0)) ... left out
 *     ignore_free(ig); */
#ifndef QUERN_IGNORE_H
#define QUERN_IGNORE_H

#include <stddef.h>

/** Longest line of an ignore file. */
#define IGNORE_LINE_MAX 4096
/** Largest ignore file. */
#define IGNORE_FILE_MAX (256u * 1024u)

/** The rules of one ignore file. */
typedef struct ignore ignore;

/** Parses len bytes of an ignore file; name (borrowed) is the file's name
 *  for messages. Returns the rules (owned by the caller: ignore_free), or
 *  NULL with err "NAME:LINE: why" for the first malformed line. */
ignore *ignore_parse(const char *text, size_t len, const char *name, char *err, size_t errlen);

/** 1 if the last rule matching path says it is ignored, else 0. path is
 *  relative to the ignore file's folder, '/'-separated, without a leading
 *  '/'; is_dir says it names a folder. ig NULL: 0. */
int ignore_match(const ignore *ig, const char *path, int is_dir);

/** Rules held (lines that are not blank or comments). */
size_t ignore_count(const ignore *ig);

/** Frees ig; NULL is fine. */
void ignore_free(ignore *ig);

#endif

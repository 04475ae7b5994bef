/* html — what the HTML pages share: the page frame with its stylesheet,
 * escaping, number formats, and writing the file.
 *
 * What it is for: `quern report` and `quern compare` each write one
 * self-contained HTML file that opens offline: no script, no external style,
 * font or image. The charts in them are reports/chart.h.
 *
 * Usage:
 *     html_write_file(path, emit, arg, err, sizeof(err)); // emit(out, arg) writes:
 *     html_head(out, "quern report: run 12");        // <!DOCTYPE>, <style>, <body>
 *     html_esc(out, text_from_the_database);          // always escape DB text
 *     html_foot(out);
 *
 * Output goes through stdio: the caller checks ferror() once at the end. */
#ifndef QUERN_HTML_H
#define QUERN_HTML_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/** Writes s with &, <, >, " and ' escaped and control characters replaced
 *  by spaces, so it is safe as element text and inside quoted attributes.
 *  NULL writes nothing. */
void html_esc(FILE *out, const char *s);

/** Writes the document start: doctype, <head> with the title (escaped) and
 *  the stylesheet, and opens <body>. */
void html_head(FILE *out, const char *title);
/** Closes the document opened by html_head. */
void html_foot(FILE *out);

/** Formats a latency given in microseconds as milliseconds with a precision
 *  that suits its size ("0.42", "12.3", "1250"). Returns buf. */
const char *html_ms(double us, char *buf, size_t len);
/** Formats a count with thin spaces between thousands ("1 234 567").
 *  Returns buf. */
const char *html_count(uint64_t n, char *buf, size_t len);
/** Formats a rate or other real with about three significant digits.
 *  Returns buf. */
const char *html_num(double v, char *buf, size_t len);
/** Formats an epoch time in microseconds as local "YYYY-MM-DD HH:MM:SS".
 *  Returns buf. */
const char *html_time(int64_t us, char *buf, size_t len);

/** Writes a whole file through emit(out, arg) into path by common/ofile.h's
 *  rule (a regular file atomically, a device or FIFO written through). 0, or
 *  -1 with err set. */
int html_write_file(const char *path, void (*emit)(FILE *out, const void *arg), const void *arg,
                    char *err, size_t errlen);

#endif

/* redact — hiding secrets before text is written somewhere others read.
 *
 * What it is for: quern writes URLs and command lines into files that
 * outlive a run (the results database, JTL files, logs, error messages).
 * A password in a URL's user-info ("http://u:secret@host/") or in a
 * property given on the command line ("-p password=secret") must not reach
 * them. These functions copy text with those secrets replaced by
 * REDACT_MASK; they never allocate and never write past the buffer given.
 *
 * Usage:
 *     char safe[512];
 *     redact_url(url_or_message, safe, sizeof(safe));   // any text holding URLs
 *     redact_argv(argc, argv, line, sizeof(line));       // a command line, shell-quoted
 *     if (redact_key_is_secret("DB_PASSWORD")) ...       // 1
 *
 * Each function returns the length the whole result has (as snprintf does):
 * a value >= outlen means out was truncated (always NUL-terminated when
 * outlen > 0). */
#ifndef QUERN_REDACT_H
#define QUERN_REDACT_H

#include <stddef.h>

/** What a secret is replaced with. */
#define REDACT_MASK "***"

/** Copies in to out with the password of every URL's user-info replaced
 *  by REDACT_MASK: "http://u:pw@host/x" becomes "http://u:***@host/x". A
 *  URL is anything after "scheme://"; its authority ends at '/', '?', '#',
 *  a space, a quote or the end of in, and its user-info at the last '@'
 *  of the authority. A user without a password ("http://u@host") is kept.
 *  So is the value of every query parameter whose key names a secret
 *  (redact_key_is_secret) or is "p" (InfluxDB 1.x's password):
 *  "http://h/write?db=x&p=pw&token=t" becomes "...?db=x&p=***&token=***".
 *  in may be any text (a message, a JTL line) holding any number of URLs.
 *  Returns the length of the whole result (>= outlen: truncated). */
size_t redact_url(const char *in, char *out, size_t outlen);

/** 1 when a property key names a secret: it contains, whatever the case,
 *  "password", "passwd", "secret", "token", "key", "auth" or
 *  "credential" ("DB_PASSWORD", "apiKey", "auth_header"); else 0. */
int redact_key_is_secret(const char *key);

/** Copies a property argument "KEY=VALUE" to out, with VALUE replaced by
 *  REDACT_MASK when KEY names a secret (redact_key_is_secret), and URL
 *  passwords in VALUE redacted otherwise. Returns the length of the whole
 *  result (>= outlen: truncated). */
size_t redact_property(const char *kv, char *out, size_t outlen);

/** Joins the argc arguments of argv into one shell command line, each
 *  argument quoted for a POSIX shell when it needs it ('it'\''s'), with
 *  secrets redacted: the value of a property option ("-p K=V",
 *  "--property K=V", "--property=K=V") as redact_property does, the value
 *  of a header option whose name names a secret ("--out-header
 *  'Authorization: Bearer T'" becomes "'Authorization: ***'"), and URL
 *  passwords in every argument as redact_url does. Returns the length of
 *  the whole result (>= outlen: truncated, possibly inside an argument). */
size_t redact_argv(int argc, const char *const *argv, char *out, size_t outlen);

#endif

/* termsafe — text quern did not write (names from a results database, from
 * an agent, from a script) made safe to print on a terminal.
 *
 * What it is for: a terminal acts on some bytes instead of showing them: ESC
 * starts sequences that retitle the window, clear the screen, move the
 * cursor or (on some) write files; other C0 and C1 controls and DEL do too;
 * the bidi controls (U+202A-U+202E, U+2066-U+2069) reorder what follows, so
 * a line reads other than it is. Anyone who can write a run's name (a
 * shared database, a script's name, --name) would reach the terminal of
 * whoever lists the runs. Every name `quern runs`, `quern compare` and the
 * console print goes through termsafe first, which shows such bytes as
 * escapes: ESC is "\x1b", U+202E "\u202e", a byte that is not well-formed
 * UTF-8 "\xff". Everything else, other UTF-8 included, is kept.
 *
 * Usage:
 *     char nm[TERMSAFE_MAX];
 *     printf("run \"%s\"\n", termsafe(r->name, nm, sizeof(nm))); */
#ifndef QUERN_TERMSAFE_H
#define QUERN_TERMSAFE_H

#include <stddef.h>

/** Room for a name shown by termsafe, NUL included: a longer one is cut. */
#define TERMSAFE_MAX 1024

/** Writes s (NULL: "") into buf (len > 0 bytes, always NUL-terminated) with
 *  every control (C0, ESC, DEL, C1), bidi control and invalid UTF-8 byte
 *  shown as an escape; cut, when it does not fit, at a whole character or
 *  escape. Returns buf. */
const char *termsafe(const char *s, char *buf, size_t len);

#endif

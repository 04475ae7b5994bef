/* correl — correlation: the values a recording sent that the server gave
 * in an earlier response, and how a replay extracts them.
 *
 * What it is for: a replay that sends a recorded CSRF token, order id or
 * session-bound value again fails. For each value a kept request sends (a
 * form field, a JSON leaf, a query value, a path segment, a kept header),
 * correl_find looks for it in the earlier responses: a hidden <input> or a
 * <meta> of an HTML page (extracted with r:xpath), a leaf of a JSON body
 * (r:json()), a segment of a Location header (string.match). Values the
 * recording had sent before that response (what the tester typed, echoed
 * back) and short or common values are left alone. Each rule names a Lua
 * local, the expression that sets it from the source's response `r`, and a
 * comment saying where the value came from.
 *
 * Each response is read once (correl_find indexes the values its hidden
 * inputs, metas, JSON leaves and Location segments hold), so that a large
 * recording converts in time proportional to its size.
 *
 * Usage:
 *     correl c;
 *     correl_find(&h, keep, &c);            // keep[i]: entry i is replayed
 *     const correl_rule *r = correl_lookup(&c, "a1b2c3", j);  // in request j
 *     correl_free(&c);
 */
#ifndef QUERN_CORREL_H
#define QUERN_CORREL_H

#include <stddef.h>

#include "record/har.h"
#include "record/strtab.h"

/** One correlated value. */
typedef struct correl_rule {
    size_t src;  /**< the entry whose response gives it */
    char *var;   /**< owned, the Lua local's name */
    char *value; /**< owned, the recorded value */
    char *expr;  /**< owned, Lua that computes it from the response r */
    char *why;   /**< owned, where it came from, for the comment */
} correl_rule;

/** The rules of a recording, in the order of the requests that first send
 *  their values; one rule a value at most. */
typedef struct correl {
    correl_rule *r; /**< owned, n rules */
    size_t n;       /**< number of rules */
    size_t cap;     /**< room in r */
    strtab byvalue; /**< owned: a rule's value to its index in r */
    strtab vars;    /**< owned: the locals' names taken */
    strtab bases;   /**< owned: a name's stem to the last suffix _N given to it */
} correl;

/** Finds the rules of h's entries marked in keep (n = h->n bytes). */
void correl_find(const har *h, const unsigned char *keep, correl *c);

/** The rule for value as sent by entry at (its source before it), or NULL. */
const correl_rule *correl_lookup(const correl *c, const char *value, size_t at);

/** Calls fn for each value e sends: form fields, JSON leaves (numbers as
 *  their text), query values, path segments, kept headers' values. name is
 *  the field's or header's name ("" for a path segment). */
void correl_sent(const har_entry *e, void (*fn)(void *arg, const char *name, const char *value),
                 void *arg);

/** Frees the rules; c is empty after. */
void correl_free(correl *c);

#endif

/* props — test properties (key = value), from a file and the command line.
 *
 * What it is for: a test is configured by a properties file
 * (quern.properties, in the spirit of Java/Grinder properties) and by
 * `-p key=value` options, which override the file. The console reads them
 * into one props and hands values to whoever needs them.
 *
 * File format, one property per line:
 *     key = value        key=value        key: value
 * The first '=' or ':' separates key from value (so a value may contain
 * either); whitespace around key and value is trimmed; blank lines and lines
 * starting with '#' or '!' are ignored; a later line overrides an earlier
 * one. There are no escapes and no line continuations.
 *
 * Usage:
 *     props *p = props_new();
 *     if (props_load_file(p, "quern.properties", err, sizeof(err)) != 0 ||
 *         props_set_arg(p, optarg, err, sizeof(err)) != 0)
 *         ...report err...
 *     const char *v = props_get(p, "quern.threads");   // NULL if absent
 *     props_free(p);
 *
 * Keys keep the order in which they were first set. Lookups are linear:
 * property sets are small. */
#ifndef QUERN_PROPS_H
#define QUERN_PROPS_H

#include <stddef.h>

/** Longest line props_load_file accepts, in bytes. */
#define PROPS_LINE_MAX 65536

/** An opaque set of properties; created by props_new, released by props_free. */
typedef struct props props;

/** Returns a new, empty property set. */
props *props_new(void);

/** Frees p and every key and value; NULL is fine. */
void props_free(props *p);

/** Loads the properties file at path into p, each line overriding what is
 * already set. Returns 0, or -1 with a message in err (which may be NULL):
 * "cannot open PATH: <strerror>" if the file cannot be read, or
 * "PATH:LINE: <message>" for a line without '=' or ':', with an empty key,
 * or longer than PROPS_LINE_MAX. On error p is left unchanged. */
int props_load_file(props *p, const char *path, char *err, size_t errlen);

/** Sets one property from a "key=value" argument (as given to -p); key and
 * value are trimmed. Returns 0, or -1 with a message in err (which may be
 * NULL) if there is no '=' or the key is empty; p is then unchanged. */
int props_set_arg(props *p, const char *arg, char *err, size_t errlen);

/** Sets key to value, both copied; an existing key keeps its position and
 * gets the new value. */
void props_set(props *p, const char *key, const char *value);

/** Returns key's value, or NULL if it is not set. The string is owned by p
 * and valid until key is set again or p is freed. */
const char *props_get(const props *p, const char *key);

/** Returns the number of distinct keys. */
size_t props_count(const props *p);

/** Returns the i-th key in insertion order, or NULL if i >= props_count(p).
 * Owned by p. */
const char *props_key(const props *p, size_t i);

/** Returns the i-th value in insertion order, or NULL if i >= props_count(p).
 * Owned by p, valid until that key is set again or p is freed. */
const char *props_value(const props *p, size_t i);

#endif

#include "common/errkinds.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/mem.h"
#include "common/redact.h"
#include "common/utf8.h"

errkinds *errkinds_new(void)
{
    return xcalloc(1, sizeof(errkinds));
}

void errkinds_free(errkinds *t)
{
    xfree(t);
}

void errkinds_reset(errkinds *t)
{
    if (t == NULL)
        return;
    t->n = 0;
    t->other[0].count = 0;
    t->other[1].count = 0;
}

uint64_t errkinds_total(const errkinds *t)
{
    uint64_t n = 0;

    if (t == NULL)
        return 0;
    for (size_t i = 0; i < t->n; i++)
        n += t->k[i].count;
    return n + t->other[0].count + t->other[1].count;
}

/* --- folding ----------------------------------------------------------- */

#define ERRKIND_FOLD_IN 512 /* bytes of a message read (the rest is past the bound) */

/* Copies in[0..n) to out (cap bytes, NUL included) as UTF-8 without control
 * characters: a stray byte is '?', a control a space. */
static void clean_text(const char *in, size_t n, char *out, size_t cap)
{
    size_t o = 0;

    for (size_t i = 0; i < n && o + 1 < cap;) {
        uint32_t cp = 0;
        size_t len = utf8_decode((const unsigned char *)in + i, n - i, &cp);
        if (len == 0) {
            out[o++] = '?';
            i++;
        } else if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0)) {
            out[o++] = ' ';
            i += len;
        } else if (o + len < cap) {
            memcpy(out + o, in + i, len);
            o += len;
            i += len;
        } else {
            break;
        }
    }
    out[o] = '\0';
}

/* A bounded writer that takes each piece whole or not at all: once one
 * does not fit, it is full and takes nothing more, so that its text ends
 * at a piece's end (cut inside a word, "deadbeef-x" would read as an id
 * when folded again). out stays terminated. */
typedef struct fold_out {
    char *s;         /* borrowed: the caller's buffer, cap bytes */
    size_t len, cap; /* cap counts the NUL */
    int full;
} fold_out;

static void put(fold_out *o, const char *p, size_t n)
{
    if (o->full || n > o->cap - 1 - o->len) {
        o->full = 1;
        return;
    }
    memcpy(o->s + o->len, p, n);
    o->len += n;
    o->s[o->len] = '\0';
}

static int is_word(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
           c == '-';
}

static int is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

/* 1 when s[0..n) is an id: hex digits and dashes with a digit and a letter
 * a-f, 8 or more; or letters and digits with both, 16 or more. */
static int is_id(const char *s, size_t n)
{
    int hex = 1, digit = 0, hexletter = 0, letter = 0, alnum = 1;

    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        int d = is_digit(c), hl = (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
        int l = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        digit |= d;
        hexletter |= hl;
        letter |= l;
        if (!d && !hl && c != '-')
            hex = 0;
        if (!d && !l)
            alnum = 0;
    }
    return (n >= 8 && hex && digit && hexletter) || (n >= 16 && alnum && digit && letter);
}

/* 1 when msg[0..at) ends with w, a whole word and a space ("status "). */
static int after_word(const char *msg, size_t at, const char *w)
{
    size_t n = strlen(w);

    return at >= n && memcmp(msg + at - n, w, n) == 0 &&
           (at == n || !is_word((unsigned char)msg[at - n - 1]));
}

/* 1 when the digits msg[at..at+n) are kept: the kind's code when it is an
 * HTTP status, a script's
 * line ("x.lua:12"), an HTTP status after "status " or "got ". */
static int keep_number(const char *msg, size_t at, size_t n, int32_t code)
{
    char c[16];
    /* an HTTP status only: libcurl's small codes would keep "after 28 ms" */
    int clen = code >= 100 ? snprintf(c, sizeof(c), "%d", (int)code) : 0;

    if (clen > 0 && (size_t)clen == n && memcmp(msg + at, c, n) == 0)
        return 1;
    if (at >= 5 && memcmp(msg + at - 5, ".lua:", 5) == 0)
        return 1;
    if (n == 3 && msg[at] >= '1' && msg[at] <= '5' &&
        (after_word(msg, at, "status ") || after_word(msg, at, "got ")))
        return 1;
    return 0;
}

/* A word: an id becomes ID; else each of its parts between dashes and
 * underscores has its leading digits ("3000", "200ms") folded to N unless
 * kept; digits after a letter ("e2e", "http2", "sha256") are a name. */
static void fold_word(fold_out *out, const char *msg, size_t at, size_t n, int32_t code)
{
    char buf[ERRKIND_FOLD_IN];
    fold_out w = {buf, 0, sizeof(buf), 0}, *o = &w;
    size_t end = at + n;

    if (is_id(msg + at, n)) {
        put(out, "ID", 2);
        return;
    }
    while (at < end) {
        size_t d = 0, part = 0;
        while (at + d < end && is_digit((unsigned char)msg[at + d]))
            d++;
        if (d > 0 && !keep_number(msg, at, d, code)) {
            put(o, "N", 1);
            at += d;
        }
        while (at + part < end && msg[at + part] != '-' && msg[at + part] != '_')
            part++;
        if (at + part < end)
            part++; /* the separator */
        put(o, msg + at, part);
        at += part;
    }
    put(out, buf, w.len); /* whole */
}

/* The quoted value at msg[i] (a quote), when it closes: its start, "..." */
static size_t fold_quote(fold_out *o, const char *msg, size_t i)
{
    const char *close = strchr(msg + i + 1, msg[i]);
    char buf[ERRKIND_QUOTE_MAX + 8], red[2 * ERRKIND_QUOTE_MAX + 16];
    size_t n, k;

    if (close == NULL)
        return 0;
    n = (size_t)(close - (msg + i + 1));
    /* cut only past the room of "...": a value cut once is not cut again */
    k = n > ERRKIND_QUOTE_MAX + 3 ? utf8_cut(msg + i + 1, n, ERRKIND_QUOTE_MAX) : n;
    buf[0] = msg[i];
    memcpy(buf + 1, msg + i + 1, k);
    if (k < n) {
        memcpy(buf + 1 + k, "...", 3);
        k += 3;
    }
    buf[1 + k] = msg[i];
    buf[2 + k] = '\0';
    /* a cut inside a secret query value ("?p=**...") is redacted again now,
     * so that a second folding finds nothing more to hide */
    redact_url(buf, red, sizeof(red));
    put(o, red, strlen(red)); /* whole */
    return n + 2;
}

size_t errkinds_fold(const char *msg, int32_t code, char *out, size_t outlen)
{
    char safe[ERRKIND_FOLD_IN], clean[ERRKIND_FOLD_IN];
    fold_out o = {out, 0, outlen < ERRKIND_MSG_MAX ? outlen : ERRKIND_MSG_MAX, 0};
    size_t i = 0, n;

    if (outlen == 0)
        return 0;
    out[0] = '\0';
    /* well-formed, no control character (quoted values are copied as is),
     * then redacted: what redaction reads is what is kept */
    if (msg == NULL)
        msg = "error";
    clean_text(msg, strnlen(msg, sizeof(safe) - 1), safe, sizeof(safe));
    redact_url(safe, clean, sizeof(clean));
    n = strlen(clean);
    while (i < n && !o.full) {
        unsigned char c = (unsigned char)clean[i];
        uint32_t cp;
        size_t len, q;

        if (c == ' ') {
            if (o.len > 0 && out[o.len - 1] != ' ')
                put(&o, " ", 1);
            i++;
        } else if ((c == '"' || c == '\'') && (i == 0 || !is_word((unsigned char)clean[i - 1])) &&
                   (q = fold_quote(&o, clean, i)) > 0) {
            i += q;
        } else if (is_word(c)) {
            size_t j = i;
            while (j < n && is_word((unsigned char)clean[j]))
                j++;
            fold_word(&o, clean, i, j - i, code);
            i = j;
        } else {
            /* 0 only for a character the redaction's bound cut */
            len = utf8_decode((const unsigned char *)clean + i, n - i, &cp);
            put(&o, len > 0 ? clean + i : "?", len > 0 ? len : 1);
            i += len > 0 ? len : 1;
        }
    }
    while (o.len > 0 && out[o.len - 1] == ' ')
        out[--o.len] = '\0';
    return o.len;
}

/* --- examples ---------------------------------------------------------- */

void errkinds_example_set(errkind_example *ex, const char *url, int status, const char *body,
                          size_t len, const char *trace)
{
    char raw[ERRKIND_BODY_MAX + 1], safe[ERRKIND_URL_MAX + 64];

    memset(ex, 0, sizeof(*ex));
    if (url != NULL) {
        redact_url(url, safe, sizeof(safe));
        clean_text(safe, strlen(safe), ex->url, sizeof(ex->url));
    }
    ex->status = status;
    if (body != NULL && len > 0) {
        /* cleaned before redacting (a URL ends at a control), and after
         * (what the mask or the cut left) */
        clean_text(body, len < ERRKIND_BODY_MAX ? len : ERRKIND_BODY_MAX, raw, sizeof(raw));
        redact_url(raw, safe, sizeof(safe));
        clean_text(safe, strlen(safe), ex->body, sizeof(ex->body));
    }
    if (trace != NULL)
        snprintf(ex->trace, sizeof(ex->trace), "%s", trace);
}

/* --- the table --------------------------------------------------------- */

int errkinds_is_other(const errkind *k)
{
    return k->code == 0 && strcmp(k->msg, ERRKIND_OTHER) == 0;
}

const char *errkinds_class(const errkind *k)
{
    return k->technical ? "technical" : "functional";
}

/* dst takes k's count and times; the example of the earliest. */
static void add_into(errkind *dst, const errkind *k)
{
    if (dst->count == 0 || k->first_ms < dst->first_ms) {
        if (dst->count == 0 || k->ex.url[0] != '\0' || k->ex.status != 0 || k->ex.trace[0] != '\0')
            dst->ex = k->ex;
        dst->first_ms = k->first_ms;
    }
    if (dst->count == 0 || k->last_ms > dst->last_ms)
        dst->last_ms = k->last_ms;
    dst->count += k->count;
}

void errkinds_add(errkinds *t, const errkind *k)
{
    errkind *o = &t->other[k->technical ? 1 : 0];

    if (k->count == 0)
        return;
    if (!errkinds_is_other(k)) {
        for (size_t i = 0; i < t->n; i++) {
            errkind *e = &t->k[i];
            if (e->technical == k->technical && e->code == k->code && strcmp(e->msg, k->msg) == 0) {
                add_into(e, k);
                return;
            }
        }
        if (t->n < ERRKIND_MAX) {
            errkind *e = &t->k[t->n++];
            *e = *k;
            e->technical = k->technical ? 1 : 0;
            e->msg[sizeof(e->msg) - 1] = '\0';
            return;
        }
    }
    if (o->count == 0) {
        memset(o, 0, sizeof(*o));
        o->technical = k->technical ? 1 : 0;
        err_set(o->msg, sizeof(o->msg), "%s", ERRKIND_OTHER);
    }
    add_into(o, k);
}

void errkinds_note(errkinds *t, int technical, int32_t code, const char *msg, int64_t now_ms,
                   const errkind_example *ex)
{
    errkind k;

    k.technical = technical ? 1 : 0;
    k.code = code;
    errkinds_fold(msg, code, k.msg, sizeof(k.msg));
    if (errkinds_is_other(&k))
        k.msg[0] = '['; /* a message that reads so stays apart from the other rows */
    k.count = 1;
    k.first_ms = k.last_ms = now_ms;
    if (ex != NULL)
        k.ex = *ex;
    else
        memset(&k.ex, 0, sizeof(k.ex));
    errkinds_add(t, &k);
}

void errkinds_merge(errkinds *dst, const errkinds *src)
{
    if (src == NULL)
        return;
    for (size_t i = 0; i < src->n; i++)
        errkinds_add(dst, &src->k[i]);
    errkinds_add(dst, &src->other[0]);
    errkinds_add(dst, &src->other[1]);
}

static int by_count(const void *a, const void *b)
{
    const errkind *x = *(const errkind *const *)a, *y = *(const errkind *const *)b;

    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    if (x->first_ms != y->first_ms)
        return x->first_ms < y->first_ms ? -1 : 1;
    return 0;
}

size_t errkinds_sorted(const errkinds *t, const errkind *rows[ERRKIND_ROWS])
{
    size_t n = 0;

    if (t == NULL)
        return 0;
    for (size_t i = 0; i < t->n; i++)
        if (t->k[i].count > 0)
            rows[n++] = &t->k[i];
    qsort(rows, n, sizeof(rows[0]), by_count);
    for (int c = 1; c >= 0; c--)
        if (t->other[c].count > 0)
            rows[n++] = &t->other[c];
    return n;
}

size_t errkinds_by_code(const errkinds *t, errkind out[ERRKIND_ROWS])
{
    const errkind *rows[ERRKIND_ROWS];
    size_t n = errkinds_sorted(t, rows), m = 0;

    for (size_t i = 0; i < n; i++) {
        const errkind *k = rows[i];
        int other = errkinds_is_other(k);
        size_t j = 0;
        while (j < m && !(out[j].technical == k->technical && out[j].code == k->code &&
                          errkinds_is_other(&out[j]) == other))
            j++;
        if (j == m) {
            memset(&out[m], 0, sizeof(out[m]));
            out[m].technical = k->technical;
            out[m].code = k->code;
            err_set(out[m].msg, sizeof(out[m].msg), "%s", other ? ERRKIND_OTHER : "");
            out[m].first_ms = k->first_ms;
            out[m].last_ms = k->last_ms;
            m++;
        }
        out[j].count += k->count;
        if (k->first_ms < out[j].first_ms)
            out[j].first_ms = k->first_ms;
        if (k->last_ms > out[j].last_ms)
            out[j].last_ms = k->last_ms;
    }
    return m;
}

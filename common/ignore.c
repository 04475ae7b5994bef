/* ignore — gitignore rules; see ignore.h. */
#include "common/ignore.h"

#include <ctype.h>
#include <string.h>

#include "common/err.h"
#include "common/mem.h"

typedef struct ignore_rule {
    char *pat;    /**< owned: the pattern, its '!', leading and trailing '/' removed */
    int negate;   /**< '!': re-includes */
    int dir_only; /**< trailing '/': folders only */
    int anchored; /**< a '/' at its start or middle: matched against the whole path */
} ignore_rule;

struct ignore {
    ignore_rule *rules; /**< owned: n rules, in the file's order */
    size_t n;
};

/* What a match attempt says: beyond NOMATCH, ABORT_ALL means no later
 * position of an enclosing '*' can match either (the text ran out), and
 * ABORT_DIR that only a "**" can go on past a '/'. They keep the
 * backtracking linear in practice, whatever the number of stars. */
enum { M_MATCH = 0, M_NOMATCH = 1, M_ABORT_ALL = -1, M_ABORT_DIR = -2 };

/* A "[:name:]" class at p (just after its '[' and ':'), matching c: 1 or 0
 * in *hit, the class's length past p returned, 0 when it is not one. */
static size_t posix_class(const char *p, unsigned char c, int *hit)
{
    static const struct {
        const char *name; /* borrowed: a literal */
        int (*fn)(int);
    } cls[] = {{"alnum", isalnum}, {"alpha", isalpha}, {"blank", isblank}, {"cntrl", iscntrl},
               {"digit", isdigit}, {"graph", isgraph}, {"lower", islower}, {"print", isprint},
               {"punct", ispunct}, {"space", isspace}, {"upper", isupper}, {"xdigit", isxdigit}};

    for (size_t i = 0; i < sizeof(cls) / sizeof(cls[0]); i++) {
        size_t n = strlen(cls[i].name);
        if (strncmp(p, cls[i].name, n) == 0 && p[n] == ':' && p[n + 1] == ']') {
            *hit = cls[i].fn(c) != 0;
            return n + 2;
        }
    }
    return 0;
}

/* The set at p (just past its '['): its length past p in *len (0 when it
 * never closes), 1 if c is in it (after its '!' or '^'). */
static int set_match(const char *p, unsigned char c, size_t *len)
{
    const char *s = p;
    int neg = 0, hit = 0;

    if (*s == '!' || *s == '^') {
        neg = 1;
        s++;
    }
    for (int first = 1; *s != '\0' && (first || *s != ']'); first = 0) {
        unsigned char lo = (unsigned char)*s;
        size_t k;
        int h = 0;
        if (lo == '[' && s[1] == ':' && (k = posix_class(s + 2, c, &h)) > 0) {
            hit |= h;
            s += 2 + k;
            continue;
        }
        if (lo == '\\' && s[1] != '\0')
            lo = (unsigned char)*++s;
        s++;
        if (*s == '-' && s[1] != ']' && s[1] != '\0') {
            unsigned char hi = (unsigned char)s[1];
            s += 2;
            if (hi == '\\' && *s != '\0')
                hi = (unsigned char)*s++;
            hit |= c >= lo && c <= hi;
        } else {
            hit |= c == lo;
        }
    }
    *len = *s == ']' ? (size_t)(s + 1 - p) : 0;
    return (hit ^ neg) && c != '/';
}

/* One match of a pattern against a text: what wild() already found for a
 * (pattern position, text position) pair is kept, so stars that can each
 * take many lengths (a run of double stars between slashes) cost one try per
 * pair, not one per combination. */
typedef struct wild_ctx {
    const char *pat;   /* borrowed: the pattern */
    const char *text;  /* borrowed: the text */
    size_t tlen;       /* strlen(text) */
    signed char *memo; /* borrowed: (strlen(pat) + 1) * (tlen + 1) entries, 0 unknown, else
                          result + 3 */
} wild_ctx;

static int wild_at(const wild_ctx *c, const char *p, const char *t);

/* wild_at through the memo. */
static int wild(const wild_ctx *c, const char *p, const char *t)
{
    size_t k = (size_t)(p - c->pat) * (c->tlen + 1) + (size_t)(t - c->text);
    int m;

    if (c->memo[k] != 0)
        return c->memo[k] - 3;
    m = wild_at(c, p, t);
    c->memo[k] = (signed char)(m + 3);
    return m;
}

/* Matches the pattern from p against the text from t. */
static int wild_at(const wild_ctx *c, const char *p, const char *t)
{
    const char *start = c->pat;

    for (; *p != '\0'; p++, t++) {
        size_t len;
        int slash;

        if (*t == '\0' && *p != '*')
            return M_ABORT_ALL;
        switch (*p) {
        case '\\':
            p++; /* ignore_parse: never the last character */
            if (*t != *p)
                return M_NOMATCH;
            break;
        case '?':
            if (*t == '/')
                return M_NOMATCH;
            break;
        case '[':
            if (!set_match(p + 1, (unsigned char)*t, &len))
                return M_NOMATCH;
            p += len; /* ignore_parse: the set closes */
            break;
        case '*': {
            const char *s = p;
            while (p[1] == '*')
                p++;
            /* "**" alone between slashes, or at an end, crosses folders */
            slash = p > s && (s == start || s[-1] == '/') && (p[1] == '\0' || p[1] == '/');
            p++;
            if (slash && *p == '/' && wild(c, p + 1, t) == M_MATCH)
                return M_MATCH; /* "**" + "/" as no folder at all */
            if (*p == '\0')
                return slash || strchr(t, '/') == NULL ? M_MATCH : M_ABORT_DIR;
            for (;; t++) {
                int m = wild(c, p, t);
                if (m != M_NOMATCH && (!slash || m != M_ABORT_DIR))
                    return m;
                if (*t == '\0' || (!slash && *t == '/'))
                    return *t == '\0' ? M_ABORT_ALL : M_ABORT_DIR;
            }
        }
        default:
            if (*t != *p)
                return M_NOMATCH;
        }
    }
    return *t == '\0' ? M_MATCH : M_NOMATCH;
}

/* Why pat cannot be matched as written, or NULL. */
static const char *pattern_bad(const char *pat)
{
    for (const char *p = pat; *p != '\0'; p++) {
        size_t len;
        if (*p == '\\') {
            if (p[1] == '\0')
                return "a lone '\\' at its end";
            p++;
        } else if (*p == '[') {
            set_match(p + 1, 'a', &len);
            if (len == 0)
                return "a '[' that is never closed";
            p += len;
        }
    }
    return NULL;
}

/* Parses one line (n bytes at s, no newline) into a rule of ig, or
 * nothing for a blank line or a comment. */
static int parse_line(ignore *ig, const char *s, size_t n, char *why, size_t whylen)
{
    ignore_rule r = {0};
    const char *bad;
    char *pat;

    if (n > 0 && s[n - 1] == '\r')
        n--;
    /* trailing spaces, unless the last one is quoted by an odd run of '\' */
    while (n > 0 && s[n - 1] == ' ') {
        size_t k = 0;
        while (k + 1 < n && s[n - 2 - k] == '\\')
            k++;
        if (k % 2 == 1)
            break;
        n--;
    }
    if (n == 0 || s[0] == '#')
        return 0;
    if (memchr(s, '\0', n) != NULL) {
        err_set(why, whylen, "a NUL byte");
        return -1;
    }
    if (s[0] == '!') {
        r.negate = 1;
        s++;
        n--;
    }
    if (n > 0 && s[n - 1] == '/') {
        r.dir_only = 1;
        n--;
    }
    r.anchored = memchr(s, '/', n) != NULL;
    if (n > 0 && s[0] == '/') {
        s++;
        n--;
    }
    if (n == 0) {
        err_set(why, whylen, "an empty pattern");
        return -1;
    }
    pat = xmalloc(n + 1);
    memcpy(pat, s, n);
    pat[n] = '\0';
    bad = pattern_bad(pat);
    if (bad != NULL) {
        err_set(why, whylen, "%s in \"%.200s\"", bad, pat);
        xfree(pat);
        return -1;
    }
    r.pat = pat;
    ig->rules = xreallocarray(ig->rules, (ig->n + 1), sizeof(*ig->rules));
    ig->rules[ig->n++] = r;
    return 0;
}

ignore *ignore_parse(const char *text, size_t len, const char *name, char *err, size_t errlen)
{
    ignore *ig = xcalloc(1, sizeof(*ig));
    size_t line = 0, off = 0;
    char why[512];

    if (len > IGNORE_FILE_MAX) {
        err_set(err, errlen, "%s: larger than %u KiB", name, IGNORE_FILE_MAX >> 10);
        ignore_free(ig);
        return NULL;
    }
    while (off < len) {
        const char *nl = memchr(text + off, '\n', len - off);
        size_t n = nl != NULL ? (size_t)(nl - (text + off)) : len - off;
        int rc = 0;
        line++;
        if (n > IGNORE_LINE_MAX) {
            err_set(why, sizeof(why), "longer than %d bytes", IGNORE_LINE_MAX);
            rc = -1;
        } else {
            rc = parse_line(ig, text + off, n, why, sizeof(why));
        }
        if (rc != 0) {
            err_set(err, errlen, "%s:%zu: %s", name, line, why);
            ignore_free(ig);
            return NULL;
        }
        off += n + 1;
    }
    return ig;
}

/* 1 if pat matches text as a whole. */
static int wild_match(const char *pat, const char *text)
{
    signed char small[4096];
    wild_ctx c = {pat, text, strlen(text), small};
    size_t n = (strlen(pat) + 1) * (c.tlen + 1);
    int m;

    if (n > sizeof(small))
        c.memo = xmalloc(n);
    memset(c.memo, 0, n);
    m = wild(&c, pat, text);
    if (c.memo != small)
        xfree(c.memo);
    return m == M_MATCH;
}

int ignore_match(const ignore *ig, const char *path, int is_dir)
{
    const char *base = strrchr(path, '/');
    int ignored = 0;

    base = base != NULL ? base + 1 : path;
    for (size_t i = 0; ig != NULL && i < ig->n; i++) {
        const ignore_rule *r = &ig->rules[i];
        const char *t = r->anchored ? path : base;
        if (r->dir_only && !is_dir)
            continue;
        if (wild_match(r->pat, t))
            ignored = !r->negate;
    }
    return ignored;
}

size_t ignore_count(const ignore *ig)
{
    return ig != NULL ? ig->n : 0;
}

void ignore_free(ignore *ig)
{
    if (ig == NULL)
        return;
    for (size_t i = 0; i < ig->n; i++)
        xfree(ig->rules[i].pat);
    xfree(ig->rules);
    xfree(ig);
}

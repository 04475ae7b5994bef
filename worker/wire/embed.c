#include "worker/wire/embed.h"

#include <curl/curl.h>
#include <fnmatch.h>
#include <libxml/HTMLparser.h>
#include <libxml/tree.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/mem.h"

/* --- the list ------------------------------------------------------------ */

void embed_list_init(embed_list *l)
{
    memset(l, 0, sizeof(*l));
}

void embed_list_clear(embed_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        xfree(l->v[i].url);
    xfree(l->v);
    embed_list_init(l);
}

/* The reference trimmed of the spaces HTML allows around attribute URLs. */
static void embed_trim(const char **s, size_t *n)
{
    while (*n > 0 && strchr(" \t\r\n\f", (*s)[0]) != NULL) {
        (*s)++;
        (*n)--;
    }
    while (*n > 0 && strchr(" \t\r\n\f", (*s)[*n - 1]) != NULL)
        (*n)--;
}

/* Resolves ref against base into an owned absolute http(s) URL without its
 * fragment, or NULL. */
static char *embed_resolve(const char *base, const char *ref, size_t reflen)
{
    char tmp[EMBED_URL_MAX + 1], *out = NULL, *scheme = NULL;
    CURLU *u;

    embed_trim(&ref, &reflen);
    if (reflen == 0 || reflen > EMBED_URL_MAX || ref[0] == '#')
        return NULL;
    memcpy(tmp, ref, reflen);
    tmp[reflen] = '\0';
    u = curl_url();
    if (u == NULL)
        return NULL;
    if (curl_url_set(u, CURLUPART_URL, base, 0) != CURLUE_OK ||
        curl_url_set(u, CURLUPART_URL, tmp, CURLU_URLENCODE) != CURLUE_OK ||
        curl_url_set(u, CURLUPART_FRAGMENT, NULL, 0) != CURLUE_OK ||
        curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
        (strcmp(scheme, "http") != 0 && strcmp(scheme, "https") != 0) ||
        curl_url_get(u, CURLUPART_URL, &out, 0) != CURLUE_OK) {
        curl_free(out);
        out = NULL;
    }
    curl_free(scheme);
    curl_url_cleanup(u);
    if (out != NULL && strlen(out) > EMBED_URL_MAX) {
        curl_free(out);
        return NULL;
    }
    if (out != NULL) {
        char *own = xstrdup(out);
        curl_free(out);
        return own;
    }
    return NULL;
}

int embed_add(embed_list *l, const char *base, const char *ref, size_t reflen, int css)
{
    char *url;

    if (l->n >= EMBED_MAX) {
        l->dropped++;
        return 0;
    }
    url = embed_resolve(base, ref, reflen);
    if (url == NULL)
        return 0;
    for (size_t i = 0; i < l->n; i++) {
        if (strcmp(l->v[i].url, url) == 0) {
            l->v[i].css |= (uint8_t)css;
            xfree(url);
            return 0;
        }
    }
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 16;
        l->v = xreallocarray(l->v, l->cap, sizeof(*l->v));
    }
    l->v[l->n].url = url;
    l->v[l->n].css = (uint8_t)(css != 0);
    l->n++;
    return 1;
}

/* --- CSS ------------------------------------------------------------------ */

/* The token at p (a quoted string or a url(...)) as [*s, *s + *n); returns
 * where scanning goes on. */
static const char *embed_css_token(const char *p, const char *end, const char **s, size_t *n)
{
    *s = NULL;
    *n = 0;
    while (p < end && strchr(" \t\r\n\f", *p) != NULL)
        p++;
    if (p < end && (*p == '"' || *p == '\'')) {
        char q = *p++;
        const char *a = p;
        while (p < end && *p != q && *p != '\n')
            p++;
        *s = a;
        *n = (size_t)(p - a);
        return p < end ? p + 1 : p;
    }
    if (end - p >= 4 && strncasecmp(p, "url(", 4) == 0) {
        const char *a;
        p += 4;
        while (p < end && strchr(" \t\r\n\f", *p) != NULL)
            p++;
        if (p < end && (*p == '"' || *p == '\'')) {
            p = embed_css_token(p, end, s, n);
            while (p < end && *p != ')')
                p++;
            return p < end ? p + 1 : p;
        }
        a = p;
        while (p < end && *p != ')')
            p++;
        *s = a;
        *n = (size_t)(p - a);
        return p < end ? p + 1 : p;
    }
    return p;
}

size_t embed_css(embed_list *l, const char *css, size_t len, const char *base, int import_css)
{
    const char *p = css, *end = css + len;
    size_t added = 0;

    while (p < end) {
        const char *s;
        size_t n;
        if (end - p >= 2 && p[0] == '/' && p[1] == '*') {
            const char *c = p + 2;
            while (c + 1 < end && !(c[0] == '*' && c[1] == '/'))
                c++;
            p = c + 1 < end ? c + 2 : end;
        } else if (*p == '"' || *p == '\'') {
            p = embed_css_token(p, end, &s, &n); /* a string that is no URL: skipped whole */
        } else if (end - p >= 7 && strncasecmp(p, "@import", 7) == 0) {
            p = embed_css_token(p + 7, end, &s, &n);
            if (s != NULL)
                added += (size_t)embed_add(l, base, s, n, import_css);
        } else if (end - p >= 4 && strncasecmp(p, "url(", 4) == 0) {
            p = embed_css_token(p, end, &s, &n);
            if (s != NULL && !(n >= 5 && strncasecmp(s, "data:", 5) == 0))
                added += (size_t)embed_add(l, base, s, n, 0);
        } else {
            p++;
        }
    }
    return added;
}

/* --- HTML ----------------------------------------------------------------- */

/* The attribute's value, owned by libxml2 (xmlFree), or NULL. */
static char *embed_attr(xmlNodePtr n, const char *name)
{
    return (char *)xmlGetProp(n, (const xmlChar *)name);
}

/* 1 when the space-separated list holds word (case-insensitive). */
static int embed_has_word(const char *list, const char *word)
{
    size_t wn = strlen(word);

    for (const char *p = list; p != NULL && *p;) {
        size_t n;
        p += strspn(p, " \t\r\n\f");
        n = strcspn(p, " \t\r\n\f");
        if (n == wn && strncasecmp(p, word, n) == 0)
            return 1;
        p += n;
    }
    return 0;
}

/* The one image of a srcset a 1x display loads: the 1x candidate, else the
 * narrowest w one; [*s, *s + *n). 0 when srcset names none. */
static int embed_srcset_pick(const char *set, int want_x, const char **s, size_t *n)
{
    long best_w = -1;
    int found = 0;

    for (const char *p = set; *p;) {
        const char *u, *d;
        size_t un, dn;
        p += strspn(p, " \t\r\n\f,");
        if (!*p)
            break;
        u = p;
        un = strcspn(p, " \t\r\n\f"); /* a URL may hold commas; it ends at a space */
        if (un > 0 && u[un - 1] == ',') {
            p += un;
            un--;
            d = p;
            dn = 0;
        } else {
            p += un;
            p += strspn(p, " \t\r\n\f");
            d = p;
            dn = strcspn(p, ",");
            p += dn;
        }
        while (dn > 0 && strchr(" \t\r\n\f", d[dn - 1]) != NULL)
            dn--;
        if (dn == 0 || (dn >= 2 && d[dn - 1] == 'x' && strtod(d, NULL) == 1.0)) {
            if (want_x) {
                *s = u;
                *n = un;
                return 1;
            }
        } else if (!want_x && dn >= 2 && d[dn - 1] == 'w') {
            long w = strtol(d, NULL, 10);
            if (w > 0 && (best_w < 0 || w < best_w)) {
                best_w = w;
                *s = u;
                *n = un;
                found = 1;
            }
        }
    }
    return found;
}

/* Adds an attribute's URL; css marks a stylesheet. */
static void embed_add_attr(embed_list *l, const char *base, xmlNodePtr n, const char *attr, int css)
{
    char *v = embed_attr(n, attr);

    if (v != NULL)
        embed_add(l, base, v, strlen(v), css);
    xmlFree(v);
}

static void embed_img(embed_list *l, const char *base, xmlNodePtr n)
{
    char *set = embed_attr(n, "srcset");
    const char *s = NULL;
    size_t len = 0;

    if (set != NULL && embed_srcset_pick(set, 1, &s, &len)) {
        embed_add(l, base, s, len, 0);
    } else {
        char *src = embed_attr(n, "src");
        if (src != NULL && src[0] != '\0')
            embed_add(l, base, src, strlen(src), 0);
        else if (set != NULL && embed_srcset_pick(set, 0, &s, &len))
            embed_add(l, base, s, len, 0);
        xmlFree(src);
    }
    xmlFree(set);
}

static void embed_element(embed_list *l, const char *base, xmlNodePtr n)
{
    const char *name = (const char *)n->name;
    char *v;

    if (strcasecmp(name, "link") == 0) {
        v = embed_attr(n, "rel");
        if (v != NULL && embed_has_word(v, "stylesheet") && !embed_has_word(v, "alternate"))
            embed_add_attr(l, base, n, "href", 1);
        else if (v != NULL && (embed_has_word(v, "icon") || embed_has_word(v, "apple-touch-icon")))
            embed_add_attr(l, base, n, "href", 0);
        xmlFree(v);
    } else if (strcasecmp(name, "script") == 0 || strcasecmp(name, "iframe") == 0 ||
               strcasecmp(name, "frame") == 0) {
        embed_add_attr(l, base, n, "src", 0);
    } else if (strcasecmp(name, "img") == 0) {
        embed_img(l, base, n);
    } else if (strcasecmp(name, "input") == 0) {
        v = embed_attr(n, "type");
        if (v != NULL && strcasecmp(v, "image") == 0)
            embed_add_attr(l, base, n, "src", 0);
        xmlFree(v);
    } else if (strcasecmp(name, "video") == 0) {
        embed_add_attr(l, base, n, "poster", 0);
    } else if (strcasecmp(name, "style") == 0) {
        xmlChar *t = xmlNodeGetContent(n);
        if (t != NULL)
            embed_css(l, (const char *)t, strlen((const char *)t), base, 1);
        xmlFree(t);
    }
    v = embed_attr(n, "style");
    if (v != NULL)
        embed_css(l, v, strlen(v), base, 0);
    xmlFree(v);
}

/* Walks the tree without recursion (a page may nest deeply). */
static void embed_walk(embed_list *l, const char *base, xmlNodePtr root)
{
    xmlNodePtr n = root;

    while (n != NULL) {
        if (n->type == XML_ELEMENT_NODE)
            embed_element(l, base, n);
        if (n->type == XML_ELEMENT_NODE && n->children != NULL) {
            n = n->children;
            continue;
        }
        while (n != NULL && n != root && n->next == NULL)
            n = n->parent;
        if (n == NULL || n == root)
            break;
        n = n->next;
    }
}

/* The first <base href>, resolved against the page's URL (owned), or NULL. */
static char *embed_base(xmlNodePtr root, const char *url)
{
    xmlNodePtr n = root;

    while (n != NULL) {
        if (n->type == XML_ELEMENT_NODE && strcasecmp((const char *)n->name, "base") == 0) {
            char *href = embed_attr(n, "href");
            char *abs = href != NULL ? embed_resolve(url, href, strlen(href)) : NULL;
            xmlFree(href);
            if (abs != NULL)
                return abs;
        }
        if (n->type == XML_ELEMENT_NODE && n->children != NULL) {
            n = n->children;
            continue;
        }
        while (n != NULL && n != root && n->next == NULL)
            n = n->parent;
        if (n == NULL || n == root)
            break;
        n = n->next;
    }
    return NULL;
}

size_t embed_html(embed_list *l, const char *html, size_t len, const char *url)
{
    size_t before = l->n;
    htmlDocPtr d;
    xmlNodePtr root;
    char *base;

    if (len == 0 || len > (size_t)INT32_MAX)
        return 0;
    d = htmlReadMemory(html, (int)len, url, NULL,
                       HTML_PARSE_RECOVER | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING |
                           HTML_PARSE_NONET | HTML_PARSE_NOBLANKS);
    if (d == NULL)
        return 0;
    root = xmlDocGetRootElement(d);
    if (root != NULL) {
        base = embed_base(root, url);
        embed_walk(l, base != NULL ? base : url, root);
        xfree(base);
    }
    xmlFreeDoc(d);
    return l->n - before;
}

/* --- filters -------------------------------------------------------------- */

int embed_origin(const char *url, char *out, size_t outlen)
{
    CURLU *u = curl_url();
    char *scheme = NULL, *host = NULL, *port = NULL;
    int rc = -1;

    if (u != NULL && curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
        curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) == CURLUE_OK &&
        curl_url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK &&
        curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) == CURLUE_OK) {
        for (char *c = host; *c; c++)
            if (*c >= 'A' && *c <= 'Z')
                *c = (char)(*c - 'A' + 'a');
        int n = snprintf(out, outlen, "%s://%s:%s", scheme, host, port);
        rc = n >= 0 && (size_t)n < outlen ? 0 : -1;
    }
    curl_free(scheme);
    curl_free(host);
    curl_free(port);
    curl_url_cleanup(u);
    return rc;
}

int embed_keep(const embed_filter *f, const char *origin, const char *url)
{
    if (f != NULL) {
        for (size_t i = 0; i < f->nexclude; i++)
            if (fnmatch(f->exclude[i], url, 0) == 0)
                return 0;
        if (f->ninclude > 0) {
            for (size_t i = 0; i < f->ninclude; i++)
                if (fnmatch(f->include[i], url, 0) == 0)
                    return 1;
            return 0;
        }
    }
    {
        char b[EMBED_URL_MAX + 16];
        return embed_origin(url, b, sizeof(b)) == 0 && strcmp(origin, b) == 0;
    }
}

void embed_filter_add(embed_filter *f, int exclude, const char *pattern)
{
    char ***v = exclude ? &f->exclude : &f->include;
    size_t *n = exclude ? &f->nexclude : &f->ninclude;

    *v = xreallocarray(*v, (*n + 1), sizeof(**v));
    (*v)[(*n)++] = xstrdup(pattern);
}

void embed_filter_clear(embed_filter *f)
{
    if (f == NULL)
        return;
    for (size_t i = 0; i < f->ninclude; i++)
        xfree(f->include[i]);
    for (size_t i = 0; i < f->nexclude; i++)
        xfree(f->exclude[i]);
    xfree(f->include);
    xfree(f->exclude);
    memset(f, 0, sizeof(*f));
}

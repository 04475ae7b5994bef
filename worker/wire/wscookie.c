#include "worker/wire/wscookie.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define HTTPONLY_PREFIX "#HttpOnly_"

/* 1 when host is domain or within it (domain without its leading dot). */
static int domain_within(const char *host, const char *domain)
{
    size_t h = strlen(host), d = strlen(domain);

    if (d == 0 || d > h)
        return 0;
    if (h == d)
        return strcasecmp(host, domain) == 0;
    return host[h - d - 1] == '.' && strcasecmp(host + h - d, domain) == 0;
}

/* RFC 6265 5.1.4: the request path is within the cookie's. */
static int path_within(const char *path, const char *cpath)
{
    size_t n = strlen(cpath);

    if (strncmp(path, cpath, n) != 0)
        return 0;
    return path[n] == '\0' || (n > 0 && cpath[n - 1] == '/') || path[n] == '/';
}

/* Splits a Netscape line (copied into buf) into its 7 fields; 0 if malformed. */
static int split7(const char *line, char *buf, size_t cap, char *f[7])
{
    char *p = buf;

    if (snprintf(buf, cap, "%s", line) >= (int)cap)
        return 0;
    for (int i = 0; i < 7; i++) {
        f[i] = p;
        if (i < 6) {
            p = strchr(p, '\t');
            if (p == NULL)
                return 0;
            *p++ = '\0';
        }
    }
    return 1;
}

size_t wscookie_header(char *out, size_t cap, const char *const *lines, size_t n, const char *host,
                       const char *path, int secure, time_t now)
{
    size_t len = 0;
    char buf[8192];

    if (cap == 0)
        return 0;
    out[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        char *f[7];
        const char *dom;
        long long exp;
        int w;
        if (!split7(lines[i], buf, sizeof(buf), f))
            continue;
        dom = f[0];
        if (strncmp(dom, HTTPONLY_PREFIX, strlen(HTTPONLY_PREFIX)) == 0)
            dom += strlen(HTTPONLY_PREFIX);
        else if (dom[0] == '#')
            continue; /* a comment */
        if (dom[0] == '.')
            dom++;
        exp = strtoll(f[4], NULL, 10);
        if ((exp != 0 && exp < (long long)now) || (strcmp(f[3], "TRUE") == 0 && !secure) ||
            !path_within(path, f[2]))
            continue;
        if (strcmp(f[1], "TRUE") == 0 ? !domain_within(host, dom) : strcasecmp(host, dom) != 0)
            continue;
        w = snprintf(out + len, cap - len, "%s%s=%s", len == 0 ? "Cookie: " : "; ", f[5], f[6]);
        if (w < 0 || (size_t)w >= cap - len)
            goto too_long;
        len += (size_t)w;
    }
    if (len == 0)
        return 0;
    if (len + 3 > cap)
        goto too_long;
    memcpy(out + len, "\r\n", 3);
    return len + 2;
too_long:
    out[0] = '\0';
    return 0;
}

/* s without its leading and trailing blanks, in place. */
static char *trim(char *s)
{
    char *e;

    while (*s == ' ' || *s == '\t')
        s++;
    e = s + strlen(s);
    while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
        *--e = '\0';
    return s;
}

int wscookie_line(const char *value, const char *host, const char *path, time_t now, char *out,
                  size_t cap)
{
    char buf[8192], cpath[4096], *p, *name, *val, *eq, *attr;
    const char *domain = NULL;
    int secure = 0, httponly = 0, has_age = 0, n;
    long long age = 0, exp = 0;
    time_t expires = -1;

    if (snprintf(buf, sizeof(buf), "%s", value) >= (int)sizeof(buf) ||
        strpbrk(buf, "\t\r\n") != NULL)
        return -1;
    p = buf;
    attr = strchr(p, ';');
    if (attr != NULL)
        *attr++ = '\0';
    eq = strchr(p, '=');
    if (eq == NULL)
        return -1;
    *eq = '\0';
    name = trim(p);
    val = trim(eq + 1);
    if (name[0] == '\0')
        return -1;
    /* RFC 6265 5.1.4: the default path is the request path's directory. */
    p = strrchr(path, '/');
    if (path[0] != '/' || p == NULL || p == path)
        snprintf(cpath, sizeof(cpath), "/");
    else
        snprintf(cpath, sizeof(cpath), "%.*s", (int)(p - path), path);
    while (attr != NULL) {
        char *next = strchr(attr, ';'), *k, *v = "";
        if (next != NULL)
            *next++ = '\0';
        eq = strchr(attr, '=');
        if (eq != NULL) {
            *eq = '\0';
            v = trim(eq + 1);
        }
        k = trim(attr);
        if (strcasecmp(k, "Domain") == 0 && v[0] != '\0')
            domain = v[0] == '.' ? v + 1 : v;
        else if (strcasecmp(k, "Path") == 0 && v[0] == '/')
            snprintf(cpath, sizeof(cpath), "%s", v);
        else if (strcasecmp(k, "Secure") == 0)
            secure = 1;
        else if (strcasecmp(k, "HttpOnly") == 0)
            httponly = 1;
        else if (strcasecmp(k, "Max-Age") == 0 && v[0] != '\0') {
            char *end;
            long long a = strtoll(v, &end, 10);
            if (*end == '\0') {
                has_age = 1;
                age = a;
            }
        } else if (strcasecmp(k, "Expires") == 0 && v[0] != '\0')
            expires = curl_getdate(v, NULL);
        attr = next;
    }
    if (domain != NULL && !domain_within(host, domain))
        return -1;
    if (has_age)
        exp = age <= 0 ? 1 : (long long)now + age; /* 1: long past, the cookie goes */
    else if (expires != -1)
        exp = expires <= now ? 1 : (long long)expires;
    n = snprintf(out, cap, "%s%s%s\t%s\t%s\t%s\t%lld\t%s\t%s", httponly ? HTTPONLY_PREFIX : "",
                 domain != NULL ? "." : "", domain != NULL ? domain : host,
                 domain != NULL ? "TRUE" : "FALSE", cpath, secure ? "TRUE" : "FALSE", exp, name,
                 val);
    return n < 0 || (size_t)n >= cap ? -1 : 0;
}

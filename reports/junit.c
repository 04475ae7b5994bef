/* junit — JUnit XML writer; see junit.h. */
#include "reports/junit.h"

#include <errno.h>
#include <libxml/xmlwriter.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/err.h"
#include "common/mem.h"
#include "common/ofile.h"
#include "common/utf8.h"

/* Length of the UTF-8 character at s[0..n) (common/utf8.h) if XML 1.0
 * allows it (tab, newline, carriage return, U+0020 and up, without U+FFFE
 * and U+FFFF), else 0. */
static size_t xml_char_len(const unsigned char *s, size_t n)
{
    uint32_t c;
    size_t len = utf8_decode(s, n, &c);

    if (len == 0)
        return 0;
    if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
        return 0;
    if (c == 0xfffe || c == 0xffff)
        return 0;
    return len;
}

/* A copy of s (NULL: "") where each byte that does not start an allowed
 * character is replaced by '?'. Owned by the caller. */
static xmlChar *xml_clean(const char *s)
{
    const unsigned char *in = (const unsigned char *)(s != NULL ? s : "");
    size_t n = strlen((const char *)in), i = 0, o = 0;
    xmlChar *out = xmalloc(n + 1);

    while (i < n) {
        size_t len = xml_char_len(in + i, n - i);
        if (len == 0) {
            out[o++] = '?';
            i++;
            continue;
        }
        memcpy(out + o, in + i, len);
        o += len;
        i += len;
    }
    out[o] = '\0';
    return out;
}

static int write_attr(xmlTextWriterPtr w, const char *name, const char *value)
{
    xmlChar *v = xml_clean(value);
    int rc = xmlTextWriterWriteAttribute(w, BAD_CAST name, v);
    xfree(v);
    return rc < 0 ? -1 : 0;
}

static int write_text(xmlTextWriterPtr w, const char *text)
{
    xmlChar *v = xml_clean(text);
    int rc = xmlTextWriterWriteString(w, v);
    xfree(v);
    return rc < 0 ? -1 : 0;
}

/* Seconds with three decimals whatever the locale: "61.250". */
static void fmt_seconds(double s, char *buf, size_t len)
{
    long long ms = isfinite(s) && s > 0 ? llround(s * 1000.0) : 0;
    snprintf(buf, len, "%lld.%03lld", ms / 1000, ms % 1000);
}

static void fmt_count(size_t n, char *buf, size_t len)
{
    snprintf(buf, len, "%zu", n);
}

static int write_case(xmlTextWriterPtr w, const junit_case *c)
{
    char t[32];

    fmt_seconds(c->time_s, t, sizeof(t));
    if (xmlTextWriterStartElement(w, BAD_CAST "testcase") < 0 ||
        write_attr(w, "classname", c->classname) != 0 || write_attr(w, "name", c->name) != 0 ||
        write_attr(w, "time", t) != 0)
        return -1;
    if (c->failed) {
        if (xmlTextWriterStartElement(w, BAD_CAST "failure") < 0 ||
            write_attr(w, "message", c->failure_message) != 0)
            return -1;
        if (c->failure_type != NULL && write_attr(w, "type", c->failure_type) != 0)
            return -1;
        if (c->failure_text != NULL && write_text(w, c->failure_text) != 0)
            return -1;
        if (xmlTextWriterEndElement(w) < 0)
            return -1;
    }
    if (c->system_out != NULL) {
        if (xmlTextWriterStartElement(w, BAD_CAST "system-out") < 0 ||
            write_text(w, c->system_out) != 0 || xmlTextWriterEndElement(w) < 0)
            return -1;
    }
    return xmlTextWriterEndElement(w) < 0 ? -1 : 0;
}

/* Writes the whole document into w. */
static int write_suite(xmlTextWriterPtr w, const char *suite_name, const junit_case *cases,
                       size_t n, double time_s)
{
    char tests[32], failures[32], t[32], stamp[32], host[256];
    size_t nfailed = 0;
    time_t start = time(NULL);
    struct tm tm;

    for (size_t i = 0; i < n; i++)
        nfailed += cases[i].failed ? 1 : 0;
    fmt_count(n, tests, sizeof(tests));
    fmt_count(nfailed, failures, sizeof(failures));
    fmt_seconds(time_s, t, sizeof(t));
    if (isfinite(time_s) && time_s > 0 && time_s < 1e9)
        start -= (time_t)time_s;
    if (localtime_r(&start, &tm) == NULL ||
        strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm) == 0)
        snprintf(stamp, sizeof(stamp), "1970-01-01T00:00:00");
    if (gethostname(host, sizeof(host)) != 0)
        snprintf(host, sizeof(host), "localhost");
    host[sizeof(host) - 1] = '\0';

    if (xmlTextWriterSetIndent(w, 1) < 0 || xmlTextWriterSetIndentString(w, BAD_CAST "  ") < 0 ||
        xmlTextWriterStartDocument(w, NULL, "UTF-8", NULL) < 0 ||
        xmlTextWriterStartElement(w, BAD_CAST "testsuite") < 0 ||
        write_attr(w, "name", suite_name) != 0 || write_attr(w, "tests", tests) != 0 ||
        write_attr(w, "failures", failures) != 0 || write_attr(w, "errors", "0") != 0 ||
        write_attr(w, "skipped", "0") != 0 || write_attr(w, "time", t) != 0 ||
        write_attr(w, "timestamp", stamp) != 0 || write_attr(w, "hostname", host) != 0)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (write_case(w, &cases[i]) != 0)
            return -1;
    return xmlTextWriterEndDocument(w) < 0 ? -1 : 0;
}

int junit_write(const char *path, const char *suite_name, const junit_case *cases, size_t n,
                double time_s, char *err, size_t errlen)
{
    xmlBufferPtr buf = xmlBufferCreate();
    xmlTextWriterPtr w = NULL;
    char oerr[ERR_MAX];
    int rc = -1;

    if (buf == NULL) {
        err_set(err, errlen, "cannot write %s: out of memory", path);
        goto out;
    }
    w = xmlNewTextWriterMemory(buf, 0);
    if (w == NULL || write_suite(w, suite_name, cases, n, time_s) != 0) {
        err_set(err, errlen, "cannot write %s: the XML writer failed", path);
        goto out;
    }
    xmlFreeTextWriter(w); /* flushes into buf */
    w = NULL;
    if (ofile_put(path, OFILE_REPLACE, xmlBufferContent(buf), (size_t)xmlBufferLength(buf), oerr,
                  sizeof(oerr)) != 0) {
        err_set(err, errlen, "cannot write %s", oerr);
        goto out;
    }
    rc = 0;
out:
    if (w != NULL)
        xmlFreeTextWriter(w);
    if (buf != NULL)
        xmlBufferFree(buf);
    return rc;
}

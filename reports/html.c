#include "reports/html.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/err.h"
#include "common/mem.h"
#include "common/ofile.h"
#include "common/version.h"

static const char html_css[] =
    ":root{--fg:#1d2330;--muted:#5d6778;--line:#e3e7ee;--bg:#f3f5f8;--card:#fff;"
    "--accent:#e5533d}\n"
    "*{box-sizing:border-box}\n"
    "body{margin:0;font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,'Helvetica Neue',"
    "Arial,sans-serif;color:var(--fg);background:var(--bg)}\n"
    "header{background:#1d2330;color:#fff;padding:18px 32px 0;border-bottom:4px solid "
    "var(--accent)}\n"
    "header h1{margin:0;font-size:22px;font-weight:600}\n"
    "header .sub{color:#c5cbd6;font-size:13px;margin-top:4px}\n"
    "header nav{margin-top:12px}\n"
    "header nav a{display:inline-block;color:#dfe3ea;text-decoration:none;padding:6px 12px 8px;"
    "font-size:13px}\n"
    "header nav a:hover{color:#fff;background:rgba(255,255,255,.08)}\n"
    "main{max-width:1120px;margin:0 auto;padding:20px 24px 48px}\n"
    "section{background:var(--card);border:1px solid var(--line);border-radius:8px;"
    "padding:16px 20px;margin:0 0 18px}\n"
    "h2{font-size:16px;margin:0 0 12px;font-weight:600}\n"
    "h3{font-size:14px;margin:14px 0 8px;font-weight:600}\n"
    ".cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(150px,1fr));gap:12px;"
    "margin:0 0 18px}\n"
    ".card{background:var(--card);border:1px solid var(--line);border-radius:8px;"
    "padding:12px 14px}\n"
    ".card .k{color:var(--muted);font-size:11px;text-transform:uppercase;letter-spacing:.05em}\n"
    ".card .v{font-size:22px;font-weight:600;margin-top:2px;white-space:nowrap}\n"
    ".card .v small{font-size:13px;font-weight:400;color:var(--muted)}\n"
    "table{border-collapse:collapse;width:100%;font-size:13px}\n"
    "th,td{padding:6px 8px;border-bottom:1px solid var(--line);text-align:left;"
    "vertical-align:top}\n"
    "th{color:var(--muted);font-weight:600;font-size:12px;background:#f8f9fb}\n"
    "td.n,th.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n"
    "tbody tr:hover td{background:#f8f9fb}\n"
    "tr.total td{font-weight:600;background:#f8f9fb}\n"
    "td .lbl{color:var(--muted)}\n"
    ".badge{display:inline-block;padding:1px 9px;border-radius:10px;font-size:12px;"
    "font-weight:600;background:#e9ecf2;color:#344054;vertical-align:middle}\n"
    ".st-completed{background:#dcfae6;color:#067647}\n"
    ".st-stopped,.st-running{background:#fef0c7;color:#93370d}\n"
    ".st-degraded,.st-aborted{background:#fee4e2;color:#b42318}\n"
    ".st-abandoned,.v-failed{background:#fee4e2;color:#b42318}\n"
    ".v-passed{background:#dcfae6;color:#067647}\n"
    ".v-pending{background:#fef0c7;color:#93370d}\n"
    ".warn{background:#fef0c7;border:1px solid #f5c06b;border-radius:8px;padding:10px 14px;"
    "margin:0 0 18px;color:#7a2e0e}\n"
    "figure{margin:0 0 14px}\n"
    "figcaption{font-weight:600;font-size:13px;margin:0 0 2px}\n"
    "svg.chart{width:100%;height:auto;display:block}\n"
    "svg.chart text{font-size:11px;fill:#5d6778}\n"
    "svg.chart .axis{stroke:#98a2b3;stroke-width:1}\n"
    "svg.chart .grid{stroke:#eef0f4;stroke-width:1}\n"
    "svg.chart .hz{fill:transparent}\n"
    "svg.chart .hz:hover{fill:rgba(29,35,48,.07)}\n"
    ".empty{color:var(--muted);font-style:italic;padding:24px 0}\n"
    ".grid2{display:grid;grid-template-columns:1fr 1fr;gap:8px 20px}\n"
    ".stepbox{border-top:1px solid var(--line);padding-top:6px;margin-top:8px}\n"
    ".stepbox:first-of-type{border-top:0;margin-top:0;padding-top:0}\n"
    ".meta{color:var(--muted);font-size:12px;margin:0 0 6px}\n"
    "header .same{color:#9aa3b2}\n"
    ".worse{color:#b42318;font-weight:600}\n"
    ".better{color:#067647;font-weight:600}\n"
    ".same{color:var(--muted)}\n"
    "dl.kv{display:grid;grid-template-columns:max-content 1fr;gap:4px 18px;margin:0}\n"
    "dl.kv dt{color:var(--muted)}\n"
    "dl.kv dd{margin:0}\n"
    "code{font:12px ui-monospace,'SF Mono',Menlo,Consolas,monospace;word-break:break-all}\n"
    "p.note{color:var(--muted);font-size:12px;margin:8px 0 0}\n"
    "footer{color:var(--muted);font-size:12px;text-align:center;padding:0 0 24px}\n"
    "@media (max-width:800px){.grid2{grid-template-columns:1fr}}\n";

void html_esc(FILE *out, const char *s)
{
    if (s == NULL)
        return;
    for (; *s != '\0'; s++) {
        unsigned char c = (unsigned char)*s;
        switch (c) {
        case '&':
            fputs("&amp;", out);
            break;
        case '<':
            fputs("&lt;", out);
            break;
        case '>':
            fputs("&gt;", out);
            break;
        case '"':
            fputs("&quot;", out);
            break;
        case '\'':
            fputs("&#39;", out);
            break;
        default:
            putc(c < 0x20 || c == 0x7f ? ' ' : c, out);
        }
    }
}

void html_head(FILE *out, const char *title)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta "
          "charset=\"utf-8\">\n" QUERN_HTML_GENERATOR
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<title>",
          out);
    html_esc(out, title);
    fputs("</title>\n<style>\n", out);
    fputs(html_css, out);
    fputs("</style>\n</head>\n<body>\n", out);
}

void html_foot(FILE *out)
{
    fputs("</body>\n</html>\n", out);
}

const char *html_ms(double us, char *buf, size_t len)
{
    double ms = us / 1000.0;

    if (!isfinite(ms))
        snprintf(buf, len, "-");
    else if (ms < 1.0)
        snprintf(buf, len, "%.3f", ms);
    else if (ms < 10.0)
        snprintf(buf, len, "%.2f", ms);
    else if (ms < 100.0)
        snprintf(buf, len, "%.1f", ms);
    else
        snprintf(buf, len, "%.0f", ms);
    return buf;
}

const char *html_count(uint64_t n, char *buf, size_t len)
{
    char digits[24];
    size_t nd, o = 0;

    snprintf(digits, sizeof(digits), "%llu", (unsigned long long)n);
    nd = strlen(digits);
    for (size_t i = 0; i < nd && o + 4 < len; i++) {
        if (i > 0 && (nd - i) % 3 == 0) {
            /* U+202F NARROW NO-BREAK SPACE */
            buf[o++] = '\xe2';
            buf[o++] = '\x80';
            buf[o++] = '\xaf';
        }
        buf[o++] = digits[i];
    }
    if (len > 0)
        buf[o < len ? o : len - 1] = '\0';
    return buf;
}

const char *html_num(double v, char *buf, size_t len)
{
    double a = fabs(v);

    if (!isfinite(v))
        snprintf(buf, len, "-");
    else if (a >= 100.0)
        snprintf(buf, len, "%.0f", v);
    else if (a >= 10.0)
        snprintf(buf, len, "%.1f", v);
    else
        snprintf(buf, len, "%.2f", v);
    return buf;
}

const char *html_time(int64_t us, char *buf, size_t len)
{
    time_t t = (time_t)(us / 1000000);
    struct tm tm;

    if (localtime_r(&t, &tm) == NULL || strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm) == 0)
        snprintf(buf, len, "-");
    return buf;
}

int html_write_file(const char *path, void (*emit)(FILE *out, const void *arg), const void *arg,
                    char *err, size_t errlen)
{
    char oerr[ERR_MAX];
    ofile o;
    FILE *f;

    if (ofile_open(&o, path, OFILE_REPLACE, oerr, sizeof(oerr)) != 0) {
        err_set(err, errlen, "cannot write %s", oerr);
        return -1;
    }
    f = ofile_stream(&o);
    if (f == NULL) {
        err_set(err, errlen, "cannot write %s: %s", path, strerror(errno));
        ofile_abort(&o);
        return -1;
    }
    emit(f, arg);
    if (ofile_commit(&o, oerr, sizeof(oerr)) != 0) {
        err_set(err, errlen, "cannot write %s", oerr);
        return -1;
    }
    return 0;
}

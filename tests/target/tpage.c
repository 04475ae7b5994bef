#include "tests/target/tpage.h"

#include <string.h>

static const char PAGE_HTML[] =
    "<!doctype html>\n<html><head><title>Accueil</title>\n"
    "<link rel=\"stylesheet\" href=\"/page/site.css\">\n"
    "<link rel=\"icon\" href=\"/page/favicon.ico\">\n"
    "<script src=\"/page/app.js\"></script>\n"
    "<script src=\"https://cdn.example.com/lib.js\"></script>\n"
    "</head><body><h1>Accueil</h1>\n"
    "<img src=\"/page/logo.png\" alt=\"logo\">\n"
    "<img src=\"/page/hero-1x.png\" srcset=\"/page/hero-1x.png 1x, /page/hero-2x.png 2x\">\n"
    "<p><a href=\"/profile\">Profil</a></p></body></html>\n";
static const char SITE_CSS[] = "body { font-family: sans-serif; background: url(bg.png) }\n";
static const char APP_JS[] = "document.title += \" (js)\";\n";
/* An image's bytes are not looked at: a few stand for one. */
static const char IMAGE[] = "\x89PNG\r\n\x1a\n quern-target image";

static const struct {
    const char *path, *ctype, *body, *etag, *cache_control;
    size_t len;
} tpage_files[] = {
    {"/page", "text/html; charset=utf-8", PAGE_HTML, "\"page-1\"", "no-cache",
     sizeof(PAGE_HTML) - 1},
    {"/page/site.css", "text/css", SITE_CSS, "\"css-1\"", "no-cache", sizeof(SITE_CSS) - 1},
    {"/page/app.js", "text/javascript", APP_JS, "\"js-1\"", "max-age=3600", sizeof(APP_JS) - 1},
    {"/page/favicon.ico", "image/x-icon", IMAGE, "\"ico-1\"", "max-age=3600", sizeof(IMAGE) - 1},
    {"/page/logo.png", "image/png", IMAGE, "\"logo-1\"", "max-age=3600", sizeof(IMAGE) - 1},
    {"/page/hero-1x.png", "image/png", IMAGE, "\"h1-1\"", "max-age=3600", sizeof(IMAGE) - 1},
    {"/page/hero-2x.png", "image/png", IMAGE, "\"h2-1\"", "max-age=3600", sizeof(IMAGE) - 1},
    {"/page/bg.png", "image/png", IMAGE, "\"bg-1\"", "max-age=3600", sizeof(IMAGE) - 1},
};

int tpage_is(const char *path)
{
    return strcmp(path, "/page") == 0 || strncmp(path, "/page/", 6) == 0;
}

void tpage_answer(const char *path, const char *inm, struct tpage_answer *a)
{
    memset(a, 0, sizeof(*a));
    a->status = 404;
    a->ctype = "text/plain";
    a->body = "";
    for (size_t i = 0; i < sizeof(tpage_files) / sizeof(tpage_files[0]); i++) {
        if (strcmp(path, tpage_files[i].path) != 0)
            continue;
        a->ctype = tpage_files[i].ctype;
        a->etag = tpage_files[i].etag;
        a->cache_control = tpage_files[i].cache_control;
        if (inm != NULL && strstr(inm, a->etag) != NULL) {
            a->status = 304;
            return;
        }
        a->status = 200;
        a->body = tpage_files[i].body;
        a->len = tpage_files[i].len;
        return;
    }
}

#include "store/run_row.h"

#include <errno.h>
#include <jansson.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/err.h"
#include "common/mem.h"
#include "common/redact.h"

#define DB_SCRIPT_MAX (64u << 20)  /* hash at most this much of a script */
#define DB_CMDLINE_MAX (64u << 10) /* a longer command line is stored cut short */

void run_row_iso_utc(int64_t us, char *buf, size_t len)
{
    time_t secs = (time_t)(us / 1000000);
    struct tm tm;
    char tmp[32];

    gmtime_r(&secs, &tm);
    strftime(tmp, sizeof(tmp), "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf, len, "%s.%03dZ", tmp, (int)((us % 1000000) / 1000));
}

int run_row_hash_file(const char *path, char hex[65], char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    EVP_MD_CTX *ctx;
    unsigned char md[EVP_MAX_MD_SIZE], chunk[16384];
    unsigned int mdlen = 0;
    size_t n, total = 0;
    int rc = -1;

    if (f == NULL) {
        err_set(err, errlen, "cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    ctx = EVP_MD_CTX_new();
    if (ctx == NULL || EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1) {
        err_set(err, errlen, "SHA-256 is not available");
        goto out;
    }
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
        total += n;
        if (total > DB_SCRIPT_MAX || EVP_DigestUpdate(ctx, chunk, n) != 1) {
            err_set(err, errlen, "cannot hash %s: too big", path);
            goto out;
        }
    }
    if (ferror(f) || EVP_DigestFinal_ex(ctx, md, &mdlen) != 1 || mdlen != 32) {
        err_set(err, errlen, "cannot hash %s", path);
        goto out;
    }
    for (unsigned i = 0; i < mdlen; i++)
        snprintf(hex + 2 * i, 3, "%02x", md[i]);
    rc = 0;
out:
    EVP_MD_CTX_free(ctx);
    fclose(f);
    return rc;
}

char *run_row_props_json(const props *p, int redacted)
{
    json_t *o = json_object();
    char *s;

    for (size_t i = 0; p != NULL && i < props_count(p); i++) {
        const char *k = props_key(p, i), *v = props_value(p, i);
        if (redacted && redact_key_is_secret(k) && v[0] != '\0') {
            json_object_set_new(o, k, json_string(REDACT_MASK));
        } else if (redacted) {
            size_t n = redact_url(v, NULL, 0) + 1;
            char *safe = xmalloc(n);
            redact_url(v, safe, n);
            json_object_set_new(o, k, json_string(safe));
            xfree(safe);
        } else {
            json_object_set_new(o, k, json_string(v));
        }
    }
    s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII);
    json_decref(o);
    if (s == NULL) /* only when out of memory */
        xoom("json_dumps");
    return s;
}

char *run_row_command_line(int argc, const char *const *argv)
{
    const char **av;
    char *s;
    size_t n;

    if (argc <= 0 || argv == NULL)
        return NULL;
    av = xcalloc((size_t)argc + 1, sizeof(*av));
    av[0] = "quern";
    for (int i = 0; i < argc; i++)
        av[i + 1] = argv[i];
    n = redact_argv(argc + 1, av, NULL, 0) + 1;
    if (n > DB_CMDLINE_MAX)
        n = DB_CMDLINE_MAX;
    s = xmalloc(n);
    redact_argv(argc + 1, av, s, n);
    xfree(av);
    return s;
}

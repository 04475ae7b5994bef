/* fuzz_embed — what a page embeds (worker/embed): an HTML answer parsed
 * for its resources, a fetched stylesheet scanned for url() and @import,
 * and the filters applied to what they found.
 *
 * Input: byte 0 chooses HTML or CSS; the body is the rest. Checks: the
 * list stays within EMBED_MAX, every URL is an absolute http(s) URL of at
 * most EMBED_URL_MAX bytes with no fragment, listed once; the same-origin
 * and pattern filters answer 0 or 1 for each. */
#include <string.h>

#include "worker/wire/embed.h"
#include "tests/fuzz/fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char page[] = "http://h.test:8080/dir/page.html";
    embed_filter f;
    embed_list l;
    char origin[256];

    if (size < 1)
        return 0;
    embed_list_init(&l);
    if (data[0] & 1)
        embed_css(&l, (const char *)data + 1, size - 1, page, (data[0] >> 1) & 1);
    else
        embed_html(&l, (const char *)data + 1, size - 1, page);
    fuzz_check(l.n <= EMBED_MAX);
    fuzz_check(embed_origin(page, origin, sizeof(origin)) == 0);
    memset(&f, 0, sizeof(f));
    embed_filter_add(&f, 0, "http://h.test:8080/*");
    embed_filter_add(&f, 1, "*.ico");
    for (size_t i = 0; i < l.n; i++) {
        const char *u = l.v[i].url;
        int k;
        fuzz_check(strlen(u) <= EMBED_URL_MAX);
        fuzz_check(strncmp(u, "http://", 7) == 0 || strncmp(u, "https://", 8) == 0);
        fuzz_check(strchr(u, '#') == NULL);
        for (size_t j = 0; j < i; j++)
            fuzz_check(strcmp(l.v[j].url, u) != 0);
        k = embed_keep(NULL, origin, u);
        fuzz_check(k == 0 || k == 1);
        k = embed_keep(&f, origin, u);
        fuzz_check(k == 0 || k == 1);
    }
    embed_filter_clear(&f);
    embed_list_clear(&l);
    return 0;
}

/* connfloor — the floor of memory per VU: a bare libcurl multi loop that
 * opens N keep-alive connections (one GET each, at a given rate) and holds
 * them idle, and nothing else: no Lua, no statistics, no event library.
 *
 *   connfloor URL N RAMP_S HOLD_S [MODE [SRC,SRC...]]
 *
 * MODE "multi" (default): the multi's own connection cache holds the N
 * connections (the least libcurl can hold them with); "share": each
 * connection lives in its own share (connections and cookies), the way
 * quern keeps a VU's. The easy handle of a GET is freed when it ends.
 * Prints one line: "peak_rss_kb steady_rss_kb base_rss_kb ok errors
 * most_in_flight"; the
 * RSS of the process from /proc/self/status, peak over the run, steady at
 * the end of the hold, base before the first connection. Exit 1 on a usage
 * error or when a transfer cannot be set up. */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The resident set of this process in kB, -1 when unreadable. */
static long rss_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;

    if (f == NULL)
        return -1;
    while (fgets(line, sizeof(line), f) != NULL)
        if (strncmp(line, "VmRSS:", 6) == 0)
            kb = strtol(line + 6, NULL, 10);
    fclose(f);
    return kb;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static size_t sink(char *p, size_t size, size_t n, void *ud)
{
    (void)p;
    (void)ud;
    return size * n;
}

int main(int argc, char **argv)
{
    const char *url, *mode, *srcs;
    long n, ramp, hold, started = 0, ok = 0, errors = 0, peak = 0, base, r, most = 0;
    char **src = NULL;
    long nsrc = 0;
    CURLSH **shares;
    CURLM *m;
    double t0, t;
    int running = 0;

    if (argc < 5) {
        fprintf(stderr, "usage: connfloor URL N RAMP_S HOLD_S [multi|share [SRC,...]]\n");
        return 1;
    }
    url = argv[1];
    n = strtol(argv[2], NULL, 10);
    ramp = strtol(argv[3], NULL, 10);
    hold = strtol(argv[4], NULL, 10);
    mode = argc > 5 ? argv[5] : "multi";
    srcs = argc > 6 ? argv[6] : "";
    if (n <= 0 || ramp < 0 || hold < 0 || (strcmp(mode, "multi") && strcmp(mode, "share"))) {
        fprintf(stderr, "connfloor: bad N, RAMP_S, HOLD_S or MODE\n");
        return 1;
    }
    if (srcs[0] != '\0') {
        char *s = strdup(srcs), *tok, *save = NULL;
        src = calloc(64, sizeof(*src));
        for (tok = strtok_r(s, ",", &save); tok != NULL && nsrc < 64;
             tok = strtok_r(NULL, ",", &save))
            src[nsrc++] = tok;
    }
    curl_global_init(CURL_GLOBAL_DEFAULT);
    m = curl_multi_init();
    shares = calloc((size_t)n, sizeof(*shares));
    if (m == NULL || shares == NULL)
        return 1;
    /* Every connection stays: the cache may hold all N. */
    curl_multi_setopt(m, CURLMOPT_MAXCONNECTS, strcmp(mode, "multi") == 0 ? n : 5L);
    base = rss_kb();
    t0 = now_s();
    for (;;) {
        CURLMsg *msg;
        int left;
        t = now_s() - t0;
        /* Starts what the ramp allows by now. */
        long due = ramp > 0 ? (long)((double)n * t / (double)ramp) + 1 : n;
        for (; started < n && started < due; started++) {
            CURL *h = curl_easy_init();
            char ifc[80];
            if (h == NULL)
                return 1;
            curl_easy_setopt(h, CURLOPT_URL, url);
            curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, sink);
            curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
            curl_easy_setopt(h, CURLOPT_PRIVATE, (char *)NULL + started);
            /* Its own connection, as a VU has. */
            curl_easy_setopt(h, CURLOPT_FRESH_CONNECT, 1L);
            if (nsrc > 0) {
                snprintf(ifc, sizeof(ifc), "host!%s", src[started % nsrc]);
                curl_easy_setopt(h, CURLOPT_INTERFACE, ifc);
            }
            if (strcmp(mode, "share") == 0) {
                shares[started] = curl_share_init();
                curl_share_setopt(shares[started], CURLSHOPT_SHARE, CURL_LOCK_DATA_CONNECT);
                curl_share_setopt(shares[started], CURLSHOPT_SHARE, CURL_LOCK_DATA_COOKIE);
                curl_easy_setopt(h, CURLOPT_SHARE, shares[started]);
                curl_easy_setopt(h, CURLOPT_COOKIEFILE, "");
            }
            curl_multi_add_handle(m, h);
        }
        curl_multi_perform(m, &running);
        if (running > most)
            most = running;
        while ((msg = curl_multi_info_read(m, &left)) != NULL) {
            if (msg->msg != CURLMSG_DONE)
                continue;
            if (msg->data.result == CURLE_OK)
                ok++;
            else
                errors++;
            curl_multi_remove_handle(m, msg->easy_handle);
            curl_easy_cleanup(msg->easy_handle);
        }
        r = rss_kb();
        if (r > peak)
            peak = r;
        if (started == n && running == 0 && t >= (double)(ramp + hold))
            break;
        curl_multi_poll(m, NULL, 0, 100, NULL);
    }
    printf("%ld %ld %ld %ld %ld %ld\n", peak, rss_kb(), base, ok, errors, most);
    for (long i = 0; i < n; i++)
        if (shares[i] != NULL)
            curl_share_cleanup(shares[i]);
    curl_multi_cleanup(m);
    curl_global_cleanup();
    free(shares);
    return 0;
}

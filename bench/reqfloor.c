/* reqfloor — the floor of instructions per request: a bare libcurl multi
 * loop that makes the requests of quern's instruction row (N connections,
 * R keep-alive GETs each, one after the other on each), and nothing else:
 * no Lua, no statistics, no event library.
 *
 *   reqfloor URL N R [HEADER...]
 *
 * HEADER lines ("Name: value") go in each request's header list, where
 * quern puts its own (bench/run.sh passes the ones quern sends, read from
 * its trace): the same request bytes. When one of them is Accept-Encoding,
 * CURLOPT_ACCEPT_ENCODING is on as well (answers decoded), as in quern.
 * Each of the N easy handles is made once and added back to the multi
 * after each of its transfers; the multi's own connection cache holds the
 * N connections (CURLMOPT_MAXCONNECTS N), so each handle finds its
 * kept-alive connection again.
 *
 * The loop is curl_multi_perform then curl_multi_poll, libcurl's own (a
 * curl_multi_socket_action loop on epoll, as quern drives libcurl through
 * libev, was measured too: the same count within 1 %).
 *
 * Run under `valgrind --tool=callgrind`, its total of instructions over
 * N x R is what a bare libcurl 7.88 client spends per request, start-up
 * included (bench/run.sh, the ipr row). Prints one line: "ok errors". Exit
 * 1 on a usage error or when a transfer cannot be set up. */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static size_t sink(char *p, size_t size, size_t n, void *ud)
{
    (void)p;
    (void)ud;
    return size * n;
}

/* Ends the finished transfers and starts each handle's next request. */
static void reap(CURLM *m, long *ok, long *errors, long *todo)
{
    CURLMsg *msg;
    int queued;

    while ((msg = curl_multi_info_read(m, &queued)) != NULL) {
        long *l = NULL;
        CURL *e = msg->easy_handle;
        if (msg->msg != CURLMSG_DONE)
            continue;
        if (msg->data.result == CURLE_OK)
            (*ok)++;
        else
            (*errors)++;
        (*todo)--;
        curl_easy_getinfo(e, CURLINFO_PRIVATE, (char **)&l);
        curl_multi_remove_handle(m, e);
        if (*l > 0) {
            (*l)--;
            curl_multi_add_handle(m, e);
        }
    }
}

int main(int argc, char **argv)
{
    long n, runs, ok = 0, errors = 0, todo, *left;
    CURL **h;
    CURLM *m;
    struct curl_slist *hdrs = NULL;
    int running = 1, decode = 0;

    if (argc < 4) {
        fprintf(stderr, "usage: reqfloor URL N R [HEADER...]\n");
        return 1;
    }
    n = strtol(argv[2], NULL, 10);
    runs = strtol(argv[3], NULL, 10);
    if (n <= 0 || runs <= 0) {
        fprintf(stderr, "reqfloor: bad N or R\n");
        return 1;
    }
    todo = n * runs;
    curl_global_init(CURL_GLOBAL_DEFAULT);
    for (int i = 4; i < argc; i++) {
        hdrs = curl_slist_append(hdrs, argv[i]);
        if (hdrs == NULL)
            return 1;
        if (strncasecmp(argv[i], "Accept-Encoding:", 16) == 0)
            decode = 1;
    }
    m = curl_multi_init();
    h = calloc((size_t)n, sizeof(*h));
    left = calloc((size_t)n, sizeof(*left));
    if (m == NULL || h == NULL || left == NULL)
        return 1;
    curl_multi_setopt(m, CURLMOPT_MAXCONNECTS, n);
    for (long i = 0; i < n; i++) {
        h[i] = curl_easy_init();
        if (h[i] == NULL)
            return 1;
        curl_easy_setopt(h[i], CURLOPT_URL, argv[1]);
        curl_easy_setopt(h[i], CURLOPT_WRITEFUNCTION, sink);
        curl_easy_setopt(h[i], CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(h[i], CURLOPT_PRIVATE, (void *)&left[i]);
        curl_easy_setopt(h[i], CURLOPT_HTTPHEADER, hdrs);
        if (decode)
            curl_easy_setopt(h[i], CURLOPT_ACCEPT_ENCODING, "");
        left[i] = runs - 1;
        curl_multi_add_handle(m, h[i]);
    }
    while (todo > 0) {
        curl_multi_perform(m, &running);
        reap(m, &ok, &errors, &todo);
        if (todo > 0)
            curl_multi_poll(m, NULL, 0, 100, NULL);
    }
    printf("%ld %ld\n", ok, errors);
    for (long i = 0; i < n; i++)
        curl_easy_cleanup(h[i]);
    curl_multi_cleanup(m);
    curl_slist_free_all(hdrs);
    curl_global_cleanup();
    free(h);
    free(left);
    return 0;
}

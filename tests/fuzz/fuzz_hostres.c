/* fuzz_hostres — a "host:port:address" entry as a tester or a console gives
 * it (common/hostres): every --resolve entry, and every one an agent
 * receives, goes through hostres_check.
 *
 * Input: the entry. Checks: the answer is the same twice; an accepted
 * entry has no white space, at most HOSTRES_ENTRY_MAX bytes, a non-empty
 * host, a port 1..65535 and no empty address; a refused one leaves a
 * NUL-terminated message. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/hostres.h"
#include "tests/fuzz/fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = fuzz_str(data, size), err[ERR_MAX];
    int rc = hostres_check(s, err, sizeof(err));

    fuzz_check(rc == hostres_check(s, NULL, 0));
    if (rc == 0) {
        const char *c1 = strchr(s, ':'), *c2 = c1 != NULL ? strchr(c1 + 1, ':') : NULL;
        long port;
        fuzz_check(strlen(s) <= HOSTRES_ENTRY_MAX && strpbrk(s, " \t\r\n") == NULL);
        fuzz_check(c1 != NULL && c1 > s && c2 != NULL);
        port = strtol(c1 + 1, NULL, 10);
        fuzz_check(port >= 1 && port <= 65535);
        fuzz_check(c2[1] != '\0' && strstr(c2, ",,") == NULL && s[strlen(s) - 1] != ',');
    } else {
        fuzz_check(rc == -1 && memchr(err, '\0', sizeof(err)) != NULL);
    }
    free(s);
    return 0;
}

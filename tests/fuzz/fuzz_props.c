/* fuzz_props — the properties file (common/props): quern.properties beside
 * a script and --properties FILE, and -p key=value arguments.
 *
 * Input: the file's bytes. Checks: a file that loads leaves every key
 * non-empty and trimmed; a refused file leaves the set unchanged (props.h's
 * promise); the same bytes as one -p argument either set their key or leave
 * the set unchanged. */
#include <ctype.h>
#include <string.h>

#include "common/err.h"
#include "common/props.h"
#include "tests/fuzz/fuzz_util.h"

static int trimmed(const char *s)
{
    size_t n = strlen(s);
    return n == 0 || (!isspace((unsigned char)s[0]) && !isspace((unsigned char)s[n - 1]));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(data, size);
    props *p = props_new();
    char err[ERR_MAX];
    char *arg;

    props_set(p, "fuzz.before", "kept");
    if (path != NULL) {
        if (props_load_file(p, path, err, sizeof(err)) == 0) {
            for (size_t i = 0; i < props_count(p); i++) {
                fuzz_check(props_key(p, i)[0] != '\0');
                fuzz_check(trimmed(props_key(p, i)) && trimmed(props_value(p, i)));
                fuzz_check(strcmp(props_get(p, props_key(p, i)), props_value(p, i)) == 0);
            }
        } else {
            fuzz_check(props_count(p) == 1);
            fuzz_check(strcmp(props_get(p, "fuzz.before"), "kept") == 0);
        }
    }
    props_free(p);

    p = props_new();
    arg = fuzz_str(data, size);
    if (props_set_arg(p, arg, err, sizeof(err)) == 0) {
        fuzz_check(props_count(p) == 1 && props_key(p, 0)[0] != '\0');
        fuzz_check(trimmed(props_key(p, 0)) && trimmed(props_value(p, 0)));
    } else {
        fuzz_check(props_count(p) == 0);
    }
    free(arg);
    props_free(p);
    return 0;
}

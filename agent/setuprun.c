#include "agent/setuprun.h"

#include <stdio.h>
#include <string.h>

#include "worker/engine/engine.h"
#include "worker/engine/lifecycle.h"

static int play(const setuprun_cfg *c, enum engine_life life, const char *json, size_t len,
                char **out, size_t *outlen, char *err, size_t errlen)
{
    engine_cfg cfg;
    engine *e;
    int rc;

    memset(&cfg, 0, sizeof(cfg));
    cfg.script = c->script;
    cfg.props = c->props;
    cfg.mem_limit = c->mem_limit;
    cfg.resolve = c->resolve;
    cfg.nresolve = c->nresolve;
    cfg.handle_signals = c->handle_signals;
    cfg.life = life;
    cfg.setup_data = json;
    cfg.setup_len = len;
    e = engine_new(&cfg, err, errlen);
    if (e == NULL)
        return -1;
    engine_run(e);
    rc = lifecycle_result(e, out, outlen, err, errlen);
    engine_free(e);
    return rc;
}

int setuprun_setup(const setuprun_cfg *c, char **json, size_t *len, char *err, size_t errlen)
{
    return play(c, ENGINE_LIFE_SETUP, NULL, 0, json, len, err, errlen);
}

int setuprun_teardown(const setuprun_cfg *c, const char *json, size_t len, char *err, size_t errlen)
{
    char *none;
    size_t nlen;

    return play(c, ENGINE_LIFE_TEARDOWN, json, len, &none, &nlen, err, errlen);
}

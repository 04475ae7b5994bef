#include "proto/handshake.h"

#include <string.h>
#include <unistd.h>

#include "common/err.h"
#include "common/version.h"

/* Each side's role in the other's eyes. */
static const char *other_role(const handshake *hs)
{
    return strcmp(hs->role, "console") == 0 ? "agent" : "console";
}

static int is_console(const handshake *hs)
{
    return strcmp(hs->role, "console") == 0;
}

static void msg_init(handshake_msg *m)
{
    memset(m, 0, sizeof(*m));
    quern__envelope__init(&m->env);
}

void handshake_init(handshake *hs, const char *role)
{
    memset(hs, 0, sizeof(*hs));
    hs->role = role;
}

int handshake_keys(handshake *hs)
{
    if (auth_nonce(hs->nonce) != 0 ||
        keyexchange_keypair(hs->keyexchange_priv, hs->keyexchange_pub) != 0)
        return -1;
    return 0;
}

Quern__Envelope *handshake_hello(const handshake *hs, handshake_msg *m)
{
    Quern__Hello *h = &m->u.hello;

    msg_init(m);
    quern__hello__init(h);
    h->version = AUTH_PROTO_VERSION;
    h->role = (char *)hs->role;
    h->nonce.data = (uint8_t *)hs->nonce;
    h->nonce.len = AUTH_NONCE_LEN;
    h->kx.data = (uint8_t *)hs->keyexchange_pub;
    h->kx.len = KEYEXCHANGE_LEN;
    h->quern_version = (char *)QUERN_VERSION;
    m->env.body_case = QUERN__ENVELOPE__BODY_HELLO;
    m->env.hello = h;
    return &m->env;
}

int handshake_hello_take(handshake *hs, const Quern__Envelope *env, char *err, size_t errlen)
{
    const Quern__Hello *h = env != NULL ? env->hello : NULL;

    if (env == NULL || env->body_case != QUERN__ENVELOPE__BODY_HELLO ||
        h->version != AUTH_PROTO_VERSION || strcmp(h->role, other_role(hs)) != 0 ||
        h->nonce.len != AUTH_NONCE_LEN || h->kx.len != KEYEXCHANGE_LEN) {
        err_set(err, errlen, "not a quern %s of protocol %d", other_role(hs), AUTH_PROTO_VERSION);
        return -1;
    }
    memcpy(hs->peer_nonce, h->nonce.data, AUTH_NONCE_LEN);
    memcpy(hs->peer_kx, h->kx.data, KEYEXCHANGE_LEN);
    return 0;
}

Quern__Envelope *handshake_proof(const handshake *hs, const char *token, size_t token_len,
                                 handshake_msg *m)
{
    Quern__AuthProof *pr = &m->u.proof;

    msg_init(m);
    quern__auth_proof__init(pr);
    auth_proof(token, token_len, hs->role, hs->peer_nonce, hs->nonce, m->mac);
    pr->mac.data = m->mac;
    pr->mac.len = sizeof(m->mac);
    m->env.body_case = QUERN__ENVELOPE__BODY_AUTH_PROOF;
    m->env.auth_proof = pr;
    return &m->env;
}

int handshake_proof_ok(const handshake *hs, const char *token, size_t token_len,
                       const Quern__AuthProof *pr)
{
    return auth_verify(token, token_len, other_role(hs), hs->nonce, hs->peer_nonce, pr->mac.data,
                       pr->mac.len);
}

Quern__Envelope *handshake_result(int ok, const char *reason, handshake_msg *m)
{
    Quern__AuthResult *ar = &m->u.result;

    msg_init(m);
    quern__auth_result__init(ar);
    ar->ok = ok ? 1 : 0;
    ar->reason = (char *)(reason != NULL ? reason : "");
    m->env.body_case = QUERN__ENVELOPE__BODY_AUTH_RESULT;
    m->env.auth_result = ar;
    return &m->env;
}

seal_hs handshake_seal_hs(const handshake *hs, const uint8_t *secret)
{
    seal_hs s;

    if (is_console(hs)) {
        s = (seal_hs){hs->peer_nonce, hs->nonce, hs->peer_kx, hs->keyexchange_pub, secret};
    } else {
        s = (seal_hs){hs->nonce, hs->peer_nonce, hs->keyexchange_pub, hs->peer_kx, secret};
    }
    return s;
}

int handshake_seal(peer *l, handshake *hs, const char *token, size_t token_len, size_t max_in)
{
    seal_hs s = handshake_seal_hs(hs, NULL);

    return peer_seal_link(l, token, token_len, &s, hs->keyexchange_priv, hs->peer_kx,
                          is_console(hs), max_in);
}

Quern__Envelope *handshake_register(const char *name, uint32_t workers, handshake_msg *m)
{
    Quern__Register *rg = &m->u.reg;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);

    msg_init(m);
    quern__register__init(rg);
    gethostname(m->host, sizeof(m->host) - 1);
    rg->name = (char *)name;
    rg->host = m->host;
    rg->cores = cores > 0 ? (uint32_t)cores : 1;
    rg->workers = workers;
    rg->quern_version = (char *)QUERN_VERSION;
    rg->pid = (uint32_t)getpid();
    m->env.body_case = QUERN__ENVELOPE__BODY_REGISTER;
    m->env.register_ = rg;
    return &m->env;
}

Quern__Envelope *handshake_registered(int ok, uint32_t agent_index, const char *reason,
                                      handshake_msg *m)
{
    Quern__Registered *r = &m->u.registered;

    msg_init(m);
    quern__registered__init(r);
    r->ok = ok ? 1 : 0;
    r->agent_index = agent_index;
    if (reason != NULL)
        r->reason = (char *)reason;
    m->env.body_case = QUERN__ENVELOPE__BODY_REGISTERED;
    m->env.registered = r;
    return &m->env;
}

Quern__Envelope *handshake_ready(uint64_t run_id, int ok, const char *error, uint32_t vus,
                                 handshake_msg *m)
{
    Quern__Ready *rd = &m->u.ready;

    msg_init(m);
    quern__ready__init(rd);
    rd->run_id = run_id;
    rd->ok = ok ? 1 : 0;
    rd->error = (char *)(error != NULL ? error : "");
    rd->vus = vus;
    m->env.body_case = QUERN__ENVELOPE__BODY_READY;
    m->env.ready = rd;
    return &m->env;
}

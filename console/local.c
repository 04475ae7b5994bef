#include "console/local.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "agent/rundir.h"
#include "common/err.h"
#include "common/mem.h"
#include "proto/auth.h"

#define LOCAL_STOP_WAIT_MS 8000 /* the agent stops its workers within 5 s */

int local_token(local_agent *la, char **token, size_t *token_len, char *err, size_t errlen)
{
    uint8_t raw[AUTH_NONCE_LEN];
    char hex[2 * AUTH_NONCE_LEN + 2];
    const char *tmp = getenv("TMPDIR");
    char why[512];
    int fd;

    /* The folder the agent will check for its run folders: another user who
     * may swap files there could hand the agent a token of their own. */
    if (rundir_workdir(NULL, why, sizeof(why)) != 0) {
        err_set(err, errlen, "cannot write the local agent's token: %s", why);
        return -1;
    }
    if (auth_nonce(raw) != 0) {
        err_set(err, errlen, "cannot make a random token");
        return -1;
    }
    for (size_t i = 0; i < sizeof(raw); i++)
        snprintf(hex + 2 * i, 3, "%02x", raw[i]);
    hex[2 * AUTH_NONCE_LEN] = '\n';
    hex[2 * AUTH_NONCE_LEN + 1] = '\0';
    snprintf(la->token_path, sizeof(la->token_path), "%s/quern-token.XXXXXX",
             tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
    fd = mkstemp(la->token_path); /* mode 600 */
    if (fd < 0) {
        err_set(err, errlen, "cannot create a token file in %s: %s", tmp != NULL ? tmp : "/tmp",
                strerror(errno));
        la->token_path[0] = '\0';
        return -1;
    }
    if (write(fd, hex, strlen(hex)) != (ssize_t)strlen(hex)) {
        err_set(err, errlen, "cannot write %s: %s", la->token_path, strerror(errno));
        close(fd);
        return -1;
    }
    close(fd);
    /* the console keeps its copy: the file is never read back */
    *token_len = 2 * AUTH_NONCE_LEN;
    *token = xmalloc(*token_len + 1);
    memcpy(*token, hex, *token_len);
    (*token)[*token_len] = '\0';
    OPENSSL_cleanse(hex, sizeof(hex));
    OPENSSL_cleanse(raw, sizeof(raw));
    return 0;
}

int local_agent_start(local_agent *la, unsigned port, unsigned workers, char *err, size_t errlen)
{
    char console[32], nworkers[16];
    pid_t pid;

    snprintf(console, sizeof(console), "127.0.0.1:%u", port);
    snprintf(nworkers, sizeof(nworkers), "%u", workers);
    pid = fork();
    if (pid < 0) {
        err_set(err, errlen, "cannot start the local agent: %s", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        char *argv[13];
        int n = 0;
        setpgid(0, 0);
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() == 1)
            _exit(3); /* the console is already gone */
        argv[n++] = "quern";
        argv[n++] = "agent";
        argv[n++] = "--quiet";
        argv[n++] = "--name";
        argv[n++] = "local";
        argv[n++] = "--console";
        argv[n++] = console;
        argv[n++] = "--token-file";
        argv[n++] = la->token_path;
        argv[n++] = "--same-host"; /* it takes the folder by path (proto/bundle.h) */
        if (workers > 0) {
            argv[n++] = "--workers";
            argv[n++] = nworkers;
        }
        argv[n] = NULL;
        execv("/proc/self/exe", argv);
        fprintf(stderr, "quern: cannot start the local agent: %s\n", strerror(errno));
        _exit(3);
    }
    la->pid = pid;
    return 0;
}

void local_token_drop(local_agent *la)
{
    if (la->token_path[0] != '\0') {
        unlink(la->token_path);
        la->token_path[0] = '\0';
    }
}

int local_agent_exited(local_agent *la, int *code)
{
    int st;

    if (la->pid <= 0 || waitpid(la->pid, &st, WNOHANG) != la->pid)
        return 0;
    la->pid = 0;
    *code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    return 1;
}

void local_agent_stop(local_agent *la)
{
    if (la->pid > 0) {
        int st;
        kill(la->pid, SIGTERM);
        for (int ms = 0; waitpid(la->pid, &st, WNOHANG) == 0; ms += 10) {
            struct timespec ts = {0, 10000000};
            if (ms >= LOCAL_STOP_WAIT_MS) {
                kill(la->pid, SIGKILL);
                waitpid(la->pid, &st, 0);
                break;
            }
            nanosleep(&ts, NULL);
        }
        la->pid = 0;
    }
    local_token_drop(la);
}

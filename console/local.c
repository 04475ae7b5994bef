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

#include "common/err.h"
#include "proto/auth.h"

#define LOCAL_STOP_WAIT_MS 8000 /* the agent stops its workers within 5 s */

int local_token(local_agent *la, char *err, size_t errlen)
{
    uint8_t raw[AUTH_NONCE_LEN];
    char hex[2 * AUTH_NONCE_LEN + 2];
    const char *tmp = getenv("TMPDIR");
    int fd;

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
        char *argv[12];
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

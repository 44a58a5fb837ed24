// Ends every process a test process started once that process is gone, however it went (a crash included).
//
// A test process starts daemons (dbus-daemon and python-dbusmock, PostgreSQL, headless Chromium, `workout peripheral`
// and `workout serve`) and ends them when each test ends. When the process crashes, nothing ends them; those that
// inherited its standard error keep `swift test`'s pipe open, and `swift test` then waits for the end of that pipe
// forever instead of reporting the crash. So before main, while the process has one thread, this forks a reaper:
// it holds the reading end of a pipe whose only writing end stays in the test process (close-on-exec, so no child
// holds it), with its own standard streams on /dev/null and a session of its own (Ctrl-C on the terminal does not
// reach it). The test process marks its environment with OHK_TEST_RUN, which every child inherits; when the pipe
// ends (the test process exited or was killed), the reaper kills every process whose environment carries the mark.

#define _GNU_SOURCE
#include "TestRunReaper.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pid_t reaper = -1;

pid_t ohk_test_run_reaper(void) { return reaper; }

/// Whether the environment process `pid` started with holds `entry` ("OHK_TEST_RUN=…").
static int carries(const char *pid, const char *entry) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%s/environ", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    static char environment[1 << 20];
    size_t length = 0;
    ssize_t count;
    while (length < sizeof environment - 1 &&
           (count = read(fd, environment + length, sizeof environment - 1 - length)) != 0) {
        if (count < 0) {
            if (errno == EINTR) continue;
            break;
        }
        length += (size_t)count;
    }
    close(fd);
    environment[length] = '\0';
    size_t wanted = strlen(entry);
    for (size_t at = 0; at < length; at += strlen(environment + at) + 1) {
        if (strncmp(environment + at, entry, wanted + 1) == 0) return 1;
    }
    return 0;
}

/// Kills every process whose environment carries `entry`; returns how many it found.
static int kill_marked(const char *entry) {
    DIR *directory = opendir("/proc");
    if (directory == NULL) return 0;
    int found = 0;
    struct dirent *item;
    while ((item = readdir(directory)) != NULL) {
        char *end;
        long pid = strtol(item->d_name, &end, 10);
        if (*end != '\0' || pid <= 1 || pid == getpid()) continue;
        if (carries(item->d_name, entry)) {
            kill((pid_t)pid, SIGKILL);
            found += 1;
        }
    }
    closedir(directory);
    return found;
}

__attribute__((constructor)) static void ohk_start_test_run_reaper(void) {
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    static char mark[64];
    snprintf(mark, sizeof mark, "%d-%lld%09ld", (int)getpid(), (long long)now.tv_sec, now.tv_nsec);
    static char entry[96];
    snprintf(entry, sizeof entry, "OHK_TEST_RUN=%s", mark);

    int lifeline[2];
    if (pipe2(lifeline, O_CLOEXEC) != 0) return;
    pid_t pid = fork();
    if (pid < 0) {
        close(lifeline[0]);
        close(lifeline[1]);
        return;
    }
    if (pid == 0) {
        setsid();
        int null = open("/dev/null", O_RDWR);
        if (null >= 0) {
            dup2(null, STDIN_FILENO);
            dup2(null, STDOUT_FILENO);
            dup2(null, STDERR_FILENO);
        }
        // Nothing of the test process's stays open here but the lifeline's reading end.
        long highest = sysconf(_SC_OPEN_MAX);
        for (int fd = 3; fd < (highest > 0 && highest < 65536 ? highest : 65536); fd++) {
            if (fd != lifeline[0]) close(fd);
        }
        char byte;
        ssize_t count;
        while ((count = read(lifeline[0], &byte, 1)) != 0) {
            if (count < 0 && errno != EINTR) break;
        }
        // Processes may start children while being killed: go round until none is left (at most a few times).
        for (int round = 0; round < 5 && kill_marked(entry) > 0; round++) {
            struct timespec pause = {0, 50 * 1000 * 1000};
            nanosleep(&pause, NULL);
        }
        _exit(0);
    }
    close(lifeline[0]);
    reaper = pid;
    setenv("OHK_TEST_RUN", mark, 1);
}

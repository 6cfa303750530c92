/*
 * tests/threads.h - the runtime's threads as /proc shows them: a thread's
 * name and state, found by the name's prefix ("aclrt-d0-e": device 0's
 * executors). Safe to call from a task on a runtime thread: no check of
 * its own fails (a directory that cannot be read has no threads).
 */
#ifndef ACLRT_TESTS_THREADS_H
#define ACLRT_TESTS_THREADS_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One line of /proc/self/task/<tid>/<what> into buf ("" if it cannot be read). */
static void task_line(const char *tid, const char *what, char *buf, size_t size)
{
    char path[300];
    snprintf(path, sizeof path, "/proc/self/task/%s/%s", tid, what);
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return;
    if (fgets(buf, (int)size, f) == NULL)
        buf[0] = '\0';
    fclose(f);
}

/* The next thread of this process whose name starts with `prefix`; NULL at the end. */
static const char *next_thread_named(DIR *d, const char *prefix)
{
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        char comm[32];
        task_line(e->d_name, "comm", comm, sizeof comm);
        if (e->d_name[0] != '.' && strncmp(comm, prefix, strlen(prefix)) == 0)
            return e->d_name;
    }
    return NULL;
}

/*
 * Device 0's executor threads ("aclrt-d0-e...") but the thread `except`
 * (0: none), and how many of them sleep (state S in /proc).
 */
static int executors_asleep(long except, int *total)
{
    int asleep = 0;
    *total = 0;
    DIR *d = opendir("/proc/self/task");
    if (d == NULL)
        return 0;
    for (const char *tid; (tid = next_thread_named(d, "aclrt-d0-e")) != NULL;) {
        if (atol(tid) == except)
            continue;
        char stat[256];
        task_line(tid, "stat", stat, sizeof stat);
        const char *state = strrchr(stat, ')'); /* "tid (comm) S ..." */
        (*total)++;
        asleep += state != NULL && state[1] == ' ' && state[2] == 'S';
    }
    closedir(d);
    return asleep;
}

#endif /* ACLRT_TESTS_THREADS_H */

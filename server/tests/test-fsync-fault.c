/* For the tests only (test-tg-server-damage.py): preloaded into tg-server, it makes fsync and
 * fdatasync of a write-ahead log (a file whose name ends in -wal) fail with EIO while the file
 * named by TG_FSYNC_FAIL exists, as a failing disk would. The write before the sync has still
 * reached the file, which is what makes a refused commit come back after a crash. */
#define _GNU_SOURCE

#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool failing(int fd)
{
    const char *trigger = getenv("TG_FSYNC_FAIL");
    if (!trigger || access(trigger, F_OK) != 0)
        return false;
    char link[64], path[4096];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, sizeof path - 1);
    if (n < 4)
        return false;
    path[n] = '\0';
    return strcmp(path + n - 4, "-wal") == 0;
}

static int call_real(const char *name, int fd)
{
    int (*real)(int) = NULL;
    void *sym = dlsym(RTLD_NEXT, name);
    memcpy(&real, &sym, sizeof real); /* POSIX: a function's address, through void * */
    return real ? real(fd) : (errno = ENOSYS, -1);
}

int fsync(int fd)
{
    if (failing(fd)) {
        errno = EIO;
        return -1;
    }
    return call_real("fsync", fd);
}

int fdatasync(int fd)
{
    if (failing(fd)) {
        errno = EIO;
        return -1;
    }
    return call_real("fdatasync", fd);
}

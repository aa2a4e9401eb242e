// clock-ahead: an LD_PRELOAD library that moves the wall clock of a process (and of the children that
// inherit LD_PRELOAD) ahead by CLOCK_AHEAD_SECONDS, for the test suite's "clock moved ahead" guard
// (docs/testing.md, "Time in tests"). Reads of the wall clock move: CLOCK_REALTIME and its coarse
// variant, gettimeofday, time and timespec_get. The monotonic and boot clocks do not, so timeouts and
// durations stay real. A wait until a wall-clock instant (pthread_cond_timedwait on a default condition
// variable, sem_timedwait, clock_nanosleep and timerfd_settime with an absolute CLOCK_REALTIME time) is
// moved back by the same amount, so it ends when it would have ended on the real clock.
//
// Why not Debian's libfaketime: its 0.9.10 also intercepts timers and timed waits (timerfd_settime,
// pthread_cond_timedwait, epoll_wait, ...); under it a Swift program's first `Task.sleep` never returns
// (libdispatch's timers do not fire), even with FAKETIME=+0 and FAKETIME_DONT_FAKE_MONOTONIC=1, so the
// sandbox never stops and every daemon hangs. What the guard needs is a later wall clock, nothing else.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/time.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <sys/timerfd.h>
#include <string.h>
#include <time.h>

// The toolchain keeps the real clock. `swift test` compiles the package manifests again when it finds
// them stale and the compiler validates its module cache against time stamps; with the clock moved a year
// ahead that failed now and then ("module '_Builtin_stddef' is defined in both …", then "no tests found"),
// and the matrix failed before a test ran (CI of 2026-12-02). What the guard moves is the clock of the
// tests and of the programs they start, not of the compiler.
static int is_toolchain(void) {
    const char *name = program_invocation_short_name;
    if (!name) return 0;
    return strncmp(name, "swift", 5) == 0 || strncmp(name, "clang", 5) == 0 || strcmp(name, "ld") == 0
        || strncmp(name, "ld.", 3) == 0;
}

static long ahead(void) {
    static long seconds = -1;
    if (seconds < 0) {
        const char *value = getenv("CLOCK_AHEAD_SECONDS");
        seconds = value ? atol(value) : 0;
        if (seconds < 0 || is_toolchain()) seconds = 0;
    }
    return seconds;
}

static int is_wall(clockid_t clock) {
    return clock == CLOCK_REALTIME || clock == CLOCK_REALTIME_COARSE;
}

int clock_gettime(clockid_t clock, struct timespec *ts) {
    static int (*real)(clockid_t, struct timespec *);
    if (!real) real = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
    int result = real(clock, ts);
    if (result == 0 && is_wall(clock)) ts->tv_sec += ahead();
    return result;
}

int gettimeofday(struct timeval *restrict tv, void *restrict tz) {
    static int (*real)(struct timeval *restrict, void *restrict);
    if (!real) real = (int (*)(struct timeval *restrict, void *restrict))dlsym(RTLD_NEXT, "gettimeofday");
    int result = real(tv, tz);
    if (result == 0) tv->tv_sec += ahead();
    return result;
}

time_t time(time_t *out) {
    struct timespec ts;
    if (clock_gettime(CLOCK_REALTIME, &ts) != 0) return (time_t)-1;
    if (out) *out = ts.tv_sec;
    return ts.tv_sec;
}

int timespec_get(struct timespec *ts, int base) {
    if (base != TIME_UTC || clock_gettime(CLOCK_REALTIME, ts) != 0) return 0;
    return base;
}

// A deadline on the wall clock, moved back to the real one. A deadline on the monotonic clock (a condition
// variable set to CLOCK_MONOTONIC) counts from boot, so it is far below 2001 and is left alone.
static const struct timespec *back(const struct timespec *deadline, struct timespec *moved) {
    if (!deadline || deadline->tv_sec < 1000000000L) return deadline;
    *moved = *deadline;
    moved->tv_sec -= ahead();
    return moved;
}

int pthread_cond_timedwait(pthread_cond_t *restrict cond, pthread_mutex_t *restrict mutex,
                           const struct timespec *restrict deadline) {
    static int (*real)(pthread_cond_t *, pthread_mutex_t *, const struct timespec *);
    if (!real) {
        real = (int (*)(pthread_cond_t *, pthread_mutex_t *, const struct timespec *))dlvsym(
            RTLD_NEXT, "pthread_cond_timedwait", "GLIBC_2.3.2");
        if (!real)
            real = (int (*)(pthread_cond_t *, pthread_mutex_t *, const struct timespec *))dlsym(
                RTLD_NEXT, "pthread_cond_timedwait");
    }
    struct timespec moved;
    return real(cond, mutex, back(deadline, &moved));
}

int sem_timedwait(sem_t *restrict sem, const struct timespec *restrict deadline) {
    static int (*real)(sem_t *, const struct timespec *);
    if (!real) real = (int (*)(sem_t *, const struct timespec *))dlsym(RTLD_NEXT, "sem_timedwait");
    struct timespec moved;
    return real(sem, back(deadline, &moved));
}

int clock_nanosleep(clockid_t clock, int flags, const struct timespec *request, struct timespec *remain) {
    static int (*real)(clockid_t, int, const struct timespec *, struct timespec *);
    if (!real) real = (int (*)(clockid_t, int, const struct timespec *, struct timespec *))dlsym(
        RTLD_NEXT, "clock_nanosleep");
    struct timespec moved;
    if ((flags & TIMER_ABSTIME) && is_wall(clock)) request = back(request, &moved);
    return real(clock, flags, request, remain);
}

int timerfd_settime(int fd, int flags, const struct itimerspec *value, struct itimerspec *old) {
    static int (*real)(int, int, const struct itimerspec *, struct itimerspec *);
    if (!real) real = (int (*)(int, int, const struct itimerspec *, struct itimerspec *))dlsym(
        RTLD_NEXT, "timerfd_settime");
    // A timerfd does not say its clock; an absolute time above 2001 can only be on the wall clock.
    struct itimerspec moved;
    if ((flags & TFD_TIMER_ABSTIME) && value && value->it_value.tv_sec >= 1000000000L) {
        moved = *value;
        moved.it_value.tv_sec -= ahead();
        value = &moved;
    }
    return real(fd, flags, value, old);
}

// epoll(7) for HTTPServing's socket pool: Swift's Glibc module does not export <sys/epoll.h>.
#pragma once
#include <sys/epoll.h>

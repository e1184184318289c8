#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

// accept4 is declared by <sys/socket.h> only under _GNU_SOURCE, which the Glibc module is not
// built with; declare the libc symbol ourselves.
extern int accept4(int fd, struct sockaddr *address, socklen_t *length, int flags);

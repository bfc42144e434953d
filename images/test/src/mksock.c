/* mksock PATH: binds a unix socket at PATH and exits, leaving the socket file behind.
   Busybox cannot make one, and the tests need an agent that plants a socket in out/. */
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

int main(int argc, char **argv) {
  struct sockaddr_un addr;
  int fd;
  if (argc != 2 || strlen(argv[1]) >= sizeof addr.sun_path) {
    fprintf(stderr, "usage: mksock PATH (shorter than %zu bytes)\n", sizeof addr.sun_path);
    return 2;
  }
  memset(&addr, 0, sizeof addr);
  addr.sun_family = AF_UNIX;
  strcpy(addr.sun_path, argv[1]);
  fd = socket(AF_UNIX, SOCK_STREAM, 0);
  if (fd < 0 || bind(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
    perror("mksock");
    return 1;
  }
  return 0;
}

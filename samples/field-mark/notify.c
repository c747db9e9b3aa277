#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
/* Sends STATUS=starting, then READY=1 to $NOTIFY_SOCKET ('@' abstract), as sd_notify does;
 * prints "served", exits with its first argument (0 without one). */
static void say(const char *text) {
    const char *path = getenv("NOTIFY_SOCKET");
    if (!path || !*path) return;
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    size_t n = strlen(path);
    if (n >= sizeof address.sun_path) return;
    memcpy(address.sun_path, path, n);
    socklen_t length = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + 1);
    if (path[0] == '@') { address.sun_path[0] = 0; length--; }
    sendto(fd, text, strlen(text), 0, (struct sockaddr *)&address, length);
    close(fd);
}
int main(int argc, char **argv) {
    say("STATUS=starting");
    usleep(20000);
    say("READY=1\nSTATUS=serving");
    puts("served");
    return argc > 1 ? atoi(argv[1]) : 0;
}

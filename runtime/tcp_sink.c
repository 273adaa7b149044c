/* tcp_sink.c - sink = 'tcp': the collector's lines (CSV with its header, or
 * JSON lines) to a server, over one connection made before the run.
 *
 * No reconnection: TCP does not say which bytes the peer read, so after a
 * lost connection a resend would duplicate or lose rows without saying so.
 * A peer that is gone ends the run instead: before every write the socket
 * is asked whether the peer closed its side (POLLRDHUP, or a read of 0),
 * and a write that fails (EPIPE, ECONNRESET) or that the peer does not take
 * within `timeout` ends it too. Bytes the peer sends are read and dropped.
 */
#include "air_int.h"

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

typedef struct TSink {
  AirSinkErr err; /* first: air_sink_error takes the sink */
  const AirTcpSinkDef *def;
  int fd;
} TSink;

/* Has the peer closed its side? Bytes it sent are dropped. */
static bool peer_gone(TSink *s) {
  for (;;) {
    struct pollfd p = {.fd = s->fd, .events = POLLIN | POLLRDHUP};
    if (poll(&p, 1, 0) <= 0) return false;
    if (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) return true;
    char junk[4096];
    ssize_t r = recv(s->fd, junk, sizeof junk, MSG_DONTWAIT);
    if (r == 0) return true;
    if (r < 0) return errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR;
  }
}

static ssize_t tsink_write(void *cookie, const char *buf, size_t size) {
  TSink *s = cookie;
  if (!s->err.failed && peer_gone(s)) air_sink_fail(&s->err, "the peer closed the connection");
  size_t at = 0;
  while (!s->err.failed && at < size) {
    ssize_t w = send(s->fd, buf + at, size - at, MSG_NOSIGNAL);
    if (w > 0) {
      at += (size_t)w;
    } else if (w < 0 && errno == EINTR) {
      continue;
    } else if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      air_sink_fail(&s->err, "the peer took nothing for %lld ms (option 'timeout')", (long long)s->def->timeout_ms);
    } else {
      air_sink_fail(&s->err, "lost the connection: %s", w < 0 ? strerror(errno) : "nothing written");
    }
  }
  if (s->err.failed) {
    errno = EIO;
    return -1;
  }
  return (ssize_t)size;
}

static int tsink_close(void *cookie) {
  TSink *s = cookie;
  if (s->fd >= 0) close(s->fd);
  free(s);
  return 0;
}

/* One connection attempt to each address; the socket or -1 and errno. */
static int connect_once(const char *host, const char *port, struct timeval tv) {
  struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *ai = NULL;
  int g = getaddrinfo(host, port, &hints, &ai);
  if (g != 0) {
    errno = ENOENT;
    return -2;
  }
  int fd = -1, e = ECONNREFUSED;
  for (struct addrinfo *a = ai; a && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      e = errno;
      continue;
    }
    /* a blocking connect and send wait at most the timeout */
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    if (connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
      e = errno;
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(ai);
  errno = e;
  return fd;
}

static void *tsink_open(AirRuntime *rt, const void *def, FILE **out, char *err, size_t nerr) {
  const AirTcpSinkDef *d = def;
  (void)rt;
  char host[256], port[16];
  if (!air_split_hostport(d->address, host, sizeof host, port, sizeof port)) {
    snprintf(err, nerr, "tcp sink '%s': '%s' is not host:port", d->name, d->address);
    return NULL;
  }
  int64_t ms = d->timeout_ms > 0 ? d->timeout_ms : 30000;
  struct timeval tv = {.tv_sec = (time_t)(ms / 1000), .tv_usec = (suseconds_t)(ms % 1000 * 1000)};
  /* a server that is not there yet may come within the timeout */
  int64_t deadline = air_now_ms() + ms;
  int fd;
  for (;;) {
    fd = connect_once(host, port, tv);
    if (fd >= 0 || fd == -2 || air_now_ms() >= deadline) break;
    usleep(100 * 1000);
  }
  if (fd < 0) {
    if (fd == -2)
      snprintf(err, nerr, "tcp sink '%s': cannot resolve '%s'", d->name, d->address);
    else
      snprintf(err, nerr, "tcp sink '%s': cannot connect to %s within %lld ms (option 'timeout'): %s", d->name,
               d->address, (long long)ms, strerror(errno));
    return NULL;
  }
  TSink *s = calloc(1, sizeof *s);
  if (!s) air_oom("tcp sink");
  s->def = d;
  s->fd = fd;
  snprintf(s->err.who, sizeof s->err.who, "tcp sink '%s' (%s)", d->name, d->address);
  cookie_io_functions_t io = {.write = tsink_write, .close = tsink_close};
  FILE *f = fopencookie(s, "w", io);
  if (!f) {
    snprintf(err, nerr, "tcp sink '%s': %s", d->name, strerror(errno));
    tsink_close(s);
    return NULL;
  }
  *out = f;
  return s;
}

/* Everything written, the sending side shut down (the peer reads its end);
 * the FILE is closed by the caller. */
static bool tsink_finish(void *sink, FILE *f, char *why, size_t n) {
  TSink *s = sink;
  fflush(f);
  if (!s->err.failed && shutdown(s->fd, SHUT_WR) != 0) air_sink_fail(&s->err, "lost the connection: %s", strerror(errno));
  return air_sink_report(&s->err, why, n);
}

const AirSinkOps air_tcp_sink_ops = {
    .open = tsink_open,
    .finish = tsink_finish,
    .error = air_sink_error,
};

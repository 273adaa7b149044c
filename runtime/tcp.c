/* tcp.c - a csv stream over TCP (source = 'tcp'): newline-delimited records
 * from the senders that connect to a listening socket, or from a server
 * this rank connects to (and reconnects to when it goes away).
 *
 * The csv reader (csv.c) asks for bytes; this hands it whole lines only,
 * one sender's at a time, so records of concurrent senders never
 * interleave. A line ends at '\n' or '\r' outside quotes (the quote parity
 * of the sender's bytes since its last line handed out); a sender's buffer
 * that passes AIR_TCP_LINE_MAX without such an end is handed out at its
 * last line end anyway, so one unbalanced quote cannot hold a sender back
 * for ever. A sender that closes with an unfinished last line has it
 * ended with '\n': it sent all it will.
 *
 * Everything is non-blocking and waits in poll(2) for at most the timeout
 * asked, so the reader hears a stop within it. A sender whose whole lines
 * already waiting pass TCP_HOLD_MAX is not read until they are handed out:
 * its bytes wait in the kernel, whose window then slows the sender down
 * (TCP's own backpressure), so a fast sender cannot fill this rank's memory.
 */
#include "air_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define AIR_TCP_LINE_MAX (4u << 20) /* bytes a sender may hold without a line end outside quotes */
#define TCP_HOLD_MAX (1u << 20)     /* a sender with whole lines waiting is not read past this */
#define TCP_MAX_CLIENTS 1024        /* concurrent senders on a listening socket */
#define TCP_RETRY_MIN_MS 100        /* first reconnect delay; doubles to */
#define TCP_RETRY_MAX_MS 1000

typedef struct Peer {
  int fd;           /* -1: closed */
  char *buf;        /* bytes received, not handed out: buf[0..len) */
  size_t len, cap;
  size_t scanned;   /* bytes of buf whose quote parity is in `odd` */
  bool odd;         /* an odd number of quotes in buf[0..scanned) */
  size_t cut;       /* bytes of buf up to the last safe line end found */
  bool eof;         /* the sender closed: buf is its last bytes */
  char name[64];    /* its address, "127.0.0.1:40122" (connecting: the server's) */
  long lines;       /* lines of it handed out so far */
} Peer;

struct AirTcp {
  bool listening;
  char *spec;       /* host:port as the query gave it */
  char *who;        /* "airc: query: stream 's'", to begin what it says on stderr */
  int lfd;          /* the listening socket, or -1 */
  Peer *peers;      /* listening: the senders; connecting: peers[0] */
  int npeers, cap;
  int next;         /* round robin over peers with lines */
  struct pollfd *pf; /* poll's array, room for npeers + 1 (pf_cap) */
  int pf_cap;
  /* connecting */
  struct addrinfo *ai;
  int64_t retry_at; /* ms: next connection attempt */
  int retry_ms;
  bool told;        /* the current failure streak was reported */
  bool ever;        /* a connection was made once */
  /* the sender of the bytes the last air_tcp_read gave, for air_tcp_from */
  char last_name[64];
  long last_line;   /* the number, in its sender's lines, of their first line */
};

static int64_t mono_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void errf(char *err, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void errf(char *err, size_t n, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, n, fmt, ap);
  va_end(ap);
}

bool air_split_hostport(const char *spec, char *host, size_t nh, char *port, size_t np) {
  const char *colon = strrchr(spec, ':');
  if (!colon || colon == spec || !colon[1]) return false;
  size_t hl = (size_t)(colon - spec);
  if (hl >= nh || strlen(colon + 1) >= np) return false;
  if (hl >= 2 && spec[0] == '[' && spec[hl - 1] == ']') { /* [IPv6]:port */
    spec++;
    hl -= 2;
  }
  memcpy(host, spec, hl);
  host[hl] = '\0';
  strcpy(port, colon + 1);
  return true;
}

static bool nonblocking(int fd) {
  int fl = fcntl(fd, F_GETFL);
  return fl >= 0 && fcntl(fd, F_SETFL, fl | O_NONBLOCK) == 0;
}

static void peer_init(Peer *p, int fd) { *p = (Peer){.fd = fd}; }

/* A connected socket's other end as text: "1.2.3.4:5", "[::1]:5". */
static void peer_name(int fd, char *out, size_t n) {
  struct sockaddr_storage sa;
  socklen_t len = sizeof sa;
  char host[INET6_ADDRSTRLEN] = "?";
  int port = 0;
  if (getpeername(fd, (struct sockaddr *)&sa, &len) == 0) {
    if (sa.ss_family == AF_INET) {
      const struct sockaddr_in *a = (const struct sockaddr_in *)&sa;
      inet_ntop(AF_INET, &a->sin_addr, host, sizeof host);
      port = ntohs(a->sin_port);
    } else if (sa.ss_family == AF_INET6) {
      const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)&sa;
      inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof host);
      port = ntohs(a->sin6_port);
      snprintf(out, n, "[%s]:%d", host, port);
      return;
    }
  }
  snprintf(out, n, "%s:%d", host, port);
}

static void peer_free(Peer *p) {
  if (p->fd >= 0) close(p->fd);
  free(p->buf);
  peer_init(p, -1);
}

AirTcp *air_tcp_open(const char *spec, bool listen_mode, const char *who, char *err, size_t nerr) {
  char host[256], port[16];
  if (!air_split_hostport(spec, host, sizeof host, port, sizeof port)) {
    errf(err, nerr, "'%s' is not host:port", spec);
    return NULL;
  }
  struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
                           .ai_flags = listen_mode ? AI_PASSIVE : 0};
  struct addrinfo *ai = NULL;
  int g = getaddrinfo(host, port, &hints, &ai);
  if (g != 0) {
    errf(err, nerr, "cannot resolve '%s': %s", spec, gai_strerror(g));
    return NULL;
  }
  AirTcp *t = calloc(1, sizeof *t);
  if (!t) air_oom("tcp source");
  t->listening = listen_mode;
  t->spec = strdup(spec);
  t->who = strdup(who ? who : "tcp");
  t->lfd = -1;
  t->cap = listen_mode ? 8 : 1;
  t->peers = malloc((size_t)t->cap * sizeof *t->peers);
  if (!t->spec || !t->who || !t->peers) air_oom("tcp source");
  if (!listen_mode) {
    t->ai = ai;
    t->npeers = 1;
    peer_init(&t->peers[0], -1);
    t->retry_ms = TCP_RETRY_MIN_MS;
    return t;
  }
  int e = 0;
  for (struct addrinfo *a = ai; a && t->lfd < 0; a = a->ai_next) {
    int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      e = errno;
      continue;
    }
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, a->ai_addr, a->ai_addrlen) != 0 || listen(fd, 64) != 0 || !nonblocking(fd)) {
      e = errno;
      close(fd);
      continue;
    }
    t->lfd = fd;
  }
  freeaddrinfo(ai);
  if (t->lfd < 0) {
    errf(err, nerr, "cannot listen on %s: %s", spec, strerror(e));
    air_tcp_close(t);
    return NULL;
  }
  return t;
}

void air_tcp_close(AirTcp *t) {
  if (!t) return;
  for (int i = 0; i < t->npeers; i++) peer_free(&t->peers[i]);
  if (t->lfd >= 0) close(t->lfd);
  if (t->ai) freeaddrinfo(t->ai);
  free(t->peers);
  free(t->pf);
  free(t->spec);
  free(t->who);
  free(t);
}

/* Scan new bytes of p for line ends outside quotes; p->cut follows. */
static void peer_scan(Peer *p) {
  for (size_t i = p->scanned; i < p->len; i++) {
    char ch = p->buf[i];
    if (ch == '"') p->odd = !p->odd;
    else if ((ch == '\n' || ch == '\r') && !p->odd) p->cut = i + 1;
  }
  p->scanned = p->len;
  if (p->cut == 0 && p->len >= AIR_TCP_LINE_MAX) /* an unbalanced quote: the last line end */
    for (size_t i = p->len; i > 0; i--)
      if (p->buf[i - 1] == '\n' || p->buf[i - 1] == '\r') {
        p->cut = i;
        p->odd = false;
        break;
      }
}

/* A sender not to read now: enough of its whole lines wait already. */
static bool held(const Peer *p) { return p->cut > 0 && p->len >= TCP_HOLD_MAX; }

/* Read what the sender has (up to TCP_HOLD_MAX of whole lines); p->eof
 * when it closed. */
static void peer_read(Peer *p) {
  for (;;) {
    if (p->cut > 0 && p->len >= TCP_HOLD_MAX) break;
    if (p->cap - p->len < 65536) {
      size_t cap = p->cap ? p->cap * 2 : 131072;
      air_memory_check(cap, "a tcp sender's unfinished lines");
      char *b = realloc(p->buf, cap);
      if (!b) air_oom("tcp source");
      p->buf = b;
      p->cap = cap;
    }
    ssize_t k = recv(p->fd, p->buf + p->len, p->cap - p->len, 0);
    if (k > 0) {
      p->len += (size_t)k;
      peer_scan(p);
      continue;
    }
    if (k < 0 && errno == EINTR) continue;
    if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    /* closed (or reset): what it sent is all there is */
    close(p->fd);
    p->fd = -1;
    p->eof = true;
    if (p->len > 0 && p->buf[p->len - 1] != '\n' && p->buf[p->len - 1] != '\r') {
      if (p->len == p->cap) {
        char *b = realloc(p->buf, p->cap + 1);
        if (!b) air_oom("tcp source");
        p->buf = b;
        p->cap++;
      }
      p->buf[p->len++] = '\n';
    }
    break;
  }
  peer_scan(p);
  if (p->eof) p->cut = p->len;
}

/* Up to n bytes of whole lines of p, consumed; 0 when it has none. */
static size_t peer_take(Peer *p, char *out, size_t n) {
  if (p->cut == 0) return 0;
  size_t k = p->cut;
  if (k > n) { /* the last line end within n, else (a line longer than n) n bytes */
    k = 0;
    for (size_t i = n; i > 0; i--)
      if (p->buf[i - 1] == '\n' || p->buf[i - 1] == '\r') {
        k = i;
        break;
      }
    if (k == 0) k = n;
  }
  memcpy(out, p->buf, k);
  memmove(p->buf, p->buf + k, p->len - k);
  p->len -= k;
  p->scanned -= k;
  p->cut -= k;
  return k;
}

static void accept_all(AirTcp *t) {
  for (;;) {
    int fd = accept4(t->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return; /* EAGAIN, or a transient error: poll again */
    int slot = -1;
    for (int i = 0; i < t->npeers && slot < 0; i++)
      if (t->peers[i].fd < 0 && !t->peers[i].eof && t->peers[i].len == 0) slot = i;
    if (slot < 0 && t->npeers == TCP_MAX_CLIENTS) {
      char name[64];
      peer_name(fd, name, sizeof name);
      fprintf(stderr, "%s: sender %s refused: %d senders are connected, the most a stream takes\n", t->who, name,
              TCP_MAX_CLIENTS);
      close(fd);
      continue;
    }
    if (slot < 0) {
      if (t->npeers == t->cap) {
        t->cap *= 2;
        Peer *p = realloc(t->peers, (size_t)t->cap * sizeof *p);
        if (!p) air_oom("tcp source");
        t->peers = p;
      }
      slot = t->npeers++;
    } else {
      free(t->peers[slot].buf);
    }
    peer_init(&t->peers[slot], fd);
    peer_name(fd, t->peers[slot].name, sizeof t->peers[slot].name);
    fprintf(stderr, "%s: sender %s connected\n", t->who, t->peers[slot].name);
  }
}

/* Connecting: one attempt, waiting at most timeout_ms for it. */
static void try_connect(AirTcp *t, int timeout_ms) {
  Peer *p = &t->peers[0];
  int e = ECONNREFUSED;
  for (struct addrinfo *a = t->ai; a && p->fd < 0; a = a->ai_next) {
    int fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      e = errno;
      continue;
    }
    if (connect(fd, a->ai_addr, a->ai_addrlen) != 0 && errno != EINPROGRESS) {
      e = errno;
      close(fd);
      continue;
    }
    struct pollfd pf = {.fd = fd, .events = POLLOUT};
    int soerr = 0;
    socklen_t sl = sizeof soerr;
    if (poll(&pf, 1, timeout_ms) <= 0) {
      e = ETIMEDOUT;
      close(fd);
      continue;
    }
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) != 0 || soerr != 0) {
      e = soerr ? soerr : errno;
      close(fd);
      continue;
    }
    p->fd = fd;
  }
  if (p->fd >= 0) {
    snprintf(p->name, sizeof p->name, "%s", t->spec);
    if (t->told) fprintf(stderr, "%s: connected to %s\n", t->who, t->spec);
    t->told = false;
    t->ever = true;
    t->retry_ms = TCP_RETRY_MIN_MS;
    return;
  }
  if (!t->told)
    fprintf(stderr, "%s: cannot connect to %s: %s; trying again every second at most\n", t->who, t->spec,
            strerror(e));
  t->told = true;
  t->retry_at = mono_ms() + t->retry_ms;
  t->retry_ms = t->retry_ms * 2 > TCP_RETRY_MAX_MS ? TCP_RETRY_MAX_MS : t->retry_ms * 2;
}

const char *air_tcp_from(const AirTcp *t, long *first_line) {
  *first_line = t->last_line;
  return t->last_name;
}

ssize_t air_tcp_read(AirTcp *t, char *out, size_t n, int timeout_ms) {
  int64_t deadline = mono_ms() + timeout_ms;
  ssize_t got = -2;
  for (;;) {
    /* whole lines already here: round robin over the senders */
    for (int k = 0; k < t->npeers; k++) {
      int i = (t->next + k) % t->npeers;
      Peer *p = &t->peers[i];
      size_t m = peer_take(p, out, n);
      if (m) {
        /* where these lines came from, for bad rows (air_tcp_from) */
        snprintf(t->last_name, sizeof t->last_name, "%s", p->name);
        t->last_line = p->lines + 1;
        for (const char *q = out, *e = out + m; (q = memchr(q, '\n', (size_t)(e - q))); q++)
          p->lines++;
      }
      if (p->fd < 0 && p->eof && p->len == 0) {
        if (t->listening)
          fprintf(stderr, "%s: sender %s closed the connection after %ld line%s; still listening on %s\n", t->who,
                  p->name, p->lines, p->lines == 1 ? "" : "s", t->spec);
        free(p->buf);
        peer_init(p, -1);
        if (!t->listening) { /* the server went away: reconnect */
          fprintf(stderr, "%s: %s closed the connection; reconnecting\n", t->who, t->spec);
          t->told = true;
          t->retry_at = mono_ms() + TCP_RETRY_MIN_MS;
        }
      }
      if (m) {
        t->next = (i + 1) % t->npeers;
        got = (ssize_t)m;
        goto done;
      }
    }
    int64_t left = deadline - mono_ms();
    if (left <= 0) goto done;
    if (!t->listening && t->peers[0].fd < 0) {
      int64_t wait = t->retry_at - mono_ms();
      if (wait > 0) {
        struct timespec ts = {0, (long)((wait < left ? wait : left) * 1000000)};
        nanosleep(&ts, NULL);
        continue;
      }
      try_connect(t, (int)left);
      continue;
    }
    if (t->pf_cap < t->npeers + 1) {
      struct pollfd *n = realloc(t->pf, (size_t)(t->npeers + 1) * sizeof *n);
      if (!n) air_oom("tcp source");
      t->pf = n;
      t->pf_cap = t->npeers + 1;
    }
    struct pollfd *pf = t->pf;
    int np = 0;
    if (t->lfd >= 0) pf[np++] = (struct pollfd){.fd = t->lfd, .events = POLLIN};
    for (int i = 0; i < t->npeers; i++)
      if (t->peers[i].fd >= 0 && !held(&t->peers[i]))
        pf[np++] = (struct pollfd){.fd = t->peers[i].fd, .events = POLLIN};
    int r = poll(pf, (nfds_t)np, (int)left);
    if (r < 0 && errno != EINTR) {
      got = -1;
      goto done;
    }
    if (r <= 0) continue;
    if (t->lfd >= 0 && (pf[0].revents & POLLIN)) accept_all(t);
    for (int i = 0; i < t->npeers; i++)
      if (t->peers[i].fd >= 0 && !held(&t->peers[i])) peer_read(&t->peers[i]);
  }
done:
  return got;
}

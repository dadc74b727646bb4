/* An input file's #python blocks run by the user's python3 (scene_text.h):
 * one process for all blocks of the file, started with posix_spawnp (no
 * Python in this program, no library beyond libc), in a process group of its
 * own so that a block that runs too long is stopped with everything it
 * started. The process is share/gpustencil/python/gs_blocks.py, which says
 * what the protocol on its stdin and stdout is. It watches its stdin: when
 * this program ends (killed, or a rank aborted), it kills its group. */
#include "scene_text.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "error.h"
#include "progress.h"

extern char **environ;

/* What the blocks get on stdin: "GSBLOCKS 1 N\n", then each block's length and code. */
static char *blocks_input(const gs_py_block *b, int n, size_t *len) {
  size_t cap = 64;
  for (int k = 0; k < n; ++k)
    cap += b[k].len + 32;
  char *in = gs_xmalloc(cap);
  size_t at = (size_t)snprintf(in, cap, "GSBLOCKS 1 %d\n", n);
  for (int k = 0; k < n; ++k) {
    at += (size_t)snprintf(in + at, cap - at, "%zu\n", b[k].len);
    if (b[k].len) memcpy(in + at, b[k].code, b[k].len); /* an empty block has no code (NULL) */
    at += b[k].len;
  }
  *len = at;
  return in;
}

/* The child's environment: this process's, less what an MPI launcher gave this
 * rank (a block whose imports call MPI_Init, as gprMax 4's package does, would
 * otherwise take itself for this rank and fail): it starts as a program of its
 * own. The user's rsh agent stays: an MPI started alone needs one where no ssh
 * is installed (OMPI_MCA_plm_rsh_agent=false). Returns a malloc'd array of the
 * kept pointers. */
static char **child_environment(void) {
  static const char *const launcher[] = {"OMPI_", "PMIX_", "PMI_", "ORTE_", "OPAL_", "HYDRA_", "HYDI_", "MPIR_"};
  static const char *const kept[] = {
      "OMPI_ALLOW_RUN_AS_ROOT=", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=", "OPAL_PREFIX=", "OMPI_MCA_plm_rsh_agent="};
  size_t n = 0;
  while (environ[n])
    ++n;
  char **env = gs_xmalloc(sizeof *env * (n + 1)), **at = env;
  for (size_t k = 0; k < n; ++k) {
    int drop = 0;
    for (size_t p = 0; p < sizeof launcher / sizeof launcher[0]; ++p)
      drop |= strncmp(environ[k], launcher[p], strlen(launcher[p])) == 0;
    for (size_t p = 0; p < sizeof kept / sizeof kept[0]; ++p)
      drop &= strncmp(environ[k], kept[p], strlen(kept[p])) != 0;
    if (!drop) *at++ = environ[k];
  }
  *at = NULL;
  return env;
}

/* The child: its stdin and stdout are the pipes' far ends, it leads a process
 * group of its own, and it starts with default signal handling. */
typedef struct child {
  pid_t pid;
  int in, out; /* our ends: its stdin (we write), its stdout (we read) */
} child;

static int spawn(const gs_scene_python *py, char *const argv[], child *ch, int *why) {
  int in[2], out[2];
  if (pipe(in) != 0) return *why = errno, -1;
  if (pipe(out) != 0) {
    *why = errno;
    close(in[0]);
    close(in[1]);
    return -1;
  }
  for (int k = 0; k < 2; ++k) {
    fcntl(in[k], F_SETFD, FD_CLOEXEC);
    fcntl(out[k], F_SETFD, FD_CLOEXEC);
  }
  posix_spawn_file_actions_t fa;
  posix_spawnattr_t at;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in[0], 0);
  posix_spawn_file_actions_adddup2(&fa, out[1], 1);
  posix_spawnattr_init(&at);
  sigset_t none, deflt;
  sigemptyset(&none);
  sigemptyset(&deflt);
  sigaddset(&deflt, SIGPIPE);
  sigaddset(&deflt, SIGINT);
  sigaddset(&deflt, SIGTERM);
  posix_spawnattr_setsigmask(&at, &none);
  posix_spawnattr_setsigdefault(&at, &deflt);
  posix_spawnattr_setpgroup(&at, 0);
  posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  char **env = child_environment();
  *why = posix_spawnp(&ch->pid, py->python, &fa, &at, argv, env);
  free(env);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&at);
  close(in[0]);
  close(out[1]);
  if (*why != 0) {
    close(in[1]);
    close(out[0]);
    return -1;
  }
  ch->in = in[1];
  ch->out = out[0];
  fcntl(ch->in, F_SETFL, O_NONBLOCK);
  return 0;
}

/* What came back, and how the exchange ended. */
typedef struct reply {
  char *buf;
  size_t len, cap;
  int timed_out, too_long; /* the deadline passed; more than the bound came */
} reply;

/* Writes in to the child and reads its stdout to the end, within the
 * deadline and the bound; the child's stdin stays open (it watches it). */
static void exchange(child *ch, const char *in, size_t inlen, double deadline, size_t bound, reply *r) {
  size_t sent = 0;
  int open_out = 1;
  while (open_out && !r->timed_out && !r->too_long) {
    struct pollfd pf[2] = {{ch->out, POLLIN, 0}, {sent < inlen ? ch->in : -1, POLLOUT, 0}};
    const double left = deadline - gs_now_s();
    if (left <= 0) {
      r->timed_out = 1;
      break;
    }
    int ms = left > 1000 ? 1000000 : (int)(left * 1000) + 1;
    if (poll(pf, 2, ms) < 0 && errno != EINTR) break;
    if (pf[1].revents & (POLLOUT | POLLERR | POLLHUP)) {
      ssize_t w = write(ch->in, in + sent, inlen - sent);
      if (w > 0) sent += (size_t)w;
      if (w < 0 && errno != EAGAIN && errno != EINTR) sent = inlen; /* it does not read: its reply says why */
    }
    if (pf[0].revents & (POLLIN | POLLERR | POLLHUP)) {
      if (r->cap - r->len < 65536) r->buf = gs_xrealloc(r->buf, r->cap = r->cap * 2 + 65536);
      ssize_t got = read(ch->out, r->buf + r->len, r->cap - r->len);
      if (got > 0) r->len += (size_t)got;
      if (got == 0 || (got < 0 && errno != EINTR && errno != EAGAIN)) open_out = 0;
      r->too_long = r->len > bound;
    }
  }
}

/* Waits for the child to end until the deadline, then kills its group;
 * returns its wait status (or -1). Closes our ends. */
static int finish(child *ch, double deadline, int kill_now) {
  int status = -1;
  if (kill_now) kill(-ch->pid, SIGKILL);
  for (;;) {
    pid_t w = waitpid(ch->pid, &status, kill_now ? 0 : WNOHANG);
    if (w == ch->pid || (w < 0 && errno != EINTR)) break;
    if (w == 0 && gs_now_s() > deadline) {
      kill(-ch->pid, SIGKILL);
      kill_now = 1;
    } else if (w == 0) {
      nanosleep(&(struct timespec){0, 10000000}, NULL);
    }
  }
  close(ch->in);
  close(ch->out);
  return status;
}

/* The records of the reply: each OUT into out[] (up to n), an ERR into
 * *eblock, *eline and msg. Returns the OUT records read; *end set on END. */
static int parse_reply(const reply *r, int n, char **out, size_t *outlen, int *end, int *eblock, int *eline, char *msg,
                       size_t msglen) {
  size_t at = 0;
  int got = 0;
  *end = 0;
  *eblock = -1;
  while (at < r->len) {
    const char *nl = memchr(r->buf + at, '\n', r->len - at);
    if (!nl) break;
    char head[96];
    snprintf(head, sizeof head, "%.*s", (int)(nl - (r->buf + at)), r->buf + at);
    at = (size_t)(nl - r->buf) + 1;
    unsigned long long size = 0;
    int k = -1, line = 0;
    if (strcmp(head, "END") == 0) {
      *end = 1;
      break;
    }
    int is_out = sscanf(head, "OUT %llu", &size) == 1, is_err = sscanf(head, "ERR %d %d %llu", &k, &line, &size) == 3;
    if ((!is_out && !is_err) || size > r->len - at) break;
    if (is_out && got < n) {
      out[got] = gs_xmalloc(size + 1);
      memcpy(out[got], r->buf + at, size);
      out[got][size] = '\0';
      outlen[got++] = size;
    } else if (is_err) {
      *eblock = k;
      *eline = line;
      snprintf(msg, msglen, "%.*s", (int)size, r->buf + at);
    }
    at += size;
  }
  return got;
}

/* The file line of code line `line` of block k (0: the block's own line). */
static int block_line(const gs_py_block *b, int line) {
  return line >= 1 && line <= b->nlines ? b->lines[line - 1] : b->line;
}

/* One line for a failure that the reply holds or the way the child ended. */
static void explain(const gs_scene_python *py, const char *path, const gs_py_block *b, int n, const reply *r, int done,
                    int status, const char *msg, int eblock, int eline, char *err, size_t errlen) {
  const gs_py_block *at = &b[done < n ? done : n - 1];
  if (eblock >= 0 && eblock < n) {
    const int line = block_line(&b[eblock], eline);
    if (line != b[eblock].line)
      snprintf(err, errlen, "%s:%d: #python (the block of line %d): %s", path, line, b[eblock].line, msg);
    else
      snprintf(err, errlen, "%s:%d: #python: %s", path, line, msg);
  } else if (r->timed_out) {
    snprintf(err, errlen, "%s:%d: #python: the blocks ran longer than %g s (--python-timeout): stopped", path, at->line,
             py->timeout_s);
  } else if (r->too_long) {
    snprintf(err, errlen, "%s:%d: #python: the blocks printed more than %zu MiB: stopped", path, at->line,
             py->max_output >> 20);
  } else if (status >= 0 && WIFSIGNALED(status)) {
    snprintf(err, errlen, "%s:%d: #python: %s was killed by signal %d before the blocks finished", path, at->line,
             py->python, WTERMSIG(status));
  } else {
    snprintf(err, errlen, "%s:%d: #python: %s ended (exit status %d) before the blocks finished", path, at->line,
             py->python, status >= 0 && WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  }
}

int gs_python_run(const gs_scene_python *py, const char *path, const gs_py_block *b, int n, char **out, size_t *outlen,
                  char *err, size_t errlen) {
  char driver[1200], run[32], runs[32], limit[32];
  snprintf(driver, sizeof driver, "%s/gs_blocks.py", py->libdir ? py->libdir : "");
  if (!py->libdir || access(driver, R_OK) != 0) {
    snprintf(err, errlen,
             "%s:%d: #python: gpustencil's Python files (share/gpustencil/python/gs_blocks.py) are not "
             "installed beside the program",
             path, b[0].line);
    return -1;
  }
  snprintf(run, sizeof run, "%lld", (long long)py->run);
  snprintf(runs, sizeof runs, "%lld", (long long)py->runs);
  snprintf(limit, sizeof limit, "%zu", py->max_output);
  char *argv[] = {(char *)py->python, driver, (char *)path, run, runs, limit, NULL};
  struct sigaction ign = {.sa_handler = SIG_IGN}, old;
  sigemptyset(&ign.sa_mask);
  sigaction(SIGPIPE, &ign, &old); /* a child that stops reading must not kill this program */
  child ch;
  int why = 0;
  if (spawn(py, argv, &ch, &why) != 0) {
    sigaction(SIGPIPE, &old, NULL);
    snprintf(err, errlen, "%s:%d: #python: cannot start %s: %s (the blocks run in the user's python3, found on PATH)",
             path, b[0].line, py->python, strerror(why));
    return -1;
  }
  size_t inlen;
  char *in = blocks_input(b, n, &inlen);
  reply r = {0};
  const double deadline = gs_now_s() + py->timeout_s;
  exchange(&ch, in, inlen, deadline, py->max_output + 64 * (size_t)n + 64, &r);
  free(in);
  const int status = finish(&ch, deadline + 5, r.timed_out || r.too_long);
  sigaction(SIGPIPE, &old, NULL);
  int end, eblock, eline = 0;
  char msg[1024] = "";
  const int done = parse_reply(&r, n, out, outlen, &end, &eblock, &eline, msg, sizeof msg);
  const int ok = end && done == n && !r.timed_out && !r.too_long;
  if (!ok) {
    explain(py, path, b, n, &r, done, status, msg, eblock, eline, err, errlen);
    for (int k = 0; k < done; ++k)
      free(out[k]);
  }
  free(r.buf);
  return ok ? 0 : -1;
}

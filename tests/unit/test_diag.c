/* test_diag.c - the GCC-style diagnostic printer. Expected texts are
 * written out by hand from gcc 12's layout. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "airc.h"

typedef struct Capture {
  char *buf;
  size_t len;
  Diag d;
} Capture;

static void cap_open(Capture *c, const char *text) {
  memset(c, 0, sizeof *c);
  c->d.path = "q.airq";
  c->d.text = text;
  c->d.text_len = strlen(text);
  c->d.out = open_memstream(&c->buf, &c->len);
}

/* Closes the stream; the caller frees c->buf. */
static const char *cap_close(Capture *c) {
  fclose(c->d.out);
  return c->buf;
}

static SrcLoc at(int line, int col, int len) {
  SrcLoc l = {line, col, len};
  return l;
}

static void test_diag_error_caret(void **state) {
  (void)state;
  Capture c;
  cap_open(&c, "SELECT a\nWHERE event_typ = 'view'\n");
  diag_error(&c.d, at(2, 7, 9), "unknown column '%s' in stream '%s'", "event_typ", "ad_events");
  assert_int_equal(c.d.nerrors, 1);
  assert_string_equal(cap_close(&c),
                      "q.airq:2:7: error: unknown column 'event_typ' in stream 'ad_events'\n"
                      "    2 | WHERE event_typ = 'view'\n"
                      "      |       ^~~~~~~~~\n");
  free(c.buf);
}

static void test_diag_warning_and_note(void **state) {
  (void)state;
  Capture c;
  cap_open(&c, "abc");
  diag_warning(&c.d, at(1, 1, 1), "w");
  diag_note(&c.d, at(1, 3, 1), "n");
  assert_int_equal(c.d.nerrors, 0);
  assert_int_equal(c.d.nwarnings, 1);
  assert_string_equal(cap_close(&c),
                      "q.airq:1:1: warning: w\n"
                      "    1 | abc\n"
                      "      | ^\n"
                      "q.airq:1:3: note: n\n"
                      "    1 | abc\n"
                      "      |   ^\n");
  free(c.buf);
}

static void test_diag_tab_kept(void **state) {
  (void)state;
  Capture c;
  cap_open(&c, "\tx = 1");
  diag_error(&c.d, at(1, 2, 1), "e");
  assert_string_equal(cap_close(&c),
                      "q.airq:1:2: error: e\n"
                      "    1 | \tx = 1\n"
                      "      | \t^\n");
  free(c.buf);
}

static void test_diag_control_chars_escaped(void **state) {
  (void)state;
  Capture c;
  cap_open(&c, "a\x01" "b c");
  diag_error(&c.d, at(1, 5, 1), "bad '%s' and '%c'", "x\x1b[31m", 0);
  /* \x01 takes four columns, so the caret under 'c' moves right by three */
  assert_string_equal(cap_close(&c),
                      "q.airq:1:5: error: bad 'x\\x1b[31m' and '\\x00'\n"
                      "    1 | a\\x01b c\n"
                      "      |        ^\n");
  free(c.buf);
}

static void test_diag_caret_past_end_of_line(void **state) {
  (void)state;
  Capture c;
  cap_open(&c, "SELECT a\n");
  diag_error(&c.d, at(1, 9, 1), "missing");
  assert_string_equal(cap_close(&c),
                      "q.airq:1:9: error: missing\n"
                      "    1 | SELECT a\n"
                      "      |         ^\n");
  free(c.buf);
}

static void test_diag_crlf_line(void **state) {
  (void)state;
  Capture c;
  cap_open(&c, "ab\r\ncd\r\n");
  diag_error(&c.d, at(2, 1, 2), "e");
  assert_string_equal(cap_close(&c),
                      "q.airq:2:1: error: e\n"
                      "    2 | cd\n"
                      "      | ^~\n");
  free(c.buf);
}

static void test_diag_wide_gutter(void **state) {
  (void)state;
  /* line 123456: the gutter grows past five columns */
  size_t n = 123455;
  char *text = malloc(n + 4);
  memset(text, '\n', n);
  memcpy(text + n, "xy", 3);
  Capture c;
  cap_open(&c, text);
  diag_error(&c.d, at(123456, 2, 1), "e");
  assert_string_equal(cap_close(&c),
                      "q.airq:123456:2: error: e\n"
                      "123456 | xy\n"
                      "       |  ^\n");
  free(c.buf);
  free(text);
}

static void test_diag_no_location(void **state) {
  (void)state;
  Capture c;
  cap_open(&c, "x");
  diag_error(&c.d, at(0, 0, 0), "whole file");
  diag_fatal_noloc(&c.d, "cannot open '%s'", "f.airq");
  assert_int_equal(c.d.nerrors, 2);
  assert_string_equal(cap_close(&c),
                      "q.airq: error: whole file\n"
                      "airc: error: cannot open 'f.airq'\n");
  free(c.buf);
}

static void test_diag_line_beyond_text(void **state) {
  (void)state;
  Capture c;
  cap_open(&c, "a\n");
  diag_error(&c.d, at(5, 1, 1), "e");
  assert_string_equal(cap_close(&c), "q.airq:5:1: error: e\n");
  free(c.buf);
}

static void test_diag_long_line_cut(void **state) {
  (void)state;
  /* 1000 'a', then "bad", then 1000 'b': only a window around the caret */
  char *text = malloc(2004);
  memset(text, 'a', 1000);
  memcpy(text + 1000, "bad", 3);
  memset(text + 1003, 'b', 1000);
  text[2003] = '\0';
  Capture c;
  cap_open(&c, text);
  diag_error(&c.d, at(1, 1001, 3), "e");
  const char *out = cap_close(&c);
  /* 60 bytes before the caret, 200 in all, "..." on both sides */
  char want[1024];
  int n = snprintf(want, sizeof want, "q.airq:1:1001: error: e\n    1 | ...");
  memset(want + n, 'a', 60);
  n += 60;
  n += snprintf(want + n, sizeof want - n, "bad");
  memset(want + n, 'b', 137);
  n += 137;
  n += snprintf(want + n, sizeof want - n, "...\n      |    ");
  memset(want + n, ' ', 60);
  n += 60;
  snprintf(want + n, sizeof want - n, "^~~\n");
  assert_string_equal(out, want);
  free(c.buf);
  free(text);
}

static void test_diag_long_message(void **state) {
  (void)state;
  char big[2000];
  memset(big, 'm', sizeof big - 1);
  big[sizeof big - 1] = '\0';
  Capture c;
  cap_open(&c, "");
  diag_error(&c.d, at(0, 0, 0), "%s", big);
  const char *out = cap_close(&c);
  assert_int_equal(strlen(out), strlen("q.airq: error: ") + 1999 + 1);
  free(c.buf);
}

/* Distances worked out by hand: a swap of neighbours is one edit, case is
 * free, insertions and deletions one each. */
static void test_diag_edit_distance(void **state) {
  (void)state;
  assert_int_equal(diag_edit_distance("GROUP", "GROUP"), 0);
  assert_int_equal(diag_edit_distance("GROPU", "GROUP"), 1);     /* swap U,P */
  assert_int_equal(diag_edit_distance("FORM", "FROM"), 1);       /* swap O,R */
  assert_int_equal(diag_edit_distance("select", "SELECT"), 0);   /* case only */
  assert_int_equal(diag_edit_distance("SELEC", "SELECT"), 1);    /* one insertion */
  assert_int_equal(diag_edit_distance("TUMBLNG", "TUMBLING"), 1);
  assert_int_equal(diag_edit_distance("csvv", "csv"), 1);        /* one deletion */
  assert_int_equal(diag_edit_distance("kitten", "sitting"), 3);  /* k->s, e->i, +g */
  assert_int_equal(diag_edit_distance("", "abc"), 3);
  assert_int_equal(diag_edit_distance("abc", ""), 3);
  assert_int_equal(diag_edit_distance("ca", "abc"), 3);          /* no swap then insert */
  char big[80];
  memset(big, 'a', sizeof big - 1);
  big[sizeof big - 1] = '\0';
  assert_true(diag_edit_distance(big, "a") > 1000);
}

static void test_diag_suggest_closest(void **state) {
  (void)state;
  static const char *const cols[] = {"user_id", "ad_id", "event_type", "ts"};
  assert_string_equal(diag_suggest("event_typ", cols, 4), "event_type");
  assert_string_equal(diag_suggest("EVENT_TYPE", cols, 4), "event_type");
  assert_string_equal(diag_suggest("ad_di", cols, 4), "ad_id");
  /* the nearer candidate wins even when it comes later */
  static const char *const two[] = {"abxxef", "abcdeg"};
  assert_string_equal(diag_suggest("abcdef", two, 2), "abcdeg");
  /* ties go to the first */
  static const char *const units[] = {"SECOND", "SECONDS"};
  assert_string_equal(diag_suggest("SECONS", units, 2), "SECOND");
}

static void test_diag_suggest_nothing_close(void **state) {
  (void)state;
  static const char *const rels[] = {"trips", NULL, ""};
  assert_null(diag_suggest("taxis", rels, 3));   /* 3 edits */
  assert_null(diag_suggest("trips", rels, 3));   /* the word itself is no suggestion */
  assert_null(diag_suggest("x", rels, 0));
  assert_null(diag_suggest(NULL, rels, 3));
  assert_null(diag_suggest("x", NULL, 3));
  /* limits by length: 0 edits for 1 byte, 1 up to 5 bytes, 2 beyond */
  static const char *const one[] = {"y", "X"};
  assert_string_equal(diag_suggest("x", one, 2), "X");
  static const char *const v[] = {"v"};
  assert_string_equal(diag_suggest("vv", v, 1), "v");
  static const char *const s[] = {"s"};
  assert_null(diag_suggest("sss", s, 1));
  static const char *const five[] = {"abxye"};
  assert_null(diag_suggest("abcde", five, 1));
  static const char *const six[] = {"abxyef"};
  assert_string_equal(diag_suggest("abcdef", six, 1), "abxyef");
  static const char *const seven[] = {"abxyzfg"};
  assert_null(diag_suggest("abcdefg", seven, 1));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_diag_error_caret),
      cmocka_unit_test(test_diag_warning_and_note),
      cmocka_unit_test(test_diag_tab_kept),
      cmocka_unit_test(test_diag_control_chars_escaped),
      cmocka_unit_test(test_diag_caret_past_end_of_line),
      cmocka_unit_test(test_diag_crlf_line),
      cmocka_unit_test(test_diag_wide_gutter),
      cmocka_unit_test(test_diag_no_location),
      cmocka_unit_test(test_diag_line_beyond_text),
      cmocka_unit_test(test_diag_long_line_cut),
      cmocka_unit_test(test_diag_long_message),
      cmocka_unit_test(test_diag_edit_distance),
      cmocka_unit_test(test_diag_suggest_closest),
      cmocka_unit_test(test_diag_suggest_nothing_close),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

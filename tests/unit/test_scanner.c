/* test_scanner.c - the flex scanner alone: tokens, values, locations and
 * lexical errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "airc.h"
#include "airq.tab.h"
#include "lex.airq.h"

enum { MAXTOK = 64 };

typedef struct Scan {
  int tok[MAXTOK];        /* token kinds, ending with TOK_YYEOF */
  const char *str[MAXTOK];/* their string values (or NULL) */
  AirqLoc loc[MAXTOK];    /* their locations */
  int n;
  char *err;              /* diagnostics printed */
  size_t errlen;
  int nerrors;
  Arena *arena;
} Scan;

/* Scans len bytes of src to the end (or MAXTOK tokens). */
static void scan_n(Scan *s, const char *src, size_t len) {
  memset(s, 0, sizeof *s);
  s->arena = arena_new();
  Diag d = {0};
  d.path = "q.airq";
  d.text = src;
  d.text_len = len;
  d.out = open_memstream(&s->err, &s->errlen);
  ParseState ps = {0};
  ps.arena = s->arena;
  ps.d = &d;
  ps.tail = &ps.head;
  ps.line = ps.col = 1;
  yyscan_t sc;
  assert_int_equal(airqlex_init_extra(&ps, &sc), 0);
  YY_BUFFER_STATE b = airq_scan_bytes(src, (int)len, sc);
  while (s->n < MAXTOK) {
    AIRQSTYPE v = {0};
    AirqLoc l = {0};
    int t = airqlex(&v, &l, sc);
    s->tok[s->n] = t;
    s->str[s->n] = t >= TOK_IDENT && t <= TOK_VARCHAR ? v.str : NULL;
    s->loc[s->n] = l;
    s->n++;
    if (t == TOK_YYEOF)
      break;
  }
  airq_delete_buffer(b, sc);
  airqlex_destroy(sc);
  fclose(d.out);
  s->nerrors = d.nerrors;
}

static void scan(Scan *s, const char *src) {
  scan_n(s, src, strlen(src));
}

static void scan_free(Scan *s) {
  free(s->err);
  arena_free(s->arena);
}

static void test_scanner_keywords_case_insensitive(void **state) {
  (void)state;
  Scan s;
  scan(&s, "select SeLeCt SELECT from Window_End");
  int want[] = {TOK_SELECT, TOK_SELECT, TOK_SELECT, TOK_FROM, TOK_WINDOW_END, TOK_YYEOF};
  assert_int_equal(s.n, 6);
  for (int i = 0; i < 6; i++)
    assert_int_equal(s.tok[i], want[i]);
  /* the keyword keeps its spelling, for use as a name */
  assert_string_equal(s.str[1], "SeLeCt");
  scan_free(&s);
}

static void test_scanner_identifiers_case_sensitive(void **state) {
  (void)state;
  Scan s;
  scan(&s, "Foo foo _x1 \"my col\" \"a\"\"b\"");
  assert_int_equal(s.n, 6);
  const char *want[] = {"Foo", "foo", "_x1", "my col", "a\"b"};
  for (int i = 0; i < 5; i++) {
    assert_int_equal(s.tok[i], TOK_IDENT);
    assert_string_equal(s.str[i], want[i]);
  }
  scan_free(&s);
}

static void test_scanner_nonreserved_words(void **state) {
  (void)state;
  Scan s;
  scan(&s, "size Seconds HOUR millisecond varchar bigint key sink table tumbling");
  int want[] = {TOK_SIZE, TOK_UNIT, TOK_UNIT, TOK_UNIT, TOK_VARCHAR,
                TOK_TYPENAME, TOK_KEY, TOK_SINK, TOK_TABLE, TOK_TUMBLING};
  for (int i = 0; i < 10; i++)
    assert_int_equal(s.tok[i], want[i]);
  /* option names are not keywords at all, but for limit (LIMIT n), which
   * the grammar takes as an option name too */
  scan_free(&s);
  scan(&s, "source path rate seed header asc desc limit");
  for (int i = 0; i < 5; i++)
    assert_int_equal(s.tok[i], TOK_IDENT);
  assert_int_equal(s.tok[5], TOK_ASC);
  assert_int_equal(s.tok[6], TOK_DESC);
  assert_int_equal(s.tok[7], TOK_LIMIT);
  scan_free(&s);
  scan(&s, "nulls First LAST");
  assert_int_equal(s.tok[0], TOK_NULLS);
  assert_int_equal(s.tok[1], TOK_FIRST);
  assert_int_equal(s.tok[2], TOK_LAST);
  scan_free(&s);
}

static void test_scanner_numbers(void **state) {
  (void)state;
  Scan s;
  scan(&s, "42 3.5 .5 1e3 7. 2E-2 007");
  int want[] = {TOK_INTEGER, TOK_DECIMAL, TOK_DECIMAL, TOK_DECIMAL,
                TOK_DECIMAL, TOK_DECIMAL, TOK_INTEGER, TOK_YYEOF};
  const char *text[] = {"42", "3.5", ".5", "1e3", "7.", "2E-2", "007"};
  for (int i = 0; i < 8; i++)
    assert_int_equal(s.tok[i], want[i]);
  for (int i = 0; i < 7; i++)
    assert_string_equal(s.str[i], text[i]);
  scan_free(&s);
}

static void test_scanner_strings(void **state) {
  (void)state;
  Scan s;
  scan(&s, "'it''s' '' 'a\"b'");
  assert_int_equal(s.tok[0], TOK_STRING);
  assert_string_equal(s.str[0], "it's");
  assert_int_equal(s.tok[1], TOK_STRING);
  assert_string_equal(s.str[1], "");
  assert_string_equal(s.str[2], "a\"b");
  assert_int_equal(s.nerrors, 0);
  scan_free(&s);
}

static void test_scanner_operators(void **state) {
  (void)state;
  Scan s;
  scan(&s, "<> != <= >= < > = ; ( ) , . * / % + -");
  int want[] = {TOK_NE, TOK_NE, TOK_LE, TOK_GE, '<', '>', '=', ';', '(', ')',
                ',', '.', '*', '/', '%', '+', '-', TOK_YYEOF};
  assert_int_equal(s.n, 18);
  for (int i = 0; i < 18; i++)
    assert_int_equal(s.tok[i], want[i]);
  scan_free(&s);
}

static void test_scanner_locations(void **state) {
  (void)state;
  Scan s;
  scan(&s, "SELECT\n  ab,\tc");
  /* SELECT: 1:1, 6 bytes */
  assert_int_equal(s.loc[0].first_line, 1);
  assert_int_equal(s.loc[0].first_column, 1);
  assert_int_equal(s.loc[0].first_len, 6);
  assert_int_equal(s.loc[0].first_off, 0);
  assert_int_equal(s.loc[0].last_off, 6);
  /* ab: 2:3, bytes 9..11 */
  assert_int_equal(s.loc[1].first_line, 2);
  assert_int_equal(s.loc[1].first_column, 3);
  assert_int_equal(s.loc[1].first_len, 2);
  assert_int_equal(s.loc[1].first_off, 9);
  assert_int_equal(s.loc[1].last_column, 5);
  /* c after ",\t": column 7 (a tab is one byte) */
  assert_int_equal(s.loc[3].first_line, 2);
  assert_int_equal(s.loc[3].first_column, 7);
  scan_free(&s);
}

static void test_scanner_comments_skipped(void **state) {
  (void)state;
  Scan s;
  scan(&s, "-- one\n/* two\n three */ a -- four");
  assert_int_equal(s.n, 2);
  assert_int_equal(s.tok[0], TOK_IDENT);
  assert_int_equal(s.loc[0].first_line, 3);
  assert_int_equal(s.loc[0].first_column, 11);
  assert_int_equal(s.nerrors, 0);
  scan_free(&s);
}

static void test_scanner_eof_after_last_token(void **state) {
  (void)state;
  Scan s;
  scan(&s, "FROM s  \n-- trailing\n\n");
  assert_int_equal(s.tok[2], TOK_YYEOF);
  assert_int_equal(s.loc[2].first_line, 1);
  assert_int_equal(s.loc[2].first_column, 7);
  scan_free(&s);
  scan(&s, "");
  assert_int_equal(s.n, 1);
  assert_int_equal(s.loc[0].first_line, 1);
  assert_int_equal(s.loc[0].first_column, 1);
  scan_free(&s);
}

static void test_scanner_unterminated_string(void **state) {
  (void)state;
  Scan s;
  scan(&s, "a 'bc\nd");
  assert_int_equal(s.tok[0], TOK_IDENT);
  assert_int_equal(s.tok[1], TOK_AIRQerror);
  assert_int_equal(s.tok[2], TOK_IDENT); /* scanning goes on at the next line */
  assert_int_equal(s.nerrors, 1);
  assert_string_equal(s.err, "q.airq:1:3: error: unterminated string literal\n"
                             "    1 | a 'bc\n"
                             "      |   ^~~\n");
  scan_free(&s);
}

static void test_scanner_escaped_quote_not_closing(void **state) {
  (void)state;
  Scan s;
  /* '' inside a string is a quote, so this string never closes */
  scan(&s, "'ab'' x");
  assert_int_equal(s.tok[0], TOK_AIRQerror);
  assert_int_equal(s.nerrors, 1);
  scan_free(&s);
}

static void test_scanner_unterminated_comment(void **state) {
  (void)state;
  Scan s;
  scan(&s, "a\n  /* never\nends");
  assert_int_equal(s.tok[0], TOK_IDENT);
  assert_int_equal(s.tok[1], TOK_AIRQerror);
  assert_int_equal(s.tok[2], TOK_YYEOF);
  assert_int_equal(s.nerrors, 1);
  assert_string_equal(s.err, "q.airq:2:3: error: unterminated comment\n"
                             "    2 |   /* never\n"
                             "      |   ^~\n");
  scan_free(&s);
}

static void test_scanner_bad_characters(void **state) {
  (void)state;
  Scan s;
  scan(&s, "a #$ b ! c");
  /* one error for the run "#$", one for "!" */
  int want[] = {TOK_IDENT, TOK_AIRQerror, TOK_IDENT, TOK_AIRQerror, TOK_IDENT, TOK_YYEOF};
  for (int i = 0; i < 6; i++)
    assert_int_equal(s.tok[i], want[i]);
  assert_int_equal(s.nerrors, 2);
  assert_non_null(strstr(s.err, "q.airq:1:3: error: invalid character '#'\n"
                                "    1 | a #$ b ! c\n"
                                "      |   ^~\n"));
  scan_free(&s);
}

static void test_scanner_nul_byte(void **state) {
  (void)state;
  Scan s;
  scan_n(&s, "a\0b", 3);
  int want[] = {TOK_IDENT, TOK_AIRQerror, TOK_IDENT, TOK_YYEOF};
  for (int i = 0; i < 4; i++)
    assert_int_equal(s.tok[i], want[i]);
  assert_int_equal(s.nerrors, 1);
  assert_string_equal(s.err, "q.airq:1:2: error: invalid character '\\x00' (NUL byte)\n"
                             "    1 | a\\x00b\n"
                             "      |  ^~~~\n");
  scan_free(&s);
}

static void test_scanner_utf8_character_whole(void **state) {
  (void)state;
  Scan s;
  scan(&s, "x \xc3\xa9 y");
  assert_int_equal(s.tok[1], TOK_AIRQerror);
  assert_int_equal(s.nerrors, 1);
  assert_non_null(strstr(s.err, "invalid character '\xc3\xa9'"));
  scan_free(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_scanner_keywords_case_insensitive),
      cmocka_unit_test(test_scanner_identifiers_case_sensitive),
      cmocka_unit_test(test_scanner_nonreserved_words),
      cmocka_unit_test(test_scanner_numbers),
      cmocka_unit_test(test_scanner_strings),
      cmocka_unit_test(test_scanner_operators),
      cmocka_unit_test(test_scanner_locations),
      cmocka_unit_test(test_scanner_comments_skipped),
      cmocka_unit_test(test_scanner_eof_after_last_token),
      cmocka_unit_test(test_scanner_unterminated_string),
      cmocka_unit_test(test_scanner_escaped_quote_not_closing),
      cmocka_unit_test(test_scanner_unterminated_comment),
      cmocka_unit_test(test_scanner_bad_characters),
      cmocka_unit_test(test_scanner_nul_byte),
      cmocka_unit_test(test_scanner_utf8_character_whole),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
** pqweb.h -- the playground's calls (web/pqweb.c): a database with the
** extension built in, SQL in, JSON out.
*/
#ifndef PQWEB_H
#define PQWEB_H

/* pqweb_exec's flags: go on after a statement fails, as the shell does. */
#define PQWEB_CONTINUE 1

int pqweb_open(void);
const char *pqweb_exec(const char *sql, int max_rows, int flags);
const char *pqweb_version(void);

#endif

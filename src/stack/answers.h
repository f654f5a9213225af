/* Answers of programs that depend on nothing but the program file and the
 * question (its --version line; a mkfs dry run that accepted its words at a
 * size), kept for this boot so that each run does not ask again: under
 * emulation a process start costs 1-5 s, and the VM tier's failure and kill
 * loops start stackbench a hundred times (answers.c). */
#pragma once

#include <stddef.h>

/* The key of prog's answer to the question words[0..n): NULL when prog is
 * not found on PATH (malloc'ed). The key names the file by its real path,
 * inode, size, mtime and ctime: an upgraded or replaced program asks anew. */
char *sb_answer_key(const char *prog, const char *const *words, size_t n);
/* The answer kept under key, or NULL (malloc'ed; at most 4 KiB). */
char *sb_answer_get(const char *key);
/* Keeps answer under key (best effort: nothing kept where the directory
 * cannot be made, as for a user other than root). */
void sb_answer_put(const char *key, const char *answer);

/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Resident memory that start-up leaves behind and steady work does not use. */
#ifndef RDMANET_MEM_TRIM_H
#define RDMANET_MEM_TRIM_H

#include <stddef.h>

/* malloc_trim, then MADV_DONTNEED over the read-only segments (text,
 * rodata, symbol and relocation tables) of every loaded object: clean
 * pages of their files, which only leave this process's page tables (the
 * page cache keeps them) and come back, as minor faults, when touched
 * again. Writable segments, RELRO and objects with text relocations are
 * never touched. Returns the bytes of address range advised. */
size_t rn_mem_trim(void);

#endif

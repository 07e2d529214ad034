// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <elf.h>
#include <link.h>
#include <malloc.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mem_trim.h"

struct range {
	uintptr_t lo, hi;
};

static bool has_textrel(const struct dl_phdr_info *info)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *p = &info->dlpi_phdr[i];

		if (p->p_type != PT_DYNAMIC)
			continue;
		for (const ElfW(Dyn) *d = (const ElfW(Dyn) *)(info->dlpi_addr + p->p_vaddr);
		     d->d_tag != DT_NULL; d++)
			if (d->d_tag == DT_TEXTREL ||
			    (d->d_tag == DT_FLAGS && (d->d_un.d_val & DF_TEXTREL)))
				return true;
	}
	return false;
}

static int trim_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	const uintptr_t vdso = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
	struct range rw[16];
	size_t *advised = arg;
	int n_rw = 0;

	(void)size;
	if (!info->dlpi_phnum || has_textrel(info))
		return 0;
	/* what must never be dropped: writable segments (data, GOT) and RELRO
	 * (written by the relocations, then made read-only), page-rounded out */
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *p = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + p->p_vaddr;

		if (p->p_type == PT_LOAD && (p->p_flags & PF_W)) {
			;
		} else if (p->p_type != PT_GNU_RELRO) {
			continue;
		}
		if (n_rw == (int)(sizeof(rw) / sizeof(rw[0])))
			return 0;	/* an odd object: leave it alone */
		rw[n_rw].lo = lo & ~(page - 1);
		rw[n_rw++].hi = (lo + p->p_memsz + page - 1) & ~(page - 1);
	}
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *p = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + p->p_vaddr, hi = lo + p->p_filesz;

		if (p->p_type != PT_LOAD || (p->p_flags & PF_W))
			continue;
		if (vdso && lo <= vdso && vdso < hi)
			return 0;	/* the vDSO is not a file mapping */
		/* whole pages of the segment only, none shared with a writable one */
		lo = (lo + page - 1) & ~(page - 1);
		hi &= ~(page - 1);
		for (int j = 0; j < n_rw; j++) {
			if (rw[j].hi <= lo || rw[j].lo >= hi)
				continue;
			if (rw[j].lo <= lo)
				lo = rw[j].hi;
			else
				hi = rw[j].lo;
		}
		if (lo < hi && !madvise((void *)lo, hi - lo, MADV_DONTNEED))
			*advised += hi - lo;
	}
	return 0;
}

size_t rn_mem_trim(void)
{
	size_t advised = 0;

	malloc_trim(0);
	dl_iterate_phdr(trim_object, &advised);
	return advised;
}

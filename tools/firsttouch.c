/*
 * firsttouch: what reading files through a memory map costs on this
 * machine, against reading them with pread(2), in CPU time of the
 * process (docs/performance.md, "How verify gets there").
 *
 *   cc -O2 -msse4.2 -o /tmp/firsttouch tools/firsttouch.c
 *   /tmp/firsttouch /tmp/benchdb/ *.ldb      (the path without the space)
 *   /tmp/firsttouch -pages /tmp/benchdb/ *.ldb
 *   /tmp/firsttouch -cache huge /tmp/benchdb/ *.ldb   (or -cache small)
 *
 * For each file, five times over: map it read-only and shared, populate
 * the map (MADV_POPULATE_READ, Linux 5.14 and later) so that no read
 * takes a page fault, checksum it twice with SSE4.2's crc32 (the first
 * pass reads every page through the new mapping for the first time, the
 * second reads it again), unmap it; then read it with pread(2), 64 KiB at
 * a time into one buffer used again, checksumming each piece. Prints the
 * time of each step per pass over all the files. x86-64 only.
 *
 * With -pages first, it measures instead what the first read of each
 * page costs, over maps populated the same way, three ways: one load
 * per page in order; one load per page with each load's address taken
 * from the byte the one before read (so that no two overlap); and one
 * load per eighth page only. Printed in ns per page loaded.
 *
 * With -cache first, each file is dropped from the page cache (fdatasync,
 * then posix_fadvise POSIX_FADV_DONTNEED) before the passes and read back
 * in: with "small", by read(2), which leaves it in the pages readahead
 * picks; with "huge", through a map advised MADV_HUGEPAGE, which leaves it
 * in 2 MB pages where the kernel and the file system allow (what
 * `ldbcompat verify` does with a table not in the page cache). It prints
 * how much of the files the last pass's maps mapped with 2 MB entries
 * (FilePmdMapped of /proc/self/smaps_rollup, Linux 4.14 and later).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <nmmintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif

enum { passes = 5, chunk = 64 << 10 };

static double cpu_seconds(void) {
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static uint64_t checksum(const unsigned char *p, size_t n, uint64_t c) {
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t w;
		__builtin_memcpy(&w, p + i, 8);
		c = _mm_crc32_u64(c, w);
	}
	for (; i < n; i++)
		c = _mm_crc32_u8((uint32_t)c, p[i]);
	return c;
}

/*
 * map_file opens path and maps the whole file read-only and shared,
 * setting *fd and *n; on failure it says why and returns NULL.
 */
static unsigned char *map_file(const char *path, int *fd, size_t *n) {
	struct stat st;
	*fd = open(path, O_RDONLY);
	if (*fd < 0 || fstat(*fd, &st) != 0 || st.st_size == 0) {
		perror(path);
		return NULL;
	}
	*n = (size_t)st.st_size;
	unsigned char *m = mmap(NULL, *n, PROT_READ, MAP_SHARED, *fd, 0);
	if (m == MAP_FAILED) {
		perror("mmap");
		return NULL;
	}
	return m;
}

/*
 * recache drops path from the page cache and reads it back in, by read(2)
 * or, if huge, through a map advised MADV_HUGEPAGE (see the top of the
 * file); on failure it says why and returns -1.
 */
static int recache(const char *path, int huge) {
	static unsigned char buf[chunk];
	int fd;
	size_t n;
	unsigned char *m = map_file(path, &fd, &n);
	if (m == NULL)
		return -1;
	munmap(m, n);
	if (fdatasync(fd) != 0 || posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) != 0) {
		perror(path);
		return -1;
	}
	volatile unsigned char sink = 0;
	if (huge) {
		m = mmap(NULL, n, PROT_READ, MAP_SHARED, fd, 0);
		if (m == MAP_FAILED || madvise(m, n, MADV_HUGEPAGE) != 0) {
			perror("mmap, madvise(MADV_HUGEPAGE)");
			return -1;
		}
		for (size_t i = 0; i < n; i += 4096)
			sink += m[i];
		munmap(m, n);
	} else {
		for (off_t off = 0; off < (off_t)n;) {
			ssize_t r = pread(fd, buf, chunk, off);
			if (r <= 0) {
				perror("pread");
				return -1;
			}
			off += r;
		}
	}
	close(fd);
	return 0;
}

/* file_pmd_mapped returns FilePmdMapped of /proc/self/smaps_rollup in kB, or -1. */
static long file_pmd_mapped(void) {
	FILE *f = fopen("/proc/self/smaps_rollup", "r");
	char line[256];
	long kb = -1;
	if (f == NULL)
		return -1;
	while (fgets(line, sizeof line, f) != NULL)
		if (sscanf(line, "FilePmdMapped: %ld", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* pages: the -pages measurement (see the top of the file). */
static int pages(int argc, char **argv) {
	static const char *const names[] = {"every page, in order", "every page, each load after the last",
					    "every eighth page"};
	double ns[3] = {0};
	long loaded[3] = {0};
	uint64_t sum = 0;
	for (int pass = 0; pass < passes; pass++) {
		for (int way = 0; way < 3; way++) {
			for (int i = 0; i < argc; i++) {
				int fd;
				size_t n;
				const volatile unsigned char *m = map_file(argv[i], &fd, &n);
				if (m == NULL)
					return 1;
				size_t np = n / 4096;
				if (madvise((void *)m, n, MADV_POPULATE_READ) != 0) {
					perror("madvise(MADV_POPULATE_READ)");
					return 1;
				}
				double t0 = cpu_seconds();
				size_t dep = 0;
				for (size_t p = 0; p < np; p += way == 2 ? 8 : 1) {
					unsigned char v = m[p * 4096 + (way == 1 ? dep & 1 : 0)];
					dep += v;
					sum += v;
					loaded[way]++;
				}
				ns[way] += (cpu_seconds() - t0) * 1e9;
				munmap((void *)m, n);
				close(fd);
			}
		}
	}
	for (int way = 0; way < 3; way++)
		printf("first read of a mapped page, %s: %.0f ns a page\n", names[way], ns[way] / loaded[way]);
	printf("(sum %llx)\n", (unsigned long long)(sum & 0xff));
	return 0;
}

int main(int argc, char **argv) {
	static unsigned char buf[chunk];
	double populate = 0, first = 0, second = 0, unmap = 0, pread_all = 0;
	uint64_t sum = 0;
	int measure_pages = argc > 1 && strcmp(argv[1], "-pages") == 0;
	int cache = -1; /* -1: as it is; 0: small; 1: huge */
	if (argc > 2 && strcmp(argv[1], "-cache") == 0) {
		if (strcmp(argv[2], "small") != 0 && strcmp(argv[2], "huge") != 0) {
			fprintf(stderr, "firsttouch: -cache takes small or huge, not %s\n", argv[2]);
			return 2;
		}
		cache = strcmp(argv[2], "huge") == 0;
		argc -= 2;
		argv += 2;
	}
	if (argc < 2 + measure_pages) {
		fprintf(stderr, "usage: firsttouch [-pages | -cache small|huge] FILE...\n");
		return 2;
	}
	if (measure_pages)
		return pages(argc - 2, argv + 2);
	for (int i = 1; cache >= 0 && i < argc; i++)
		if (recache(argv[i], cache) != 0)
			return 1;
	long pmd = 0;
	for (int pass = 0; pass < passes; pass++) {
		for (int i = 1; i < argc; i++) {
			int fd;
			size_t n;
			unsigned char *m = map_file(argv[i], &fd, &n);
			if (m == NULL)
				return 1;
			double t0 = cpu_seconds();
			if (madvise(m, n, MADV_POPULATE_READ) != 0) {
				perror("madvise(MADV_POPULATE_READ)");
				return 1;
			}
			double t1 = cpu_seconds();
			sum += checksum(m, n, 0);
			double t2 = cpu_seconds();
			if (pass == passes - 1)
				pmd += file_pmd_mapped();
			sum += checksum(m, n, 0);
			double t3 = cpu_seconds();
			munmap(m, n);
			double t4 = cpu_seconds();
			for (off_t off = 0; off < (off_t)n;) {
				ssize_t r = pread(fd, buf, chunk, off);
				if (r <= 0) {
					perror("pread");
					return 1;
				}
				sum += checksum(buf, (size_t)r, 0);
				off += r;
			}
			double t5 = cpu_seconds();
			close(fd);
			populate += t1 - t0;
			first += t2 - t1;
			second += t3 - t2;
			unmap += t4 - t3;
			pread_all += t5 - t4;
		}
	}
	printf("ms per pass over %d files: populate %.2f, first read through the map %.2f, "
	       "second read %.2f, munmap %.2f; pread into a %d KiB buffer %.2f (checksums %llx)\n",
	       argc - 1, populate * 1e3 / passes, first * 1e3 / passes, second * 1e3 / passes,
	       unmap * 1e3 / passes, chunk >> 10, pread_all * 1e3 / passes, (unsigned long long)(sum & 0xff));
	printf("mapped with 2 MB entries in the last pass: %ld kB\n", pmd);
	return 0;
}

/*
 * cpuprobe: two small loads for tools/cpus.py, to tell which kind of work
 * a slow CPU of a virtual machine slows (docs/performance.md, "When one
 * CPU slows").
 *
 *   cc -O2 -o /tmp/cpuprobe tools/cpuprobe.c
 *   /tmp/cpuprobe spin 20000000        arithmetic alone: N dependent
 *                                      multiply-adds, no memory
 *   /tmp/cpuprobe touch FILE...        each file mapped read-only and
 *                                      shared, read a byte every 64, and
 *                                      unmapped: the first touch of its
 *                                      pages, as a reader of tables does
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static int spin(const char *arg) {
	unsigned long n = strtoul(arg, NULL, 10), x = 1;
	for (unsigned long i = 0; i < n; i++) {
		x = x * 6364136223846793005UL + i;
		__asm__ volatile("" : : "r"(x)); /* keeps the loop as written */
	}
	return x == 0; /* uses x */
}

static int touch(int n, char **paths) {
	unsigned long sum = 0;
	for (int i = 0; i < n; i++) {
		int fd = open(paths[i], O_RDONLY);
		struct stat st;
		if (fd < 0 || fstat(fd, &st) != 0) {
			perror(paths[i]);
			return 1;
		}
		if (st.st_size == 0) {
			close(fd);
			continue;
		}
		const volatile unsigned char *p = mmap(NULL, st.st_size, PROT_READ, MAP_SHARED, fd, 0);
		if (p == MAP_FAILED) {
			perror(paths[i]);
			close(fd);
			return 1;
		}
		for (off_t off = 0; off < st.st_size; off += 64)
			sum += p[off];
		munmap((void *)p, st.st_size);
		close(fd);
	}
	return sum == 1; /* uses sum */
}

int main(int argc, char **argv) {
	if (argc == 3 && strcmp(argv[1], "spin") == 0)
		return spin(argv[2]);
	if (argc >= 3 && strcmp(argv[1], "touch") == 0)
		return touch(argc - 2, argv + 2);
	fprintf(stderr, "usage: cpuprobe spin N | cpuprobe touch FILE...\n");
	return 2;
}

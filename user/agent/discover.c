// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "discover.h"

static int read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -errno;
	if (!fgets(buf, (int)size, f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	n = strlen(buf);
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

static int add_unique(char names[][RN_IFNAMSIZ], int n, int max, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return n;
	if (n >= max || strlen(name) >= RN_IFNAMSIZ)
		return n;
	snprintf(names[n], RN_IFNAMSIZ, "%s", name);
	return n + 1;
}

int rn_discover_roce_netdevs(const char *sysfs_root, char names[][RN_IFNAMSIZ], int max)
{
	char path[PATH_MAX], val[64];
	struct dirent *dev, *port;
	DIR *devs, *ports;
	int n = 0;

	snprintf(path, sizeof(path), "%s/class/infiniband", sysfs_root);
	devs = opendir(path);
	if (!devs)
		return errno == ENOENT ? 0 : -errno;
	while ((dev = readdir(devs))) {
		if (dev->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports", sysfs_root,
			 dev->d_name);
		ports = opendir(path);
		if (!ports)
			continue;
		while ((port = readdir(ports))) {
			if (port->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports/%s/link_layer",
				 sysfs_root, dev->d_name, port->d_name);
			if (read_line(path, val, sizeof(val)) || strcmp(val, "Ethernet"))
				continue;
			snprintf(path, sizeof(path),
				 "%s/class/infiniband/%s/ports/%s/gid_attrs/ndevs/0",
				 sysfs_root, dev->d_name, port->d_name);
			if (!read_line(path, val, sizeof(val)) && val[0])
				n = add_unique(names, n, max, val);
		}
		closedir(ports);
	}
	closedir(devs);
	return n;
}

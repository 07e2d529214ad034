// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The pods' network data for their DRA claims: the CNI's attachment
 * record (dra.h rn_dra_attachment) written, read back, listed and removed,
 * bad records refused naming the field, and the claim-status writer's
 * apply body (claim_status.h): this driver's devices of the claim only,
 * the first attached pod of a shared device. End to end with the CNI and
 * the API-server stand-in: selftests/dra/test_dra_network_status.sh. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "dra/claim_status.h"
#include "dra/dra.h"

#define GOOD "{\"network\": \"dranet\", \"container_id\": \"c1\", \"ifname\": \"net1\", " \
	"\"pod_uid\": \"p1\", \"claim\": {\"namespace\": \"default\", \"name\": \"nic\", " \
	"\"uid\": \"u1\"}, \"driver\": \"rdma.rdmanet.io\", \"pool\": \"node-a\", " \
	"\"device\": \"mlx5-0-port1\", \"ips\": [\"10.78.0.10/24\", \"fd00::a/64\"], " \
	"\"mac\": \"02:00:00:00:00:01\", \"attached_ns\": 5}"

static void test_parse_good(void **state)
{
	struct rn_dra_attachment a;
	struct rn_error e = { 0 };

	(void)state;
	assert_int_equal(rn_dra_attachment_parse(GOOD, strlen(GOOD), &a, &e), 0);
	assert_string_equal(a.claim_name, "nic");
	assert_string_equal(a.device, "mlx5-0-port1");
	assert_int_equal(a.n_ips, 2);
	assert_string_equal(a.ips[1], "fd00::a/64");
	assert_int_equal(a.attached_ns, 5);
}

/* GOOD with from replaced by to: refused, the error naming what */
static void refused(const char *from, const char *to, const char *what)
{
	char text[2048];
	const char *at = strstr(GOOD, from);
	struct rn_dra_attachment a;
	struct rn_error e = { 0 };

	assert_non_null(at);
	snprintf(text, sizeof(text), "%.*s%s%s", (int)(at - GOOD), GOOD, to, at + strlen(from));
	assert_int_equal(rn_dra_attachment_parse(text, strlen(text), &a, &e), -EINVAL);
	if (!strstr(e.msg, what))
		fail_msg("%s: \"%s\" does not say \"%s\"", text, e.msg, what);
}

static void test_parse_bad(void **state)
{
	char ips[1024] = "\"ips\": [";

	(void)state;
	refused("\"mac\": \"02:00:00:00:00:01\"", "\"mac\": \"02:00:00:00:00\"", "\"mac\"");
	refused("\"10.78.0.10/24\"", "\"10.78.0.10\"", "\"ips\"[0]");
	refused("\"fd00::a/64\"", "\"10.78.0.10/24\"", "\"ips\"[1]: a duplicate");
	refused("\"attached_ns\": 5", "\"attached_ns\": -1", "attached_ns");
	refused("\"attached_ns\": 5", "\"attached_ns\": 5, \"x\": 1", "\"x\": unknown key");
	refused("\"ifname\": \"net1\"", "\"ifname\": \"net1net1net1net1\"", "\"ifname\"");
	refused("\"uid\": \"u1\"", "\"uid\": \"\"", "\"uid\"");
	refused("\"device\": \"mlx5-0-port1\"", "\"device\": 7", "\"device\"");
	for (int i = 0; i <= RN_DRA_NET_MAX_IPS; i++)
		snprintf(ips + strlen(ips), sizeof(ips) - strlen(ips), "%s\"10.0.0.%d/24\"",
			 i ? ", " : "", i + 1);
	strcat(ips, "]");
	refused("\"ips\": [\"10.78.0.10/24\", \"fd00::a/64\"]", ips, "at most 16");
	refused(GOOD, "[]", "not a JSON object");
}

static struct rn_dra_attachment att(const char *cid, const char *claim_uid, const char *device,
				    const char *driver, long long at)
{
	struct rn_dra_attachment a = { .n_ips = 1, .attached_ns = at };

	snprintf(a.network, sizeof(a.network), "dranet");
	snprintf(a.container_id, sizeof(a.container_id), "%s", cid);
	snprintf(a.ifname, sizeof(a.ifname), "net1");
	snprintf(a.pod_uid, sizeof(a.pod_uid), "pod-%s", cid);
	snprintf(a.claim_namespace, sizeof(a.claim_namespace), "default");
	snprintf(a.claim_name, sizeof(a.claim_name), "claim-%s", claim_uid);
	snprintf(a.claim_uid, sizeof(a.claim_uid), "%s", claim_uid);
	snprintf(a.driver, sizeof(a.driver), "%s", driver);
	snprintf(a.pool, sizeof(a.pool), "node-a");
	snprintf(a.device, sizeof(a.device), "%s", device);
	snprintf(a.ips[0], sizeof(a.ips[0]), "10.78.0.%d/24", (int)at);
	snprintf(a.mac, sizeof(a.mac), "02:00:00:00:00:%02d", (int)at);
	return a;
}

static void test_write_list_remove(void **state)
{
	char dir[] = "/tmp/test_dra_network.XXXXXX", path[256];
	struct rn_dra_attachment a = att("c1", "u1", "mlx5-0-port1", "rdma.rdmanet.io", 3), *l;
	struct rn_error e = { 0 };
	int n;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(rn_dra_attachment_list(dir, &l, &n, &e), 0);	/* no directory yet */
	assert_int_equal(n, 0);
	assert_int_equal(rn_dra_attachment_write(dir, &a, &e), 0);
	a.attached_ns = 4;
	assert_int_equal(rn_dra_attachment_write(dir, &a, &e), 0);	/* replaced, not added */
	snprintf(path, sizeof(path), "%s/networks/junk.json", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("{\"not\": \"a record\"}", f);
	fclose(f);
	assert_int_equal(rn_dra_attachment_list(dir, &l, &n, &e), 0);
	assert_int_equal(n, 1);		/* the junk skipped */
	assert_int_equal(l[0].attached_ns, 4);
	assert_string_equal(l[0].ips[0], "10.78.0.3/24");
	free(l);
	snprintf(a.container_id, sizeof(a.container_id), "c:1");
	assert_int_equal(rn_dra_attachment_write(dir, &a, &e), -EINVAL);
	assert_int_equal(rn_dra_attachment_remove(dir, "dranet", "c1", "net1", &e), 0);
	assert_int_equal(rn_dra_attachment_remove(dir, "dranet", "c1", "net1", &e), 0);
	assert_int_equal(rn_dra_attachment_list(dir, &l, &n, &e), 0);
	assert_int_equal(n, 0);
	free(l);
	unlink(path);
	snprintf(path, sizeof(path), "%s/networks", dir);
	rmdir(path);
	rmdir(dir);
}

static void test_status_body(void **state)
{
	const char *drv = "rdma.rdmanet.io";
	struct rn_dra_attachment a[] = {
		att("c3", "u1", "mlx5-0-port1", drv, 30),	/* shared port: a later pod */
		att("c1", "u1", "mlx5-0-port1", drv, 10),	/* ... the first */
		att("c2", "u1", "vf-0000-3b-00-2", drv, 20),
		att("c4", "u2", "mlx5-1-port1", drv, 5),	/* another claim */
		att("c5", "u1", "gpu-0", "gpu.example.com", 1),	/* another driver */
	};
	json_t *o = dra_claim_status_body(drv, "default", "claim-u1", "u1", a, 5), *devs, *d;
	char *text;

	(void)state;
	assert_non_null(o);
	assert_string_equal(json_string_value(json_object_get(o, "kind")), "ResourceClaim");
	assert_string_equal(json_string_value(json_object_get(json_object_get(o, "metadata"), "uid")),
			    "u1");
	devs = json_object_get(json_object_get(o, "status"), "devices");
	assert_int_equal(json_array_size(devs), 2);
	d = json_array_get(devs, 0);
	text = json_dumps(d, JSON_SORT_KEYS | JSON_COMPACT);
	assert_string_equal(text, "{\"device\":\"mlx5-0-port1\",\"driver\":\"rdma.rdmanet.io\","
			    "\"networkData\":{\"hardwareAddress\":\"02:00:00:00:00:10\","
			    "\"interfaceName\":\"net1\",\"ips\":[\"10.78.0.10/24\"]},"
			    "\"pool\":\"node-a\"}");
	free(text);
	assert_string_equal(json_string_value(json_object_get(json_array_get(devs, 1), "device")),
			    "vf-0000-3b-00-2");
	json_decref(o);
	/* no attachment left: no status at all (the apply that clears ours) */
	o = dra_claim_status_body(drv, "default", "claim-u9", "u9", a, 5);
	assert_null(json_object_get(o, "status"));
	json_decref(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_good),
		cmocka_unit_test(test_parse_bad),
		cmocka_unit_test(test_write_list_remove),
		cmocka_unit_test(test_status_body),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

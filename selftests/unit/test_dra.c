// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The DRA driver's pieces apart from gRPC: the "dra" config section (its
 * defaults, and one clear error for bad input), device names as
 * resource.k8s.io takes them (DNS labels of at most 63), the devices of the
 * cx5_sriov fixture, and ResourceClaim JSON. The kubelet side end to end is
 * selftests/dra/test_dra_kubelet.sh. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "config.h"
#include "dra/dra.h"
#include "rdma/model.h"
#include "selftests/fixtures/fixtures.h"

static int parse(const char *text, struct rn_dra_config *out, struct rn_error *e)
{
	struct rn_config c;
	int rc = rn_config_parse(&c, text, e);

	if (rc)
		return rc;
	rc = rn_dra_config_parse(&c, out, e);
	rn_config_free(&c);
	return rc;
}

static void test_config_defaults(void **state)
{
	struct rn_dra_config d;
	struct rn_error e = { 0 };
	char reg[PATH_MAX + 32], sock[PATH_MAX + 32];

	(void)state;
	assert_int_equal(parse("{\"node\": \"worker-1\"}", &d, &e), 0);
	assert_false(d.enabled);
	assert_int_equal(parse("{\"node\": \"worker-1\", \"dra\": {}}", &d, &e), 0);
	assert_true(d.enabled);
	assert_string_equal(d.driver, "rdma.rdmanet.io");
	assert_string_equal(d.pool, "worker-1");
	assert_string_equal(d.plugin_dir, "/var/lib/kubelet/plugins/rdma.rdmanet.io");
	assert_string_equal(d.registry_dir, "/var/lib/kubelet/plugins_registry");
	assert_string_equal(d.claims_dir, "");		/* claims from the API server */
	assert_string_equal(d.kubeconfig, "");
	assert_string_equal(d.cdi_dir, "/var/run/cdi");
	rn_dra_socket_paths(&d, reg, sizeof(reg), sock, sizeof(sock));
	assert_string_equal(reg, "/var/lib/kubelet/plugins_registry/rdma.rdmanet.io-reg.sock");
	assert_string_equal(sock, "/var/lib/kubelet/plugins/rdma.rdmanet.io/dra.sock");
	assert_int_equal(parse("{\"dra\": {\"enabled\": false, \"kubelet_dir\": \"/k\"}}", &d, &e), 0);
	assert_false(d.enabled);
	assert_string_equal(d.plugin_dir, "/k/plugins/rdma.rdmanet.io");
}

static void refused(const char *text, const char *msg)
{
	struct rn_dra_config d;
	struct rn_error e = { 0 };

	assert_int_not_equal(parse(text, &d, &e), 0);
	if (!strstr(e.msg, msg))
		fail_msg("%s: \"%s\" does not say \"%s\"", text, e.msg, msg);
}

static void test_config_refused(void **state)
{
	char text[512];

	(void)state;
	refused("{\"dra\": {\"driver\": \"RDMA.example.com\"}}", "config: dra.driver:");
	refused("{\"dra\": {\"driver\": \"rdma..example\"}}", "not a DNS subdomain");
	refused("{\"dra\": {\"driver\": \"-rdma.example\"}}", "starts with '-'");
	refused("{\"dra\": {\"driver\": \"rdma_x.example\"}}", "'_'");
	snprintf(text, sizeof(text), "{\"dra\": {\"driver\": \"%064d\"}}", 0);
	refused(text, "dra.driver: longer than 63 characters");
	refused("{\"dra\": {\"claims_dir\": \"claims\"}}", "dra.claims_dir: must be an absolute path");
	refused("{\"dra\": {\"kubeconfig\": \"kc\"}}", "dra.kubeconfig: must be an absolute path");
	refused("{\"dra\": {\"kubeconfig\": 1}}", "dra");
	refused("{\"dra\": {\"socketdir\": \"/x\"}}", "socketdir");
	refused("{\"dra\": {\"enabled\": 1}}", "enabled");
	snprintf(text, sizeof(text), "{\"dra\": {\"plugin_dir\": \"/%0100d\"}}", 0);
	refused(text, "longer than a unix socket path allows");
	refused("{\"dra\": []}", "dra");
}

/* where claims come from, and the one client config claims and slices share */
static void test_config_claim_source(void **state)
{
	struct rn_dra_config d;
	struct rn_error e = { 0 };

	(void)state;
	assert_int_equal(parse("{\"dra\": {\"claims_dir\": \"/c\"}}", &d, &e), 0);
	assert_string_equal(d.claims_dir, "/c");
	/* dra.kubeconfig: claims and slices (published, unless told not to) */
	assert_int_equal(parse("{\"dra\": {\"kubeconfig\": \"/k\"}}", &d, &e), 0);
	assert_string_equal(d.kubeconfig, "/k");
	assert_string_equal(d.slices.kubeconfig, "/k");
	assert_true(d.slices.publish);
	assert_int_equal(parse("{\"dra\": {\"kubeconfig\": \"/k\", \"slices\": {\"publish\": false}}}",
			       &d, &e), 0);
	assert_false(d.slices.publish);
	/* slices.kubeconfig still works, and wins for the slices */
	assert_int_equal(parse("{\"dra\": {\"kubeconfig\": \"/k\", \"slices\": {\"kubeconfig\": \"/s\"}}}",
			       &d, &e), 0);
	assert_string_equal(d.kubeconfig, "/k");
	assert_string_equal(d.slices.kubeconfig, "/s");
	assert_int_equal(parse("{\"dra\": {\"slices\": {\"kubeconfig\": \"/s\"}}}", &d, &e), 0);
	assert_string_equal(d.kubeconfig, "");
	assert_string_equal(d.slices.kubeconfig, "/s");
	assert_true(d.slices.publish);
}

static bool same(const char *a, const char *b)
{
	struct rn_config x, y;
	bool r;

	assert_int_equal(rn_config_parse(&x, a, NULL), 0);
	assert_int_equal(rn_config_parse(&y, b, NULL), 0);
	r = rn_dra_config_same(&x, &y);
	rn_config_free(&x);
	rn_config_free(&y);
	return r;
}

/* a reload that changes where claims or slices go restarts the driver */
static void test_config_same(void **state)
{
	(void)state;
	assert_true(same("{\"dra\": {\"kubeconfig\": \"/k\"}}", "{\"dra\": {\"kubeconfig\": \"/k\"}}"));
	assert_false(same("{\"dra\": {}}", "{\"dra\": {\"kubeconfig\": \"/k\"}}"));
	assert_false(same("{\"dra\": {}}", "{\"dra\": {\"claims_dir\": \"/c\"}}"));
	assert_false(same("{\"dra\": {\"slices\": {\"kubeconfig\": \"/a\"}}}",
			  "{\"dra\": {\"slices\": {\"kubeconfig\": \"/b\"}}}"));
	assert_false(same("{\"dra\": {\"slices\": {\"publish\": true}}}",
			  "{\"dra\": {\"slices\": {\"publish\": false}}}"));
	assert_false(same("{\"dra\": {\"slices\": {\"resync_s\": 5}}}", "{\"dra\": {}}"));
	assert_false(same("{\"dra\": {\"slices\": {\"shared_pods\": 5}}}", "{\"dra\": {}}"));
}

static void test_names(void **state)
{
	struct rn_dra_device d = { .kind = RN_DRA_HCA_PORT, .port = 1 };
	char name[RN_DRA_NAME_LEN];

	(void)state;
	snprintf(d.rdma_dev, sizeof(d.rdma_dev), "mlx5_0");
	rn_dra_device_name(&d, name, sizeof(name));
	assert_string_equal(name, "mlx5-0-port1");
	snprintf(d.rdma_dev, sizeof(d.rdma_dev), "RXE.Eth0_");
	rn_dra_device_name(&d, name, sizeof(name));
	assert_string_equal(name, "rxe-eth0--port1");
	/* a 63-character device name: the end kept, a label of 63 */
	memset(d.rdma_dev, 'a', 63);
	d.rdma_dev[63] = '\0';
	rn_dra_device_name(&d, name, sizeof(name));
	assert_int_equal(strlen(name), 63);
	assert_string_equal(name + 57, "-port1");
	d.kind = RN_DRA_VF;
	snprintf(d.pci, sizeof(d.pci), "0000:3b:00.2");
	rn_dra_device_name(&d, name, sizeof(name));
	assert_string_equal(name, "vf-0000-3b-00-2");
}

static void test_fixture_devices(void **state)
{
	char dir[] = "/tmp/rn-dra-XXXXXX", sys[64];
	struct rn_rdma_model m = { 0 };
	struct rn_rdma_roots roots;
	struct rn_dra_device *v;
	struct rn_error e = { 0 };
	int n, vfs = 0, ports = 0;

	(void)state;
	assert_int_equal(rn_fixture_copy("cx5_sriov", dir), 0);
	snprintf(sys, sizeof(sys), "%s/sys", dir);
	rn_rdma_roots_init(&roots, sys);
	assert_int_equal(rn_rdma_model_load(&m, &roots, RN_RDMA_SRC_SYSFS, &e), 0);
	assert_int_equal(rn_dra_devices(&m, &v, &n, &e), 0);
	for (int i = 0; i < n; i++) {
		size_t len = strlen(v[i].name);

		assert_true(len > 0 && len <= 63);
		assert_int_equal(strspn(v[i].name, "abcdefghijklmnopqrstuvwxyz0123456789-"), len);
		if (i)
			assert_true(strcmp(v[i - 1].name, v[i].name) < 0);	/* sorted, unique */
		if (v[i].kind == RN_DRA_VF)
			vfs++;
		else
			ports++;
		if (!strcmp(v[i].name, "mlx5-0-port1")) {
			assert_string_equal(v[i].netdev, "ens1f0np0");
			assert_int_equal(v[i].gid_index, 3);
		}
		if (!strcmp(v[i].name, "vf-0000-3b-00-2")) {
			assert_string_equal(v[i].rdma_dev, "mlx5_2");
			assert_string_equal(v[i].pf_pci, "0000:3b:00.0");
			assert_int_equal(v[i].vf_index, 0);
		}
	}
	assert_int_equal(vfs, 12);	/* ens1f0np0's 12 VFs */
	assert_int_equal(ports, 2);	/* the two PFs' ports; no VF is a shared device */
	free(v);
	rn_rdma_model_free(&m);
	rn_fixture_remove(dir);
}

static void test_claim_json(void **state)
{
	const char *text =
		"{\"apiVersion\": \"resource.k8s.io/v1\", \"kind\": \"ResourceClaim\","
		" \"metadata\": {\"namespace\": \"ns\", \"name\": \"c\", \"uid\": \"u-1\"},"
		" \"status\": {\"allocation\": {\"devices\": {\"results\": ["
		"   {\"request\": \"nic\", \"driver\": \"rdma.rdmanet.io\", \"pool\": \"n1\","
		"    \"device\": \"mlx5-0-port1\"},"
		"   {\"request\": \"gpu\", \"driver\": \"gpu.example.com\", \"pool\": \"n1\","
		"    \"device\": \"gpu-0\"}]}}}}";
	json_t *o = json_loads(text, 0, NULL);
	struct rn_dra_claim c;
	struct rn_error e = { 0 };

	(void)state;
	assert_non_null(o);
	assert_int_equal(rn_dra_claim_from_json(o, &c, &e), 0);
	assert_true(c.allocated);
	assert_int_equal(c.n_results, 2);
	assert_string_equal(c.results[1].driver, "gpu.example.com");
	json_object_del(json_object_get(o, "status"), "allocation");
	assert_int_equal(rn_dra_claim_from_json(o, &c, &e), 0);
	assert_false(c.allocated);
	json_object_del(json_object_get(o, "metadata"), "uid");
	assert_int_not_equal(rn_dra_claim_from_json(o, &c, &e), 0);
	assert_string_equal(e.msg, "metadata.uid: missing");
	json_decref(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config_defaults),
		cmocka_unit_test(test_config_refused),
		cmocka_unit_test(test_config_claim_source),
		cmocka_unit_test(test_config_same),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_fixture_devices),
		cmocka_unit_test(test_claim_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

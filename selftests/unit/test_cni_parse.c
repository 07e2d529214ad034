// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The CNI plugin's pure parts: the environment and CNI_ARGS, the plugin
 * configuration (defaults, every field, each error with its code and the
 * field it names), prevResult, the result in each version (and a chained
 * prevResult passed through), the route plan with and without policy
 * routing, temporary link names and the attachment records.
 *
 * The plugin is a program, not part of the library, so its sources are
 * compiled into this test directly. */
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

#include "user/cni/cni_env.c"
#include "user/cni/cni_error.c"
#include "user/cni/cni_version.c"
#include "user/cni/fault.c"
#include "user/cni/handoff.c"
#include "user/cni/link.c"
#include "user/cni/netconf.c"
#include "user/cni/node_config.c"
#include "user/cni/prev_result.c"
#include "user/cni/record.c"
#include "user/cni/result.c"
#include "user/cni/route_plan.c"

/* --- environment ------------------------------------------------------------------ */

static const char *fake_env[16][2];

static const char *fake_getenv(const char *name)
{
	for (int i = 0; i < 16 && fake_env[i][0]; i++)
		if (!strcmp(fake_env[i][0], name))
			return fake_env[i][1];
	return NULL;
}

static void set_env(const char *const kv[][2], int n)
{
	memset(fake_env, 0, sizeof(fake_env));
	for (int i = 0; i < n; i++) {
		fake_env[i][0] = kv[i][0];
		fake_env[i][1] = kv[i][1];
	}
}

static void test_env_add(void **state)
{
	static const char *const kv[][2] = {
		{ "CNI_COMMAND", "ADD" }, { "CNI_CONTAINERID", "abc-1.2_3" },
		{ "CNI_NETNS", "/run/netns/p" }, { "CNI_IFNAME", "net1" },
		{ "CNI_ARGS", "IgnoreUnknown=1;K8S_POD_NAMESPACE=team;K8S_POD_NAME=trainer-0;"
			      "K8S_POD_INFRA_CONTAINER_ID=abc" },
	};
	struct cni_err err = { 0 };
	struct cni_env env;

	(void)state;
	set_env(kv, 5);
	assert_int_equal(cni_env_read(&env, fake_getenv, &err), 0);
	assert_int_equal(env.cmd, CNI_CMD_ADD);
	assert_string_equal(env.container_id, "abc-1.2_3");
	assert_string_equal(env.netns, "/run/netns/p");
	assert_string_equal(env.ifname, "net1");
	assert_string_equal(env.pod_namespace, "team");
	assert_string_equal(env.pod_name, "trainer-0");
}

static void expect_env_error(const char *const kv[][2], int n, const char *needle)
{
	struct cni_err err = { 0 };
	struct cni_env env;

	set_env(kv, n);
	if (!cni_env_read(&env, fake_getenv, &err))
		fail_msg("accepted an environment that should fail with: %s", needle);
	assert_int_equal(err.code, CNI_ERR_ENV);
	if (!strstr(err.msg, needle))
		fail_msg("error is \"%s\", wanted it to mention \"%s\"", err.msg, needle);
}

static void test_env_errors(void **state)
{
	static const char *const no_cmd[][2] = { { "CNI_CONTAINERID", "c" } };
	static const char *const bad_cmd[][2] = { { "CNI_COMMAND", "add" } };
	static const char *const no_id[][2] = { { "CNI_COMMAND", "ADD" },
		{ "CNI_NETNS", "/n" }, { "CNI_IFNAME", "net1" } };
	static const char *const bad_id[][2] = { { "CNI_COMMAND", "ADD" },
		{ "CNI_CONTAINERID", "a b" }, { "CNI_NETNS", "/n" }, { "CNI_IFNAME", "net1" } };
	static const char *const long_if[][2] = { { "CNI_COMMAND", "DEL" },
		{ "CNI_CONTAINERID", "c" }, { "CNI_IFNAME", "0123456789abcdef" } };
	static const char *const colon_if[][2] = { { "CNI_COMMAND", "DEL" },
		{ "CNI_CONTAINERID", "c" }, { "CNI_IFNAME", "a:b" } };
	static const char *const no_ns[][2] = { { "CNI_COMMAND", "CHECK" },
		{ "CNI_CONTAINERID", "c" }, { "CNI_IFNAME", "net1" } };
	static const char *const rel_ns[][2] = { { "CNI_COMMAND", "ADD" },
		{ "CNI_CONTAINERID", "c" }, { "CNI_IFNAME", "net1" }, { "CNI_NETNS", "x/y" } };
	static const char *const bad_args[][2] = { { "CNI_COMMAND", "ADD" },
		{ "CNI_CONTAINERID", "c" }, { "CNI_IFNAME", "net1" }, { "CNI_NETNS", "/n" },
		{ "CNI_ARGS", "K8S_POD_NAME" } };
	static const char *const gc[][2] = { { "CNI_COMMAND", "GC" } };

	(void)state;
	expect_env_error(no_cmd, 1, "CNI_COMMAND");
	expect_env_error(bad_cmd, 1, "CNI_COMMAND");
	expect_env_error(no_id, 3, "CNI_CONTAINERID");
	expect_env_error(bad_id, 4, "CNI_CONTAINERID");
	expect_env_error(long_if, 3, "CNI_IFNAME");
	expect_env_error(colon_if, 3, "CNI_IFNAME");
	expect_env_error(no_ns, 3, "CNI_NETNS");
	expect_env_error(rel_ns, 4, "CNI_NETNS");
	expect_env_error(bad_args, 5, "CNI_ARGS");
	expect_env_error(gc, 1, "CNI_PATH");
}

static void test_env_del_without_netns(void **state)
{
	static const char *const kv[][2] = { { "CNI_COMMAND", "DEL" },
		{ "CNI_CONTAINERID", "c" }, { "CNI_IFNAME", "net1" } };
	static const char *const ver[][2] = { { "CNI_COMMAND", "VERSION" } };
	struct cni_err err = { 0 };
	struct cni_env env;

	(void)state;
	set_env(kv, 3);
	assert_int_equal(cni_env_read(&env, fake_getenv, &err), 0);
	assert_string_equal(env.netns, "");
	set_env(ver, 1);
	assert_int_equal(cni_env_read(&env, fake_getenv, &err), 0);
	assert_int_equal(env.cmd, CNI_CMD_VERSION);
}

/* --- configuration ------------------------------------------------------------------ */

static int parse(struct cni_netconf *c, const char *json, struct cni_err *err)
{
	memset(err, 0, sizeof(*err));
	return cni_netconf_parse(c, json, strlen(json), err);
}

#define MINIMAL "\"cniVersion\": \"1.1.0\", \"name\": \"rail1\", \"type\": \"rdmanet\", " \
		"\"ippools\": {\"ipv4\": [\"a\"]}"

static void test_config_defaults(void **state)
{
	struct cni_netconf c;
	struct cni_err err;

	(void)state;
	assert_int_equal(parse(&c, "{" MINIMAL ", \"someoneElses\": {\"x\": [1]}}", &err), 0);
	assert_int_equal(c.version, CNI_V110);
	assert_string_equal(c.name, "rail1");
	assert_int_equal(c.mode, CNI_MODE_MACVLAN);
	assert_string_equal(cni_submode_name(&c), "bridge");
	assert_string_equal(c.master, "");
	assert_int_equal(c.mtu, 0);
	assert_true(c.policy.enabled);
	assert_int_equal(c.policy.table_base, 100);
	assert_int_equal(c.policy.rule_priority, 1000);
	assert_true(c.gateway_check.enabled);
	assert_int_equal(c.gateway_check.timeout_ms, 1000);
	assert_true(c.conflict_check.enabled);
	assert_int_equal(c.conflict_check.timeout_ms, 50);
	assert_int_equal(c.conflict_check.probes, 2);
	assert_int_equal(c.dscp, -1);
	assert_string_equal(c.config_file, "/etc/rdmanet/config.json");
	assert_false(c.config_file_given);
	assert_string_equal(c.state_dir, "/var/lib/rdmanet/cni");
	assert_int_equal(c.n_ipv4_pools, 1);
	assert_string_equal(c.ipv4_pools[0], "a");
	assert_null(c.prev_result);
	/* fields we do not know stay in the object we were given */
	assert_non_null(json_object_get(c.root, "someoneElses"));
	cni_netconf_free(&c);
}

static void test_config_every_field(void **state)
{
	static const char *json = "{\"cniVersion\": \"0.4.0\", \"name\": \"r_2.x-y\", "
		"\"mode\": \"ipvlan\", \"ipvlanMode\": \"l3s\", \"macvlanMode\": \"vepa\", "
		"\"master\": \"ens6f0np0\", \"mtu\": 9000, \"dscp\": 34, "
		"\"ippools\": {\"ipv4\": [\"a\", \"b\"], \"ipv6\": [\"c\"]}, "
		"\"routes\": [{\"dst\": \"172.16.0.0/16\", \"gw\": \"172.16.11.254\"}, "
		"{\"dst\": \"fd00::/8\"}], "
		"\"policyRouting\": {\"enabled\": true, \"tableBase\": 200, \"rulePriority\": 500}, "
		"\"gatewayCheck\": false, "
		"\"ipConflictCheck\": {\"timeoutMs\": 120, \"probes\": 3}, "
		"\"configFile\": \"/tmp/x.json\", \"stateDir\": \"/tmp/st\", "
		"\"cni.dev/attachments\": [], \"prevResult\": {\"cniVersion\": \"0.4.0\"}}";
	struct cni_netconf c;
	struct cni_err err;

	(void)state;
	assert_int_equal(parse(&c, json, &err), 0);
	assert_int_equal(c.version, CNI_V040);
	assert_int_equal(c.mode, CNI_MODE_IPVLAN);
	assert_string_equal(cni_submode_name(&c), "l3s");
	assert_string_equal(c.master, "ens6f0np0");
	assert_int_equal(c.mtu, 9000);
	assert_int_equal(c.dscp, 34);
	assert_int_equal(c.n_ipv4_pools, 2);
	assert_int_equal(c.n_ipv6_pools, 1);
	assert_int_equal(c.n_routes, 2);
	assert_true(c.routes[0].has_gw);
	assert_false(c.routes[1].has_gw);
	assert_int_equal(c.policy.table_base, 200);
	assert_int_equal(c.policy.rule_priority, 500);
	assert_false(c.gateway_check.enabled);
	assert_true(c.conflict_check.enabled);
	assert_int_equal(c.conflict_check.timeout_ms, 120);
	assert_int_equal(c.conflict_check.probes, 3);
	/* kept to be checked against the node's, never used as paths */
	assert_string_equal(c.nad_config_file, "/tmp/x.json");
	assert_string_equal(c.nad_state_dir, "/tmp/st");
	assert_string_equal(c.config_file, "/etc/rdmanet/config.json");
	assert_false(c.config_file_given);
	assert_string_equal(c.state_dir, "/var/lib/rdmanet/cni");
	assert_non_null(c.valid_attachments);
	assert_non_null(c.prev_result);
	cni_netconf_free(&c);
}

static void expect_config_error(const char *json, int code, const char *needle)
{
	struct cni_netconf c;
	struct cni_err err;

	if (!parse(&c, json, &err)) {
		cni_netconf_free(&c);
		fail_msg("accepted: %s", json);
	}
	cni_netconf_free(&c);
	if (err.code != code || !strstr(err.msg, needle))
		fail_msg("config %s\n  failed with %d \"%s\"\n  wanted %d mentioning \"%s\"", json,
			 err.code, err.msg, code, needle);
}

static void test_config_errors(void **state)
{
	(void)state;
	expect_config_error("", CNI_ERR_DECODE, "not valid JSON");
	expect_config_error("{\"a\": 1, \"a\": 2}", CNI_ERR_DECODE, "duplicate");
	expect_config_error("[]", CNI_ERR_DECODE, "JSON object");
	expect_config_error("{\"name\": \"n\"}", CNI_ERR_CONFIG, "cniVersion: required");
	expect_config_error("{\"cniVersion\": 1}", CNI_ERR_CONFIG, "cniVersion");
	expect_config_error("{\"cniVersion\": \"0.3.1\"}", CNI_ERR_VERSION, "0.3.1");
	expect_config_error("{\"cniVersion\": \"1.1.0\"}", CNI_ERR_CONFIG, "name: required");
	expect_config_error("{\"cniVersion\": \"1.1.0\", \"name\": \"../x\"}", CNI_ERR_CONFIG,
			    "name");
	expect_config_error("{" MINIMAL ", \"mode\": \"bridge\"}", CNI_ERR_CONFIG, "mode");
	expect_config_error("{" MINIMAL ", \"macvlanMode\": \"passthru\"}", CNI_ERR_CONFIG,
			    "macvlanMode");
	expect_config_error("{" MINIMAL ", \"ipvlanMode\": \"l4\"}", CNI_ERR_CONFIG, "ipvlanMode");
	expect_config_error("{" MINIMAL ", \"master\": \"0123456789abcdef\"}", CNI_ERR_CONFIG,
			    "master");
	expect_config_error("{" MINIMAL ", \"mtu\": 40}", CNI_ERR_CONFIG, "mtu");
	expect_config_error("{" MINIMAL ", \"dscp\": 64}", CNI_ERR_CONFIG, "dscp");
	expect_config_error("{\"cniVersion\": \"1.1.0\", \"name\": \"n\"}", CNI_ERR_CONFIG,
			    "ippools: required");
	expect_config_error("{\"cniVersion\": \"1.1.0\", \"name\": \"n\", \"ippools\": {}}",
			    CNI_ERR_CONFIG, "lists no pool");
	expect_config_error("{\"cniVersion\": \"1.1.0\", \"name\": \"n\", "
			    "\"ippools\": {\"ipv4\": [1]}}", CNI_ERR_CONFIG, "ippools.ipv4[0]");
	expect_config_error("{\"cniVersion\": \"1.1.0\", \"name\": \"n\", "
			    "\"ippools\": {\"ipv5\": [\"a\"]}}", CNI_ERR_CONFIG, "ipv5");
	expect_config_error("{" MINIMAL ", \"routes\": {}}", CNI_ERR_CONFIG, "routes");
	expect_config_error("{" MINIMAL ", \"routes\": [{\"dst\": \"10.0.0.1/8\"}]}",
			    CNI_ERR_CONFIG, "routes[0].dst");
	expect_config_error("{" MINIMAL ", \"routes\": [{\"dst\": \"10.0.0.0/8\", "
			    "\"gw\": \"fe80::1\"}]}", CNI_ERR_CONFIG, "families");
	expect_config_error("{" MINIMAL ", \"policyRouting\": \"yes\"}", CNI_ERR_CONFIG,
			    "policyRouting");
	expect_config_error("{" MINIMAL ", \"policyRouting\": {\"tableBase\": 254}}",
			    CNI_ERR_CONFIG, "main or local");
	expect_config_error("{" MINIMAL ", \"gatewayCheck\": {\"timeoutMs\": 0}}", CNI_ERR_CONFIG,
			    "gatewayCheck.timeoutMs");
	expect_config_error("{" MINIMAL ", \"ipConflictCheck\": {\"timeout\": 5}}",
			    CNI_ERR_CONFIG, "timeout");
	expect_config_error("{" MINIMAL ", \"configFile\": \"x.json\"}", CNI_ERR_CONFIG,
			    "configFile");
	expect_config_error("{" MINIMAL ", \"prevResult\": []}", CNI_ERR_CONFIG, "prevResult");
	expect_config_error("{" MINIMAL ", \"cni.dev/valid-attachments\": {}}", CNI_ERR_CONFIG,
			    "valid-attachments");
}

/* --- prevResult ------------------------------------------------------------------- */

static const char *prev_json =
	"{\"cniVersion\": \"1.1.0\", \"extra\": 1,"
	" \"interfaces\": [{\"name\": \"eth0\", \"sandbox\": \"/n\"},"
	"                  {\"name\": \"net1\", \"mac\": \"02:00:00:00:00:01\", \"sandbox\": \"/n\"}],"
	" \"ips\": [{\"address\": \"10.0.0.2/24\", \"interface\": 0},"
	"           {\"address\": \"10.81.0.10/24\", \"gateway\": \"10.81.0.254\", \"interface\": 1}],"
	" \"routes\": [{\"dst\": \"0.0.0.0/0\", \"gw\": \"10.81.0.254\", \"table\": 100}]}";

/* mode sriov: deviceID from the config (deviceID, pciBusID) or runtimeConfig,
 * sriov-cni's keys; Multus's deviceID/pciBusID accepted in every mode */
static void test_config_sriov(void **state)
{
	struct cni_netconf c;
	struct cni_err err;

	(void)state;
	assert_int_equal(parse(&c, "{" MINIMAL ", \"mode\": \"sriov\", \"runtimeConfig\": "
			       "{\"deviceID\": \"0000:3b:00.2\"}, \"vlan\": 10, \"vlanQoS\": 3, "
			       "\"vlanProto\": \"802.1ad\", \"mac\": \"02:00:00:00:00:01\", "
			       "\"spoofchk\": \"off\", \"trust\": \"on\", \"link_state\": "
			       "\"enable\", \"min_tx_rate\": 10, \"max_tx_rate\": 100}", &err), 0);
	assert_int_equal(c.mode, CNI_MODE_SRIOV);
	assert_string_equal(c.device_id, "0000:3b:00.2");
	assert_true(c.has_vlan && c.has_mac && c.has_spoofchk && c.has_trust &&
		    c.has_link_state && c.has_rate);
	assert_int_equal(c.vlan, 10);
	assert_int_equal(c.vlan_qos, 3);
	assert_int_equal(c.vlan_proto, 0x88a8);
	assert_int_equal(c.vf_mac[5], 1);
	assert_int_equal(c.spoofchk, 0);
	assert_int_equal(c.trust, 1);
	assert_int_equal(c.link_state, 1);
	assert_int_equal(c.min_tx_rate, 10);
	assert_int_equal(c.max_tx_rate, 100);
	cni_netconf_free(&c);
	/* the config's deviceID wins over runtimeConfig's; nothing else set */
	assert_int_equal(parse(&c, "{" MINIMAL ", \"mode\": \"sriov\", \"deviceID\": "
			       "\"0000:3b:00.3\", \"runtimeConfig\": {\"deviceID\": "
			       "\"0000:3b:00.2\"}}", &err), 0);
	assert_string_equal(c.device_id, "0000:3b:00.3");
	assert_false(c.has_vlan || c.has_mac || c.has_spoofchk || c.has_trust ||
		     c.has_link_state || c.has_rate);
	cni_netconf_free(&c);
	expect_config_error("{" MINIMAL ", \"vlan\": 10}", CNI_ERR_CONFIG,
			    "vlan: only for mode \"sriov\"");
	/* Multus: the top-level deviceID and pciBusID in every delegate whose
	 * NetworkAttachmentDefinition names a resource, whatever the mode (a
	 * shared-mode network annotated for the shared device plugin has the
	 * plugin's device ID there): accepted, used only by mode sriov */
	{
		static const char *const modes[] = { "", ", \"mode\": \"ipvlan\"",
						     ", \"mode\": \"sriov\"" };

		for (int i = 0; i < 3; i++) {
			char conf[1024];

			snprintf(conf, sizeof(conf), "{" MINIMAL "%s, \"deviceID\": "
				 "\"0000:3b:00.2\", \"pciBusID\": \"0000:3b:00.2\", "
				 "\"runtimeConfig\": {\"ips\": [], \"mac\": \"\"}}", modes[i]);
			assert_int_equal(parse(&c, conf, &err), 0);
			assert_string_equal(c.device_id, i == 2 ? "0000:3b:00.2" : "");
			cni_netconf_free(&c);
		}
	}
	assert_int_equal(parse(&c, "{" MINIMAL ", \"deviceID\": \"hca_shared_devices_a-17-of-a-"
			       "resource-whose-ids-are-long\"}", &err), 0);
	cni_netconf_free(&c);
	/* pciBusID alone (what some Multus versions leave) names the VF */
	assert_int_equal(parse(&c, "{" MINIMAL ", \"mode\": \"sriov\", \"pciBusID\": "
			       "\"0000:3b:00.4\", \"runtimeConfig\": {\"deviceID\": "
			       "\"0000:3b:00.2\"}}", &err), 0);
	assert_string_equal(c.device_id, "0000:3b:00.4");
	cni_netconf_free(&c);
	expect_config_error("{" MINIMAL ", \"mode\": \"sriov\", \"deviceID\": \"0000:3b:00.2\", "
			    "\"pciBusID\": \"0000:3b:00.3\"}", CNI_ERR_CONFIG,
			    "deviceID \"0000:3b:00.2\" and pciBusID \"0000:3b:00.3\" name different "
			    "devices");
	expect_config_error("{" MINIMAL ", \"deviceID\": 7}", CNI_ERR_CONFIG,
			    "deviceID: must be a string");
	expect_config_error("{" MINIMAL ", \"mode\": \"sriov\", \"master\": \"eth0\"}",
			    CNI_ERR_CONFIG, "master: not for mode \"sriov\"");
	expect_config_error("{" MINIMAL ", \"mode\": \"sriov\", \"vlan\": 4096}",
			    CNI_ERR_CONFIG, "vlan");
	expect_config_error("{" MINIMAL ", \"mode\": \"sriov\", \"vlanQoS\": 3}",
			    CNI_ERR_CONFIG, "need \"vlan\"");
	expect_config_error("{" MINIMAL ", \"mode\": \"sriov\", \"vlan\": 1, \"vlanProto\": "
			    "\"802.1x\"}", CNI_ERR_CONFIG, "vlanProto");
	expect_config_error("{" MINIMAL ", \"mode\": \"sriov\", \"mac\": \"01:00:00:00:00:01\"}",
			    CNI_ERR_CONFIG, "not a unicast MAC");
	expect_config_error("{" MINIMAL ", \"mode\": \"sriov\", \"spoofchk\": \"yes\"}",
			    CNI_ERR_CONFIG, "spoofchk: expected \"on\" or \"off\"");
	expect_config_error("{" MINIMAL ", \"mode\": \"sriov\", \"link_state\": \"up\"}",
			    CNI_ERR_CONFIG, "link_state");
	expect_config_error("{" MINIMAL ", \"mode\": \"sriov\", \"min_tx_rate\": 200, "
			    "\"max_tx_rate\": 100}", CNI_ERR_CONFIG, "min_tx_rate 200 is above");
}

static void test_prev_result(void **state)
{
	json_t *o = json_loads(prev_json, 0, NULL);
	struct cni_prev *p = calloc(1, sizeof(*p));
	struct cni_err err = { 0 };

	(void)state;
	assert_int_equal(cni_prev_parse(o, p, &err), 0);
	assert_int_equal(p->n_ifs, 2);
	assert_true(p->ifs[1].has_mac);
	assert_int_equal(p->n_ips, 2);
	assert_int_equal(p->ips[1].iface, 1);
	assert_true(p->ips[1].has_gw);
	assert_int_equal(p->routes[0].table, 100);
	assert_int_equal(cni_prev_find_if(p, "net1", "/n"), 1);
	assert_int_equal(cni_prev_find_if(p, "net1", "/other"), -1);
	json_decref(o);

	o = json_loads("{\"interfaces\": [], \"ips\": [{\"address\": \"10.0.0.2/24\", "
		       "\"interface\": 0}]}", 0, NULL);
	assert_int_not_equal(cni_prev_parse(o, p, &err), 0);
	assert_int_equal(err.code, CNI_ERR_CONFIG);
	assert_non_null(strstr(err.msg, "ips[0].interface"));
	json_decref(o);
	memset(&err, 0, sizeof(err));
	o = json_loads("{\"ips\": [{\"address\": \"10.0.0.2\"}]}", 0, NULL);
	assert_int_not_equal(cni_prev_parse(o, p, &err), 0);
	assert_non_null(strstr(err.msg, "CIDR"));
	json_decref(o);
	free(p);
}

/* --- results and the route plan ------------------------------------------------------ */

static void attachment(struct cni_attachment *a, bool dual)
{
	memset(a, 0, sizeof(*a));
	strcpy(a->ifname, "net1");
	a->sandbox = "/run/netns/p";
	a->mtu = 9000;
	rn_mac_parse("02:11:22:33:44:55", a->mac);
	rn_prefix_parse("10.81.0.10/24", &a->addrs[0].address, false);
	a->addrs[0].has_gateway = true;
	rn_addr_parse("10.81.0.254", &a->addrs[0].gateway);
	a->addrs[0].n_routes = 1;
	rn_prefix_parse("10.90.0.0/16", &a->addrs[0].routes[0].dst, true);
	a->n_addrs = 1;
	if (dual) {
		rn_prefix_parse("fd81::10/64", &a->addrs[1].address, false);
		a->n_addrs = 2;
	}
}

static void test_route_plan(void **state)
{
	struct cni_netconf c;
	struct cni_attachment a;
	struct cni_err err;
	char d[RN_PREFIX_STRLEN], g[RN_ADDR_STRLEN];

	(void)state;
	assert_int_equal(parse(&c, "{" MINIMAL ", \"routes\": [{\"dst\": \"0.0.0.0/0\"}, "
			       "{\"dst\": \"fd90::/64\", \"gw\": \"fd81::1\"}]}", &err), 0);
	attachment(&a, true);
	a.table = 100;
	assert_int_equal(cni_plan_routes(&c, &a, &err), 0);
	/* v4: subnet, default via the gateway, pool route via the gateway (the
	 * config's default is the same destination: kept once); v6: subnet and
	 * the config's v6 route (no gateway in that pool: no default) */
	assert_int_equal(a.n_routes, 5);
	assert_string_equal(rn_prefix_format(&a.routes[0].dst, d), "10.81.0.0/24");
	assert_true(a.routes[0].link_scope);
	assert_int_equal(a.routes[0].table, 100);
	assert_string_equal(rn_prefix_format(&a.routes[1].dst, d), "0.0.0.0/0");
	assert_string_equal(rn_addr_format(&a.routes[1].gw, g), "10.81.0.254");
	assert_string_equal(rn_prefix_format(&a.routes[2].dst, d), "10.90.0.0/16");
	assert_string_equal(rn_addr_format(&a.routes[2].gw, g), "10.81.0.254");
	assert_string_equal(rn_prefix_format(&a.routes[3].dst, d), "fd81::/64");
	assert_string_equal(rn_prefix_format(&a.routes[4].dst, d), "fd90::/64");
	assert_string_equal(rn_addr_format(&a.routes[4].gw, g), "fd81::1");

	a.table = 0;		/* no policy routing: the reference plugins' way */
	assert_int_equal(cni_plan_routes(&c, &a, &err), 0);
	assert_int_equal(a.n_routes, 3);
	for (unsigned int i = 0; i < a.n_routes; i++)
		assert_int_equal(a.routes[i].table, 0);
	cni_netconf_free(&c);
}

static json_t *build(const char *version, const char *extra, bool dual)
{
	char json[1024];
	struct cni_netconf c;
	struct cni_attachment a;
	struct cni_err err;
	json_t *r;

	snprintf(json, sizeof(json), "{\"cniVersion\": \"%s\", \"name\": \"n\", "
		 "\"ippools\": {\"ipv4\": [\"a\"]}%s}", version, extra);
	assert_int_equal(parse(&c, json, &err), 0);
	attachment(&a, dual);
	a.table = 100;
	assert_int_equal(cni_plan_routes(&c, &a, &err), 0);
	r = cni_result_build(&c, &a, &err);
	assert_non_null(r);
	cni_netconf_free(&c);
	return r;
}

static void assert_json(json_t *got, const char *want)
{
	json_t *w = json_loads(want, 0, NULL);
	char *g;

	assert_non_null(w);
	if (!json_equal(got, w)) {
		g = json_dumps(got, JSON_SORT_KEYS);
		fail_msg("result\n  %s\nwanted\n  %s", g, want);
	}
	json_decref(w);
	json_decref(got);
}

static void test_results(void **state)
{
	(void)state;
	assert_json(build("0.4.0", "", true),
		    "{\"cniVersion\": \"0.4.0\", \"interfaces\": [{\"name\": \"net1\", "
		    "\"mac\": \"02:11:22:33:44:55\", \"sandbox\": \"/run/netns/p\"}], "
		    "\"ips\": [{\"version\": \"4\", \"interface\": 0, \"address\": \"10.81.0.10/24\", "
		    "\"gateway\": \"10.81.0.254\"}, {\"version\": \"6\", \"interface\": 0, "
		    "\"address\": \"fd81::10/64\"}], \"dns\": {}}");
	assert_json(build("1.0.0", "", false),
		    "{\"cniVersion\": \"1.0.0\", \"interfaces\": [{\"name\": \"net1\", "
		    "\"mac\": \"02:11:22:33:44:55\", \"sandbox\": \"/run/netns/p\"}], "
		    "\"ips\": [{\"interface\": 0, \"address\": \"10.81.0.10/24\", "
		    "\"gateway\": \"10.81.0.254\"}], \"dns\": {}}");
	assert_json(build("1.1.0", "", false),
		    "{\"cniVersion\": \"1.1.0\", \"interfaces\": [{\"name\": \"net1\", "
		    "\"mac\": \"02:11:22:33:44:55\", \"mtu\": 9000, \"sandbox\": \"/run/netns/p\"}], "
		    "\"ips\": [{\"interface\": 0, \"address\": \"10.81.0.10/24\", "
		    "\"gateway\": \"10.81.0.254\"}], \"routes\": ["
		    "{\"dst\": \"10.81.0.0/24\", \"table\": 100, \"scope\": 253}, "
		    "{\"dst\": \"0.0.0.0/0\", \"gw\": \"10.81.0.254\", \"table\": 100}, "
		    "{\"dst\": \"10.90.0.0/16\", \"gw\": \"10.81.0.254\", \"table\": 100}], "
		    "\"dns\": {}}");
	/* chained: prevResult passes through (its unknown field too), ours appended */
	assert_json(build("1.1.0", ", \"prevResult\": {\"cniVersion\": \"1.1.0\", "
			  "\"vendor\": [1], \"interfaces\": [{\"name\": \"eth0\"}], "
			  "\"ips\": [], \"dns\": {\"domain\": \"x\"}}", false),
		    "{\"cniVersion\": \"1.1.0\", \"vendor\": [1], \"interfaces\": ["
		    "{\"name\": \"eth0\"}, {\"name\": \"net1\", \"mac\": \"02:11:22:33:44:55\", "
		    "\"mtu\": 9000, \"sandbox\": \"/run/netns/p\"}], "
		    "\"ips\": [{\"interface\": 1, \"address\": \"10.81.0.10/24\", "
		    "\"gateway\": \"10.81.0.254\"}], \"routes\": ["
		    "{\"dst\": \"10.81.0.0/24\", \"table\": 100, \"scope\": 253}, "
		    "{\"dst\": \"0.0.0.0/0\", \"gw\": \"10.81.0.254\", \"table\": 100}, "
		    "{\"dst\": \"10.90.0.0/16\", \"gw\": \"10.81.0.254\", \"table\": 100}], "
		    "\"dns\": {\"domain\": \"x\"}}");
}

static void test_error_object(void **state)
{
	struct cni_err err = { 0 };
	struct rn_error e = { -EAGAIN, "etcd: no endpoint answered" };
	json_t *o;

	(void)state;
	cni_fail_rn(&err, cni_code_of(e.code, 100), &e, "IPAM store");
	cni_fail(&err, 7, "a later failure does not replace the first");
	o = cni_err_json(&err, "1.0.0");
	assert_json(o, "{\"cniVersion\": \"1.0.0\", \"code\": 11, "
		    "\"msg\": \"IPAM store: etcd: no endpoint answered\"}");
	assert_int_equal(cni_code_of(-ENOSPC, 100), RN_CNI_ERR_POOL_EXHAUSTED);
	assert_int_equal(cni_code_of(-EIO, 100), 100);
}

/* --- names and records -------------------------------------------------------------- */

static void test_tmp_names(void **state)
{
	char a[RN_IFNAMSIZ], b[RN_IFNAMSIZ], c[RN_IFNAMSIZ];

	(void)state;
	cni_link_tmp_name("0123456789abcdef0123456789abcdef", "net1", a);
	cni_link_tmp_name("0123456789abcdef0123456789abcdef", "net1", b);
	cni_link_tmp_name("0123456789abcdef0123456789abcdef", "net2", c);
	assert_string_equal(a, b);
	assert_string_not_equal(a, c);
	assert_int_equal(strlen(a), 15);
	assert_memory_equal(a, "rnt", 3);
}

static void test_records(void **state)
{
	char dir[] = "/tmp/rn-cni-rec.XXXXXX", path[256], path2[256];
	struct cni_record_pending pending;
	bool found_cut = false;
	struct cni_record r = { .network = "rail1", .container_id = "abc", .ifname = "net1",
				.netns = "/run/netns/p", .master = "ra0", .complete = true,
				.n_addrs = 2, .table = 101 }, got, *all;
	struct rn_error e = { 0 };
	int n;

	(void)state;
	assert_non_null(mkdtemp(dir));
	rn_prefix_parse("10.81.0.10/24", &r.addrs[0], false);
	rn_prefix_parse("fd81::10/64", &r.addrs[1], false);
	assert_int_equal(cni_record_read(dir, "rail1", "abc", "net1", &got, &e), -ENOENT);
	assert_int_equal(cni_record_write(dir, &r, &e), 0);
	assert_int_equal(cni_record_read(dir, "rail1", "abc", "net1", &got, &e), 0);
	assert_memory_equal(&got, &r, sizeof(r));
	strcpy(r.container_id, "def");
	assert_int_equal(cni_record_write(dir, &r, &e), 0);
	/* a file cut short is listed by its name; one whose name is not an
	 * attachment's is skipped; neither is fatal */
	snprintf(path, sizeof(path), "%s/rail1/zzz:net1", dir);
	FILE *f = fopen(path, "w");
	fputs("{", f);
	fclose(f);
	snprintf(path2, sizeof(path2), "%s/rail1/:net1", dir);
	f = fopen(path2, "w");
	fclose(f);
	assert_int_equal(cni_record_read(dir, "rail1", "zzz", "net1", &got, &e), -EINVAL);
	assert_int_equal(cni_record_list(dir, "rail1", &all, &n, &e), 0);
	assert_int_equal(n, 3);
	for (int i = 0; i < n; i++) {
		if (strcmp(all[i].container_id, "zzz"))
			continue;
		assert_string_equal(all[i].ifname, "net1");
		assert_string_equal(all[i].network, "rail1");
		assert_string_equal(all[i].netns, "");
		assert_false(all[i].complete);
		assert_int_equal(all[i].n_addrs, 0);
		found_cut = true;
	}
	assert_true(found_cut);
	free(all);
	unlink(path2);
	/* a first record: in place when begin returns, durable after wait;
	 * one already there is replaced (through a temporary file) */
	r.complete = false;
	strcpy(r.container_id, "ghi");
	assert_int_equal(cni_record_begin(dir, &r, &pending, &e), 0);
	assert_int_equal(cni_record_read(dir, "rail1", "ghi", "net1", &got, &e), 0);
	assert_memory_equal(&got, &r, sizeof(r));
	assert_int_equal(cni_record_wait(&pending, &e), 0);
	assert_int_equal(cni_record_wait(&pending, &e), 0);
	r.table = 102;
	assert_int_equal(cni_record_begin(dir, &r, &pending, &e), 0);
	assert_int_equal(cni_record_wait(&pending, &e), 0);
	assert_int_equal(cni_record_read(dir, "rail1", "ghi", "net1", &got, &e), 0);
	assert_int_equal(got.table, 102);
	assert_int_equal(cni_record_remove(dir, "rail1", "ghi", "net1", &e), 0);
	assert_int_equal(cni_record_list(dir, "nothing", &all, &n, &e), 0);
	assert_int_equal(n, 0);
	assert_int_equal(cni_record_remove(dir, "rail1", "abc", "net1", &e), 0);
	assert_int_equal(cni_record_remove(dir, "rail1", "abc", "net1", &e), 0);
	assert_int_equal(cni_record_remove(dir, "rail1", "def", "net1", &e), 0);
	unlink(path);
	snprintf(path, sizeof(path), "%s/rail1", dir);
	assert_int_equal(rmdir(path), 0);
	assert_int_equal(rmdir(dir), 0);
}

static void touch_aged(const char *dir, const char *name, int age_s, bool is_dir)
{
	struct timespec t[2] = { { .tv_sec = time(NULL) - age_s }, { .tv_sec = time(NULL) - age_s } };
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (is_dir) {
		assert_int_equal(mkdir(path, 0700), 0);
	} else {
		FILE *f = fopen(path, "w");

		assert_non_null(f);
		fputs("{\"network\": \"rail1\"", f);	/* half a record */
		fclose(f);
	}
	assert_int_equal(utimensat(AT_FDCWD, path, t, 0), 0);
}

static bool exists(const char *dir, const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return !access(path, F_OK);
}

/* Writes leave no temporary file; GC's sweep removes the ones a killed
 * writer left once they are old, and nothing else. */
static void test_record_sweep(void **state)
{
	char dir[] = "/tmp/rn-cni-sweep.XXXXXX", net[256];
	struct cni_record r = { .network = "rail1", .container_id = "abc", .ifname = "net1",
				.netns = "/run/netns/p", .master = "ra0" }, *all;
	const char *leftovers[] = { ".rec.old1", ".rec.old2", ".rec.fresh", ".keep", ".rec.dir" };
	struct rn_error e = { 0 };
	struct dirent *de;
	DIR *dh;
	int n;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(cni_record_sweep_tmp(dir, "rail1", 60, &e), 0);	/* no dir yet */
	assert_int_equal(cni_record_write(dir, &r, &e), 0);
	snprintf(net, sizeof(net), "%s/rail1", dir);
	dh = opendir(net);
	assert_non_null(dh);
	n = 0;
	while ((de = readdir(dh)))
		n += de->d_name[0] != '.';
	closedir(dh);
	assert_int_equal(n, 1);
	assert_false(exists(net, ".rec."));

	touch_aged(net, ".rec.old1", 120, false);
	touch_aged(net, ".rec.old2", 61 * 60, false);
	touch_aged(net, ".rec.fresh", 5, false);	/* a write under way */
	touch_aged(net, ".keep", 3600, false);		/* not ours */
	touch_aged(net, ".rec.dir", 3600, true);	/* not a file */
	assert_int_equal(cni_record_sweep_tmp(dir, "rail1", 60, &e), 2);
	assert_false(exists(net, ".rec.old1"));
	assert_false(exists(net, ".rec.old2"));
	assert_true(exists(net, ".rec.fresh"));
	assert_true(exists(net, ".keep"));
	assert_true(exists(net, ".rec.dir"));
	assert_int_equal(cni_record_sweep_tmp(dir, "rail1", 60, &e), 0);
	assert_int_equal(cni_record_list(dir, "rail1", &all, &n, &e), 0);
	assert_int_equal(n, 1);
	assert_string_equal(all[0].container_id, "abc");
	free(all);

	assert_int_equal(cni_record_remove(dir, "rail1", "abc", "net1", &e), 0);
	for (size_t i = 0; i < sizeof(leftovers) / sizeof(leftovers[0]); i++) {
		char path[512];

		snprintf(path, sizeof(path), "%s/%s", net, leftovers[i]);
		remove(path);
	}
	assert_int_equal(rmdir(net), 0);
	assert_int_equal(rmdir(dir), 0);
}

/* DEL without a loadable node config still unregisters: from the pin dir
 * the file names if it is JSON naming an absolute one, else the default;
 * and reads its record from the state dir found the same way. */
static void test_pin_dir_fallback(void **state)
{
	static const struct { const char *text, *want; } cases[] = {
		{ "{\"bpf\": {\"pin_dir\": \"/sys/fs/bpf/x\"}, \"mastres\": []}", "/sys/fs/bpf/x" },
		{ "{\"cni\": {\"state_dir\": \"/sys/fs/bpf/x\"}, \"bpf\": 1}", RN_DEFAULT_PIN_DIR },
		{ "{\"bpf\": {\"pin_dir\": \"relative\"}}", RN_DEFAULT_PIN_DIR },
		{ "{\"bpf\": {\"pin_dir\": 5}}", RN_DEFAULT_PIN_DIR },
		{ "{\"bpf\": [\"/sys/fs/bpf/x\"]}", RN_DEFAULT_PIN_DIR },
		{ "{\"node\": ", RN_DEFAULT_PIN_DIR },
		{ "[]", RN_DEFAULT_PIN_DIR },
		{ NULL, RN_DEFAULT_PIN_DIR },		/* no file */
	};
	char path[] = "/tmp/rn-cni-node.XXXXXX", got[PATH_MAX], sdir[PATH_MAX];
	struct cni_netconf c = { 0 };
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	snprintf(c.config_file, sizeof(c.config_file), "%s", path);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		FILE *f;

		if (cases[i].text) {
			f = fopen(path, "w");
			assert_non_null(f);
			fputs(cases[i].text, f);
			fclose(f);
		} else {
			unlink(path);
		}
		cni_node_fallback(&c, got, sizeof(got), sdir, sizeof(sdir));
		assert_string_equal(got, cases[i].want);
		assert_string_equal(sdir, i == 1 ? "/sys/fs/bpf/x" : RN_DEFAULT_CNI_STATE_DIR);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_env_add),
		cmocka_unit_test(test_env_errors),
		cmocka_unit_test(test_env_del_without_netns),
		cmocka_unit_test(test_config_defaults),
		cmocka_unit_test(test_config_every_field),
		cmocka_unit_test(test_config_errors),
		cmocka_unit_test(test_prev_result),
		cmocka_unit_test(test_route_plan),
		cmocka_unit_test(test_results),
		cmocka_unit_test(test_error_object),
		cmocka_unit_test(test_tmp_names),
		cmocka_unit_test(test_records),
		cmocka_unit_test(test_record_sweep),
		cmocka_unit_test(test_pin_dir_fallback),
		cmocka_unit_test(test_config_sriov),
	};

	rn_log_init("test_cni_parse", RN_LOG_ERROR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* A claim's opaque device configuration (dra/claim_config.c): the entries
 * of status.allocation.devices.config read as resource.k8s.io/v1 defines
 * them, rdmanet's NetworkConfig parameters, which entries apply to which
 * request (subrequests included), the precedence (class entries, then
 * claim entries, later over earlier, key by key), and one clear error for
 * every bad input. A table: each row a config list and, for the claim's
 * request "nic/a" (results[0]), the effective config or the error. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "dra/claim_config.h"
#include "dra/dra.h"

#define DRV "rdma.rdmanet.io"
#define ID "\"apiVersion\": \"rdma.rdmanet.io/v1alpha1\", \"kind\": \"NetworkConfig\""
/* an entry: source, requests (JSON), parameters (JSON object body) */
#define ENTRY(src, reqs, params) \
	"{\"source\": \"" src "\", \"requests\": " reqs ", \"opaque\": {\"driver\": \"" DRV \
	"\", \"parameters\": {" params "}}}"
#define CLASS(params) ENTRY("FromClass", "[]", ID ", " params)
#define CLAIM(params) ENTRY("FromClaim", "[]", ID ", " params)

struct row {
	const char *what;
	const char *config;	/* status.allocation.devices.config */
	const char *want;	/* results[0]'s config as a record says it ("null": none), or
				 * "!<part of the error>" */
};

static const struct row rows[] = {
	{ "no config: nothing set", "[]", "null" },
	{ "absent config list: nothing set", NULL, "null" },
	{ "a claim entry: its keys",
	  "[" CLAIM("\"mode\": \"ipvlan\", \"ipvlanMode\": \"l3\", \"dscp\": 26, "
		    "\"ippools\": {\"ipv4\": [\"a4\"], \"ipv6\": [\"a6\", \"b6\"]}") "]",
	  "{\"dscp\":26,\"ippools\":{\"ipv4\":[\"a4\"],\"ipv6\":[\"a6\",\"b6\"]},"
	  "\"ipvlanMode\":\"l3\",\"mode\":\"ipvlan\"}" },
	{ "class then claim: merged, the claim's key wins",
	  "[" CLASS("\"dscp\": 26, \"mode\": \"macvlan\"") ", "
	      CLAIM("\"mode\": \"ipvlan\", \"ippools\": {\"ipv4\": [\"x\"]}") "]",
	  "{\"dscp\":26,\"ippools\":{\"ipv4\":[\"x\"]},\"mode\":\"ipvlan\"}" },
	{ "a claim entry listed before a class entry still wins",
	  "[" CLAIM("\"dscp\": 10") ", " CLASS("\"dscp\": 26") "]", "{\"dscp\":10}" },
	{ "two claim entries: the later wins",
	  "[" CLAIM("\"dscp\": 10") ", " CLAIM("\"dscp\": 12") "]", "{\"dscp\":12}" },
	{ "two class entries: the later wins",
	  "[" CLASS("\"dscp\": 10") ", " CLASS("\"dscp\": 12") "]", "{\"dscp\":12}" },
	{ "ippools replaced whole, not merged by family",
	  "[" CLASS("\"ippools\": {\"ipv4\": [\"a\"], \"ipv6\": [\"b\"]}") ", "
	      CLAIM("\"ippools\": {\"ipv4\": [\"c\"]}") "]",
	  "{\"ippools\":{\"ipv4\":[\"c\"]}}" },
	{ "requests [\"nic\"]: applies to its subrequest nic/a",
	  "[" ENTRY("FromClaim", "[\"nic\"]", ID ", \"dscp\": 8") "]", "{\"dscp\":8}" },
	{ "requests [\"nic/a\"]: applies",
	  "[" ENTRY("FromClaim", "[\"nic/a\"]", ID ", \"dscp\": 8") "]", "{\"dscp\":8}" },
	{ "requests [\"nic/b\"]: another subrequest's, not applied",
	  "[" ENTRY("FromClaim", "[\"nic/b\"]", ID ", \"dscp\": 8") "]", "null" },
	{ "requests [\"ni\"]: a prefix is no request",
	  "[" ENTRY("FromClaim", "[\"ni\"]", ID ", \"dscp\": 8") "]", "null" },
	{ "requests [\"gpu\"]: another request's, not applied",
	  "[" ENTRY("FromClaim", "[\"gpu\"]", ID ", \"dscp\": 8") "]", "null" },
	{ "another driver's entry: its parameters are its own",
	  "[{\"source\": \"FromClaim\", \"opaque\": {\"driver\": \"gpu.example.com\", "
	  "\"parameters\": {\"sharing\": {\"strategy\": \"TimeSlicing\"}}}}]", "null" },
	{ "null keys are absent", "[" CLAIM("\"dscp\": null, \"mode\": null") "]", "null" },

	/* what the API server's validation refuses, whichever driver */
	{ "config not a list", "{}", "!status.allocation.devices.config: expected an array" },
	{ "an entry not an object", "[1]", "!config[0]: expected an object" },
	{ "no source", "[{\"opaque\": {\"driver\": \"x.io\", \"parameters\": {}}}]",
	  "!config[0].source: missing" },
	{ "source FromPod", "[" ENTRY("FromPod", "[]", ID) "]",
	  "!config[0].source: expected one of" },
	{ "an unknown key in an entry",
	  "[{\"source\": \"FromClaim\", \"opaque\": {\"driver\": \"x.io\", \"parameters\": {}}, "
	  "\"extra\": 1}]", "!config[0]: unknown key \"extra\"" },
	{ "requests not a list", "[" ENTRY("FromClaim", "\"nic\"", ID) "]",
	  "!config[0].requests: expected an array" },
	{ "a request not a string", "[" ENTRY("FromClaim", "[7]", ID) "]",
	  "!config[0].requests[0]: expected a request name" },
	{ "no opaque", "[{\"source\": \"FromClass\"}]", "!config[0].opaque: missing" },
	{ "opaque without driver", "[{\"source\": \"FromClass\", \"opaque\": {\"parameters\": {}}}]",
	  "!config[0].opaque.driver: missing" },
	{ "opaque without parameters", "[{\"source\": \"FromClass\", \"opaque\": {\"driver\": \"x.io\"}}]",
	  "!config[0].opaque.parameters: missing" },
	{ "parameters not an object",
	  "[{\"source\": \"FromClass\", \"opaque\": {\"driver\": \"x.io\", \"parameters\": [1]}}]",
	  "!config[0].opaque.parameters: expected an object" },

	/* rdmanet's parameters */
	{ "no apiVersion", "[" ENTRY("FromClaim", "[]", "\"kind\": \"NetworkConfig\"") "]",
	  "!config[0].opaque.parameters.apiVersion: missing, expected \"rdma.rdmanet.io/v1alpha1\" "
	  "(a FromClaim entry of driver rdma.rdmanet.io)" },
	{ "another apiVersion",
	  "[" ENTRY("FromClaim", "[]", "\"apiVersion\": \"rdma.rdmanet.io/v1\", \"kind\": "
		    "\"NetworkConfig\"") "]",
	  "!parameters.apiVersion: expected \"rdma.rdmanet.io/v1alpha1\"" },
	{ "another kind",
	  "[" ENTRY("FromClass", "[]", "\"apiVersion\": \"rdma.rdmanet.io/v1alpha1\", \"kind\": "
		    "\"GpuConfig\"") "]",
	  "!parameters.kind: expected \"NetworkConfig\" (a FromClass entry" },
	{ "an unknown key", "[" CLAIM("\"pools\": [\"x\"]") "]",
	  "!config[0].opaque.parameters: unknown key \"pools\"" },
	{ "mode sriov", "[" CLAIM("\"mode\": \"sriov\"") "]",
	  "!parameters.mode: expected one of" },
	{ "mode a number", "[" CLAIM("\"mode\": 1") "]", "!parameters.mode:" },
	{ "ipvlanMode l4", "[" CLAIM("\"ipvlanMode\": \"l4\"") "]",
	  "!parameters.ipvlanMode: expected one of" },
	{ "dscp 64", "[" CLAIM("\"dscp\": 64") "]", "!parameters.dscp: 64 is outside 0..63" },
	{ "dscp a string", "[" CLAIM("\"dscp\": \"26\"") "]",
	  "!parameters.dscp: expected an integer" },
	{ "ippools a list", "[" CLAIM("\"ippools\": [\"x\"]") "]",
	  "!parameters.ippools: expected an object" },
	{ "ippools.ipv4 a string", "[" CLAIM("\"ippools\": {\"ipv4\": \"x\"}") "]",
	  "!parameters.ippools.ipv4: expected an array of pool names" },
	{ "ippools.ipv5", "[" CLAIM("\"ippools\": {\"ipv5\": [\"x\"]}") "]",
	  "!parameters.ippools: unknown key \"ipv5\"" },
	{ "ippools naming no pool", "[" CLAIM("\"ippools\": {\"ipv4\": []}") "]",
	  "!parameters.ippools: lists no pool" },
	{ "an empty pool name", "[" CLAIM("\"ippools\": {\"ipv6\": [\"\"]}") "]",
	  "!parameters.ippools.ipv6[0]: expected a pool name" },
	{ "five pools", "[" CLAIM("\"ippools\": {\"ipv4\": [\"a\", \"b\", \"c\", \"d\", \"e\"]}") "]",
	  "!parameters.ippools.ipv4: more than 4 pools" },
	{ "a 64-character pool name",
	  "[" CLAIM("\"ippools\": {\"ipv4\": [\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"]}") "]",
	  "!parameters.ippools.ipv4[0]: expected a pool name (1..63 characters)" },
	{ "a bad entry of this driver for another request still fails the claim",
	  "[" CLAIM("\"dscp\": 26") ", " ENTRY("FromClaim", "[\"gpu\"]", ID ", \"dscp\": -1") "]",
	  "!config[1].opaque.parameters.dscp: -1 is outside 0..63" },
};

/* the claim: request nic/a (a subrequest) of this driver, gpu of another */
static json_t *claim_with(const char *config)
{
	char text[8192];
	json_error_t jerr;
	json_t *o;

	snprintf(text, sizeof(text),
		 "{\"metadata\": {\"namespace\": \"ns\", \"name\": \"c\", \"uid\": \"u-1\"}, "
		 "\"status\": {\"allocation\": {\"devices\": {\"results\": ["
		 "{\"request\": \"nic/a\", \"driver\": \"" DRV "\", \"pool\": \"n\", \"device\": \"d0\"}, "
		 "{\"request\": \"gpu\", \"driver\": \"gpu.example.com\", \"pool\": \"n\", \"device\": \"g\"}]"
		 "%s%s}}}}", config ? ", \"config\": " : "", config ? config : "");
	o = json_loads(text, 0, &jerr);
	if (!o)
		fail_msg("%s: %s", text, jerr.text);
	return o;
}

static void test_rows(void **state)
{
	struct rn_dra_claim *c = calloc(1, sizeof(*c));

	(void)state;
	assert_non_null(c);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *w = &rows[i];
		struct rn_dra_netconfig k;
		struct rn_error e = { 0 };
		json_t *o = claim_with(w->config), *got;
		char *text = NULL;
		int rc = rn_dra_claim_from_json(o, c, &e);

		json_decref(o);
		if (!rc)
			rc = rn_dra_claim_config(c, 0, DRV, &k, &e);
		if (w->want[0] == '!') {
			if (!rc || !strstr(e.msg, w->want + 1))
				fail_msg("%s: want an error with \"%s\", got %d \"%s\"", w->what,
					 w->want + 1, rc, e.msg);
			continue;
		}
		if (rc)
			fail_msg("%s: %s", w->what, e.msg);
		got = dra_netconfig_to_json(&k);
		text = got ? json_dumps(got, JSON_COMPACT | JSON_SORT_KEYS) : strdup("null");
		json_decref(got);
		if (strcmp(text, w->want))
			fail_msg("%s: got %s, want %s", w->what, text, w->want);
		free(text);
	}
	free(c);
}

/* more entries than resource.k8s.io allows (2 * DeviceConfigMaxSize) */
static void test_too_many(void **state)
{
	struct rn_dra_claim *c = calloc(1, sizeof(*c));
	struct rn_error e = { 0 };
	json_t *o = claim_with("[]"), *list;

	(void)state;
	list = json_object_get(json_object_get(json_object_get(json_object_get(o, "status"),
						"allocation"), "devices"), "config");
	for (int i = 0; i < RN_DRA_MAX_CONFIGS; i++)
		json_array_append_new(list, json_loads(CLAIM("\"dscp\": 1"), 0, NULL));
	assert_int_equal(rn_dra_claim_from_json(o, c, &e), 0);
	assert_int_equal(c->n_configs, 64);
	json_array_append_new(list, json_loads(CLAIM("\"dscp\": 1"), 0, NULL));
	assert_int_not_equal(rn_dra_claim_from_json(o, c, &e), 0);
	assert_non_null(strstr(e.msg, "status.allocation.devices.config: more than 64"));
	json_decref(o);
	free(c);
}

/* a prepared record's "config": what to_json writes, from_json reads back
 * the same; the parameters' identity does not belong there */
static void test_record(void **state)
{
	struct rn_dra_netconfig k, back;
	struct rn_error e = { 0 };
	json_t *o = json_loads("{\"mode\": \"macvlan\", \"dscp\": 0, \"ippools\": "
			       "{\"ipv6\": [\"v6\"]}}", 0, NULL), *again;

	(void)state;
	assert_int_equal(dra_netconfig_from_json(o, false, &k, "config", &e), 0);
	assert_true(k.has_dscp);
	assert_int_equal(k.dscp, 0);
	again = dra_netconfig_to_json(&k);
	assert_true(json_equal(o, again));
	assert_int_equal(dra_netconfig_from_json(again, false, &back, "config", &e), 0);
	assert_memory_equal(&k, &back, sizeof(k));
	json_decref(again);
	json_object_set_new(o, "apiVersion", json_string(RN_DRA_PARAMS_API_VERSION));
	assert_int_not_equal(dra_netconfig_from_json(o, false, &k, "config", &e), 0);
	assert_non_null(strstr(e.msg, "config: unknown key \"apiVersion\""));
	json_decref(o);
	memset(&k, 0, sizeof(k));
	assert_null(dra_netconfig_to_json(&k));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_too_many),
		cmocka_unit_test(test_record),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

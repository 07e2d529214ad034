// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* libFuzzer: decoding of etcd gateway answers (range and txn answers,
 * error objects, base64 fields) and of the store's address keys: what a
 * misbehaving or hostile endpoint can send must never crash the IPAM. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base64.h"
#include "ipam/etcd_client.h"
#include "ipam/etcd_keys.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rn_etcd_range r, res[4];
	struct rn_error e = { 0 };
	char pool[RN_POOL_NAME_MAX], *s = malloc(size + 1), *dec;
	struct rn_addr a;
	size_t len;
	bool ok;
	json_t *v;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	dec = rn_base64_decode(s, &len);
	if (dec) {
		char *enc = rn_base64_encode(dec, len);

		/* canonical input decodes and encodes back to itself */
		if (!enc || (strlen(enc) == strlen(s) && strcmp(enc, s) &&
			     !strchr(s, '=')))
			abort();
		free(enc);
		free(dec);
	}
	rn_etcd_parse_ip_key(s, "/rdmanet", pool, sizeof(pool), &a);
	v = json_loads(s, 0, NULL);
	if (v) {
		if (!rn_etcd_parse_range(v, &r, &e)) {
			for (size_t i = 0; i < r.n; i++)
				if (!r.kvs[i].key || strlen(r.kvs[i].key) > r.kvs[i].key_len)
					abort();
			rn_etcd_range_free(&r);
		}
		if (!rn_etcd_parse_txn(v, &ok, res, 4, &e))
			for (int i = 0; i < 4; i++)
				rn_etcd_range_free(&res[i]);
		rn_etcd_error_is_transient(v);
		json_decref(v);
	}
	free(s);
	return 0;
}

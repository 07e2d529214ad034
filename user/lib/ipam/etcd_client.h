/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* An etcd v3 client over etcd's JSON gateway (POST /v3/kv/range, /v3/kv/txn;
 * etcd 3.4 serves it under /v3/), with libcurl and jansson.
 *
 * Endpoints are tried in turn: a connection error, a timeout or an etcd
 * "unavailable" answer (no leader, leader changed, request timed out) moves
 * to the next endpoint, and the endpoint that answered is kept for the next
 * request. Every call is bounded by the deadline set with rn_etcd_deadline:
 * past it the call fails with -EAGAIN ("try again later"). Retrying a write
 * on another endpoint is safe because every write the store makes is a
 * compare-and-swap transaction: one that was applied before its answer was
 * lost fails its compare on the retry, and the caller re-reads. */
#ifndef RDMANET_IPAM_ETCD_CLIENT_H
#define RDMANET_IPAM_ETCD_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

#include "error.h"
#include "ipam/ipam_settings.h"

struct rn_etcd;

struct rn_etcd_kv {
	char *key;			/* NUL-terminated */
	size_t key_len;
	char *value;			/* NUL-terminated, NULL with keys_only */
	size_t value_len;
	long long create_revision;
	long long mod_revision;
};

struct rn_etcd_range {
	struct rn_etcd_kv *kvs;
	size_t n;
	bool more;			/* the limit cut the result short */
	long long count;		/* keys in the range (all of them, not only n) */
	long long revision;		/* store revision the answer reflects */
};

int rn_etcd_open(struct rn_etcd **out, const struct rn_ipam_settings *st, struct rn_error *e);
void rn_etcd_close(struct rn_etcd *c);
/* Starts an operation: calls until the next rn_etcd_deadline must finish
 * within st->timeout_ms. */
void rn_etcd_deadline(struct rn_etcd *c);
bool rn_etcd_expired(const struct rn_etcd *c);

/* One range request. limit 0: no limit. */
int rn_etcd_get(struct rn_etcd *c, const char *key, const char *range_end, long long limit,
		bool keys_only, bool count_only, struct rn_etcd_range *out, struct rn_error *e);
/* Every key of [start, end), in pages of RN_ETCD_PAGE keys (no answer
 * grows with the store); out->revision is the first page's (a compare
 * against it also fails on what changed while the later pages were read).
 * Keys must hold no byte below 0x21 (the store's never do). */
#define RN_ETCD_PAGE	1000
int rn_etcd_get_all(struct rn_etcd *c, const char *start, const char *end, bool keys_only,
		    struct rn_etcd_range *out, struct rn_error *e);
/* Every key that starts with prefix, as rn_etcd_get_all. */
int rn_etcd_get_prefix(struct rn_etcd *c, const char *prefix, bool keys_only,
		       struct rn_etcd_range *out, struct rn_error *e);
/* Requests this handle made (one per call, however many endpoints it
 * tried) and keys its range reads received, since it was opened: what a
 * piece of work cost etcd (tests, the bench). */
void rn_etcd_counts(const struct rn_etcd *c, long long *requests, long long *keys);
/* A transaction. compare/success/failure are arrays of the ops below
 * (consumed; NULL for none). Range results of the branch taken land in
 * results[i] for op i (other ops leave theirs empty); n_results may be
 * smaller than the branch. */
int rn_etcd_txn(struct rn_etcd *c, json_t *compare, json_t *success, json_t *failure,
		bool *succeeded, struct rn_etcd_range *results, size_t n_results,
		struct rn_error *e);
/* The same, also giving the store revision of the answer (for a
 * transaction that wrote: the revision its writes got). */
int rn_etcd_txn_rev(struct rn_etcd *c, json_t *compare, json_t *success, json_t *failure,
		    bool *succeeded, struct rn_etcd_range *results, size_t n_results,
		    long long *revision, struct rn_error *e);
void rn_etcd_range_free(struct rn_etcd_range *r);
/* Any other request of the gateway (path under /v3/, e.g. "lease/grant"),
 * with the same failover and bound; *resp is the answer (json_decref it). */
int rn_etcd_post(struct rn_etcd *c, const char *path, json_t *body, json_t **resp,
		 struct rn_error *e);

/* Compare and request ops for rn_etcd_txn. */
json_t *rn_etcd_cmp_create(const char *key, long long rev);	/* create_revision == rev */
json_t *rn_etcd_cmp_mod(const char *key, long long rev);	/* mod_revision == rev */
/* every key in [key, range_end) has mod_revision < rev: nothing in the
 * range changed after rev - 1 (deletions aside) */
json_t *rn_etcd_cmp_mod_range_less(const char *key, const char *range_end, long long rev);
json_t *rn_etcd_op_range(const char *key, const char *range_end, long long limit,
			 bool keys_only, bool count_only);
/* The body of a plain range request (POST /v3/kv/range). */
json_t *rn_etcd_range_body(const char *key, const char *range_end, long long limit,
			   bool keys_only, bool count_only);
json_t *rn_etcd_op_put(const char *key, const char *value);
/* A put whose key goes when the lease does. */
json_t *rn_etcd_op_put_lease(const char *key, const char *value, long long lease);
/* An int64 of an answer: the gateway writes them as strings; 0 if absent. */
long long rn_etcd_int64(json_t *v);
json_t *rn_etcd_op_delete(const char *key, const char *range_end);

/* The end of the range holding every key that starts with prefix. */
char *rn_etcd_prefix_end(const char *prefix);

/* Decoding of gateway answers (exposed for the fuzzer). */
int rn_etcd_parse_range(json_t *resp, struct rn_etcd_range *out, struct rn_error *e);
int rn_etcd_parse_txn(json_t *resp, bool *succeeded, struct rn_etcd_range *results,
		      size_t n_results, struct rn_error *e);
/* header.revision of an answer, 0 if absent or malformed. */
long long rn_etcd_header_revision(json_t *resp);
/* An error answer {"error", "code", "message"}: true if another endpoint
 * or a later try may succeed (unavailable, no leader, timeouts). */
bool rn_etcd_error_is_transient(json_t *resp);

#endif

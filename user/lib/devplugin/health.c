// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The device plugin's health as the agent's probes see it: published by
 * the server thread at each housekeeping pass (every TICK_MS at most), read
 * by the main thread without a lock. */
#include "devplugin.h"
#include "grpc_internal.h"

static long long now_ms(void)
{
	return (long long)(dp_now() * 1000);
}

void dp_health_publish(struct dp_server *s)
{
	int unservable = 0, served = 0, registered = 0;

	for (int i = 0; i < s->n_res; i++) {
		const struct dp_res *r = &s->res[i];

		unservable += r->unservable;
		if (r->ep.state != RN_GRPC_SRV_UP)
			continue;
		served++;
		/* with the plugin watcher kubelet says so (NotifyRegistrationStatus);
		 * without it, our Register call succeeded */
		registered += s->watcher ? r->registrations > 0 : r->reg == DP_REG_DONE;
	}
	atomic_store(&s->health.resources, s->n_res);
	atomic_store(&s->health.unservable, unservable);
	atomic_store(&s->health.served, served);
	atomic_store(&s->health.registered, registered);
	atomic_store(&s->health.beat_ms, now_ms());
}

void rn_dp_health(struct rn_dp_server *s, struct rn_dp_health *h)
{
	struct dp_server *srv = (struct dp_server *)s;

	long long beat = atomic_load(&srv->health.beat_ms);

	h->beat_age_ms = beat ? now_ms() - beat : -1;
	h->resources = atomic_load(&srv->health.resources);
	h->unservable = atomic_load(&srv->health.unservable);
	h->served = atomic_load(&srv->health.served);
	h->registered = atomic_load(&srv->health.registered);
}

/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* gRPC core, loaded with dlopen when a device plugin is configured: an
 * agent without one never maps libgrpc and its C++ dependencies (about
 * 5 MiB of resident pages and their start-up constructors on every node).
 * Include after the gRPC headers; every gRPC function the module calls is
 * named here and goes through the table rn_dp_grpc_load() fills. */
#ifndef RDMANET_DEVPLUGIN_GRPC_DL_H
#define RDMANET_DEVPLUGIN_GRPC_DL_H

#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/byte_buffer_reader.h>
#include <grpc/slice.h>
#include <grpc/support/time.h>

#include "error.h"

#define DP_GRPC_FUNCS(X) \
	X(gpr_inf_future) \
	X(gpr_now) \
	X(gpr_time_add) \
	X(gpr_time_from_millis) \
	X(grpc_byte_buffer_destroy) \
	X(grpc_byte_buffer_reader_destroy) \
	X(grpc_byte_buffer_reader_init) \
	X(grpc_byte_buffer_reader_readall) \
	X(grpc_call_cancel) \
	X(grpc_call_details_destroy) \
	X(grpc_call_details_init) \
	X(grpc_call_start_batch) \
	X(grpc_call_unref) \
	X(grpc_channel_create) \
	X(grpc_channel_create_call) \
	X(grpc_channel_credentials_release) \
	X(grpc_channel_destroy) \
	X(grpc_completion_queue_create_for_next) \
	X(grpc_completion_queue_destroy) \
	X(grpc_completion_queue_next) \
	X(grpc_completion_queue_shutdown) \
	X(grpc_empty_slice) \
	X(grpc_init) \
	X(grpc_insecure_credentials_create) \
	X(grpc_insecure_server_credentials_create) \
	X(grpc_metadata_array_destroy) \
	X(grpc_metadata_array_init) \
	X(grpc_raw_byte_buffer_create) \
	X(grpc_server_add_http2_port) \
	X(grpc_server_cancel_all_calls) \
	X(grpc_server_create) \
	X(grpc_server_credentials_release) \
	X(grpc_server_destroy) \
	X(grpc_server_register_completion_queue) \
	X(grpc_server_request_call) \
	X(grpc_server_shutdown_and_notify) \
	X(grpc_server_start) \
	X(grpc_shutdown) \
	X(grpc_slice_from_copied_string) \
	X(grpc_slice_from_static_string) \
	X(grpc_slice_malloc) \
	X(grpc_slice_str_cmp) \
	X(grpc_slice_unref) \

struct dp_grpc_api {
#define DP_GRPC_PTR(f) __typeof__(f) *f;
	DP_GRPC_FUNCS(DP_GRPC_PTR)
#undef DP_GRPC_PTR
};
extern struct dp_grpc_api dp_grpc;

/* Loads libgrpc and libgpr (their sonames from the build) once; fails
 * naming the library or the symbol. */
int dp_grpc_load(struct rn_error *e);

#ifndef DP_GRPC_DL_IMPL
#define gpr_inf_future (*dp_grpc.gpr_inf_future)
#define gpr_now (*dp_grpc.gpr_now)
#define gpr_time_add (*dp_grpc.gpr_time_add)
#define gpr_time_from_millis (*dp_grpc.gpr_time_from_millis)
#define grpc_byte_buffer_destroy (*dp_grpc.grpc_byte_buffer_destroy)
#define grpc_byte_buffer_reader_destroy (*dp_grpc.grpc_byte_buffer_reader_destroy)
#define grpc_byte_buffer_reader_init (*dp_grpc.grpc_byte_buffer_reader_init)
#define grpc_byte_buffer_reader_readall (*dp_grpc.grpc_byte_buffer_reader_readall)
#define grpc_call_cancel (*dp_grpc.grpc_call_cancel)
#define grpc_call_details_destroy (*dp_grpc.grpc_call_details_destroy)
#define grpc_call_details_init (*dp_grpc.grpc_call_details_init)
#define grpc_call_start_batch (*dp_grpc.grpc_call_start_batch)
#define grpc_call_unref (*dp_grpc.grpc_call_unref)
#define grpc_channel_create (*dp_grpc.grpc_channel_create)
#define grpc_channel_create_call (*dp_grpc.grpc_channel_create_call)
#define grpc_channel_credentials_release (*dp_grpc.grpc_channel_credentials_release)
#define grpc_channel_destroy (*dp_grpc.grpc_channel_destroy)
#define grpc_completion_queue_create_for_next (*dp_grpc.grpc_completion_queue_create_for_next)
#define grpc_completion_queue_destroy (*dp_grpc.grpc_completion_queue_destroy)
#define grpc_completion_queue_next (*dp_grpc.grpc_completion_queue_next)
#define grpc_completion_queue_shutdown (*dp_grpc.grpc_completion_queue_shutdown)
#define grpc_empty_slice (*dp_grpc.grpc_empty_slice)
#define grpc_init (*dp_grpc.grpc_init)
#define grpc_insecure_credentials_create (*dp_grpc.grpc_insecure_credentials_create)
#define grpc_insecure_server_credentials_create (*dp_grpc.grpc_insecure_server_credentials_create)
#define grpc_metadata_array_destroy (*dp_grpc.grpc_metadata_array_destroy)
#define grpc_metadata_array_init (*dp_grpc.grpc_metadata_array_init)
#define grpc_raw_byte_buffer_create (*dp_grpc.grpc_raw_byte_buffer_create)
#define grpc_server_add_http2_port (*dp_grpc.grpc_server_add_http2_port)
#define grpc_server_cancel_all_calls (*dp_grpc.grpc_server_cancel_all_calls)
#define grpc_server_create (*dp_grpc.grpc_server_create)
#define grpc_server_credentials_release (*dp_grpc.grpc_server_credentials_release)
#define grpc_server_destroy (*dp_grpc.grpc_server_destroy)
#define grpc_server_register_completion_queue (*dp_grpc.grpc_server_register_completion_queue)
#define grpc_server_request_call (*dp_grpc.grpc_server_request_call)
#define grpc_server_shutdown_and_notify (*dp_grpc.grpc_server_shutdown_and_notify)
#define grpc_server_start (*dp_grpc.grpc_server_start)
#define grpc_shutdown (*dp_grpc.grpc_shutdown)
#define grpc_slice_from_copied_string (*dp_grpc.grpc_slice_from_copied_string)
#define grpc_slice_from_static_string (*dp_grpc.grpc_slice_from_static_string)
#define grpc_slice_malloc (*dp_grpc.grpc_slice_malloc)
#define grpc_slice_str_cmp (*dp_grpc.grpc_slice_str_cmp)
#define grpc_slice_unref (*dp_grpc.grpc_slice_unref)
#endif

#endif

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* protobuf-c messages in and out of gRPC byte buffers. gRPC frames the
 * messages; protobuf-c encodes them. */
#include <grpc/byte_buffer_reader.h>

#include "grpcrt/grpcrt.h"

grpc_byte_buffer *rn_grpc_pb_pack(const ProtobufCMessage *msg)
{
	size_t n = protobuf_c_message_get_packed_size(msg);
	grpc_slice s = grpc_slice_malloc(n);
	grpc_byte_buffer *bb;

	protobuf_c_message_pack(msg, GRPC_SLICE_START_PTR(s));
	bb = grpc_raw_byte_buffer_create(&s, 1);
	grpc_slice_unref(s);
	return bb;
}

ProtobufCMessage *rn_grpc_pb_unpack(const ProtobufCMessageDescriptor *d, grpc_byte_buffer *bb)
{
	grpc_byte_buffer_reader rd;
	ProtobufCMessage *msg;
	grpc_slice s;

	if (!bb)	/* the peer half-closed without a message */
		return NULL;
	if (!grpc_byte_buffer_reader_init(&rd, bb))
		return NULL;
	s = grpc_byte_buffer_reader_readall(&rd);
	grpc_byte_buffer_reader_destroy(&rd);
	msg = protobuf_c_message_unpack(d, NULL, GRPC_SLICE_LENGTH(s), GRPC_SLICE_START_PTR(s));
	grpc_slice_unref(s);
	return msg;
}

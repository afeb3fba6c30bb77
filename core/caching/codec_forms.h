#pragma once
// The record forms behind Codec (caching/codec.h), one file each: JSON text (json_form.cpp) and
// MessagePack (msgpack_form.cpp). Internal to the caching library: use Codec.
#include <string>
#include <string_view>

#include "caching/records.h"

namespace perflab::caching::forms {

// JSON text: objects with the fields' names ({"key": …, "body": …}); a list is
// {"group_id": …, "comments": [ … ]}; a query result {"key": …, "columns": [ … ], "rows":
// [[value or null, …], …]}. Every field is required; unknown fields are refused.
std::string json_encode(const Document& d);
std::string json_encode(const Comment& c);
std::string json_encode(const CommentList& l);
Document json_decode_document(std::string_view bytes);
Comment json_decode_comment(std::string_view bytes);
CommentList json_decode_list(std::string_view bytes);
std::string json_encode(const QueryResult& r);
QueryResult json_decode_result(std::string_view bytes);

// MessagePack: each record an array of its fields in declaration order (records.h); a list is
// [group_id, [comment, …]]; a query result [key, [column, …], [[value or nil, …], …]].
std::string msgpack_encode(const Document& d);
std::string msgpack_encode(const Comment& c);
std::string msgpack_encode(const CommentList& l);
Document msgpack_decode_document(std::string_view bytes);
Comment msgpack_decode_comment(std::string_view bytes);
CommentList msgpack_decode_list(std::string_view bytes);
std::string msgpack_encode(const QueryResult& r);
QueryResult msgpack_decode_result(std::string_view bytes);

}  // namespace perflab::caching::forms

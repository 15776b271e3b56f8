// SPDX-License-Identifier: Apache-2.0
// libchakra views -> the protobuf messages that protoc generates from
// Chakra's et_def.proto (ChakraProtoMsg::Node, AttributeProto,
// GlobalMetadata), for code that already speaks those types.
//
// Templates over the message types, so this header needs no protobuf
// header of its own: instantiate them where et_def.pb.h is included.
// libchakra itself never links protobuf.
//
//   #include "et_def.pb.h"
//   #include <chakra/protobuf.hpp>
//   ChakraProtoMsg::Node msg;
//   chakra::to_protobuf(view, &msg);
//
// Every field is carried over: id, name, type (also values outside the
// enum), both dependency lists as written (order and repeats kept), start
// time, duration, inputs / outputs when present, and each attribute with
// its name, doc string and value of the same oneof kind (empty lists stay
// present, an attribute without a value stays without one). Parsing the
// node's bytes with protobuf gives an equal message.
#ifndef CHAKRA_PROTOBUF_HPP
#define CHAKRA_PROTOBUF_HPP

#include <chakra/chakra.hpp>

#include <string>

namespace chakra {

namespace detail {
template <class T, class List>
void fill_list(const attr& a, List* list) {
  size_t n = a.size();
  list->mutable_values()->Reserve(static_cast<int>(n));
  for (size_t i = 0; i < n; i++) {
    if constexpr (std::is_same_v<T, std::string>)
      list->add_values(std::string(a.at<std::string_view>(i)));
    else
      list->add_values(a.at<T>(i));
  }
}

template <class IoMsg>
void fill_io(const node_view& n, chakra_io which, IoMsg* io) {
  io->set_values(std::string(n.io(which, CHAKRA_IO_VALUES)));
  io->set_shapes(std::string(n.io(which, CHAKRA_IO_SHAPES)));
  io->set_types(std::string(n.io(which, CHAKRA_IO_TYPES)));
}
}  // namespace detail

template <class AttrMsg>
void to_protobuf(const attr& a, AttrMsg* m) {
  m->set_name(std::string(a.name()));
  std::string_view doc = a.doc();
  if (!doc.empty())
    m->set_doc_string(std::string(doc));
  switch (a.kind()) {
    case CHAKRA_ATTR_NONE: break;
    case CHAKRA_ATTR_DOUBLE: m->set_double_val(a.as<double>()); break;
    case CHAKRA_ATTR_FLOAT: m->set_float_val(a.as<float>()); break;
    case CHAKRA_ATTR_INT32: m->set_int32_val(a.as<int32_t>()); break;
    case CHAKRA_ATTR_INT64: m->set_int64_val(a.as<int64_t>()); break;
    case CHAKRA_ATTR_UINT32: m->set_uint32_val(a.as<uint32_t>()); break;
    case CHAKRA_ATTR_UINT64: m->set_uint64_val(a.as<uint64_t>()); break;
    case CHAKRA_ATTR_SINT32: m->set_sint32_val(a.as<int32_t>()); break;
    case CHAKRA_ATTR_SINT64: m->set_sint64_val(a.as<int64_t>()); break;
    case CHAKRA_ATTR_FIXED32: m->set_fixed32_val(a.as<uint32_t>()); break;
    case CHAKRA_ATTR_FIXED64: m->set_fixed64_val(a.as<uint64_t>()); break;
    case CHAKRA_ATTR_SFIXED32: m->set_sfixed32_val(a.as<int32_t>()); break;
    case CHAKRA_ATTR_SFIXED64: m->set_sfixed64_val(a.as<int64_t>()); break;
    case CHAKRA_ATTR_BOOL: m->set_bool_val(a.as<bool>()); break;
    case CHAKRA_ATTR_STRING: m->set_string_val(std::string(a.as<std::string_view>())); break;
    case CHAKRA_ATTR_BYTES: m->set_bytes_val(std::string(a.as<std::string_view>())); break;
    case CHAKRA_ATTR_DOUBLE_LIST: detail::fill_list<double>(a, m->mutable_double_list()); break;
    case CHAKRA_ATTR_FLOAT_LIST: detail::fill_list<float>(a, m->mutable_float_list()); break;
    case CHAKRA_ATTR_INT32_LIST: detail::fill_list<int32_t>(a, m->mutable_int32_list()); break;
    case CHAKRA_ATTR_INT64_LIST: detail::fill_list<int64_t>(a, m->mutable_int64_list()); break;
    case CHAKRA_ATTR_UINT32_LIST: detail::fill_list<uint32_t>(a, m->mutable_uint32_list()); break;
    case CHAKRA_ATTR_UINT64_LIST: detail::fill_list<uint64_t>(a, m->mutable_uint64_list()); break;
    case CHAKRA_ATTR_SINT32_LIST: detail::fill_list<int32_t>(a, m->mutable_sint32_list()); break;
    case CHAKRA_ATTR_SINT64_LIST: detail::fill_list<int64_t>(a, m->mutable_sint64_list()); break;
    case CHAKRA_ATTR_FIXED32_LIST: detail::fill_list<uint32_t>(a, m->mutable_fixed32_list()); break;
    case CHAKRA_ATTR_FIXED64_LIST: detail::fill_list<uint64_t>(a, m->mutable_fixed64_list()); break;
    case CHAKRA_ATTR_SFIXED32_LIST: detail::fill_list<int32_t>(a, m->mutable_sfixed32_list()); break;
    case CHAKRA_ATTR_SFIXED64_LIST: detail::fill_list<int64_t>(a, m->mutable_sfixed64_list()); break;
    case CHAKRA_ATTR_BOOL_LIST: detail::fill_list<bool>(a, m->mutable_bool_list()); break;
    case CHAKRA_ATTR_STRING_LIST: detail::fill_list<std::string>(a, m->mutable_string_list()); break;
    case CHAKRA_ATTR_BYTES_LIST: detail::fill_list<std::string>(a, m->mutable_bytes_list()); break;
    default: break;
  }
}

template <class NodeMsg>
void to_protobuf(const node_view& n, NodeMsg* m) {
  m->set_id(n.id());
  m->set_name(std::string(n.name()));
  m->set_type(static_cast<decltype(m->type())>(n.type_value()));
  span<uint64_t> ctrl = n.ctrl_deps(), data = n.data_deps();
  m->mutable_ctrl_deps()->Reserve(static_cast<int>(ctrl.size()));
  for (uint64_t p : ctrl)
    m->add_ctrl_deps(p);
  m->mutable_data_deps()->Reserve(static_cast<int>(data.size()));
  for (uint64_t p : data)
    m->add_data_deps(p);
  m->set_start_time_micros(n.start_time_micros());
  m->set_duration_micros(n.duration_micros());
  if (n.has_inputs())
    detail::fill_io(n, CHAKRA_IO_INPUTS, m->mutable_inputs());
  if (n.has_outputs())
    detail::fill_io(n, CHAKRA_IO_OUTPUTS, m->mutable_outputs());
  node_attrs attrs = n.attrs();
  m->mutable_attr()->Reserve(static_cast<int>(attrs.size()));
  for (attr a : attrs)
    to_protobuf(a, m->add_attr());
}

template <class MetaMsg>
void to_protobuf(const metadata_view& v, MetaMsg* m) {
  m->set_version(std::string(v.version()));
  for (attr a : v.attrs())
    to_protobuf(a, m->add_attr());
}

}  // namespace chakra

#endif

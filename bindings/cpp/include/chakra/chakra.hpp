// SPDX-License-Identifier: Apache-2.0
// libchakra for C++17: RAII handles and views over the C API, header-only.
//
//   chakra::reader r("trace.0.et.gz");
//   for (chakra::node_view n : r)                       // throws chakra::error
//       if (auto size = n.get_if<uint64_t>("comm_size"))
//           std::cout << n.id() << ' ' << n.name() << ' ' << *size << '\n';
//
//   chakra::feeder f("wl.0.et", {chakra::deps::both});
//   while (auto n = f.next()) { simulate(*n); f.complete(n->id()); }
//
// Errors are exceptions: chakra::error (a std::runtime_error) carries the
// C error code and the library's message ("FILE: byte N: ... : what").
// Views (node_view, attr, metadata_view) are pointers into memory the
// producing handle owns, valid as the C API documents (reader: until the
// next node; feeder: until the node is completed). Link with libchakra:
// c++ -std=c++17 prog.cpp $(pkg-config --cflags --libs chakra). See
// docs/embedding.md.
#ifndef CHAKRA_CHAKRA_HPP
#define CHAKRA_CHAKRA_HPP

#include <chakra/chakra.h>

#include <cstddef>
#include <cstdio>
#include <cstdint>
#include <exception>
#include <functional>
#include <iterator>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace chakra {

// ---- Errors ----
class error : public std::runtime_error {
 public:
  error(int code, const std::string& what) : std::runtime_error(what), code_(code) {}
  // The chakra_error value (negative), and its name ("CHAKRA_EDEP").
  int code() const noexcept { return code_; }
  const char* name() const noexcept { return chakra_err_name(code_); }

 private:
  int code_;
};

namespace detail {
template <class>
inline constexpr bool always_false = false;

inline std::string_view sv(const char* s, size_t len) {
  return s ? std::string_view(s, len) : std::string_view();
}

[[noreturn]] inline void fail(int code, const std::string& msg) {
  throw error(code, msg.empty() ? std::string(chakra_strerror(code)) : msg);
}

inline std::string describe(int code, std::string_view what) {
  std::string s(what);
  s += ": ";
  s += chakra_strerror(code);
  return s;
}

// A rank's trace through a rank map (docs/feeder.md): PREFIX.R.et (or
// .et.gz) that does not exist, with PREFIX.ranks beside it, is rank R's
// class file read with R's substitution. Simulators that open PREFIX.R.et
// per rank (ASTRA-sim) then run a map unchanged.
struct rank_target {
  chakra_rank_map* map = nullptr;
  std::string file;
  chakra_rank_subst subst{};
  rank_target() = default;
  rank_target(const rank_target&) = delete;
  rank_target& operator=(const rank_target&) = delete;
  ~rank_target() { chakra_rank_map_free(map); }
};

inline bool file_exists(const std::string& p) {
  if (std::FILE* f = std::fopen(p.c_str(), "rb")) {
    std::fclose(f);
    return true;
  }
  return false;
}

// true, with t filled, when path is such a rank; a broken map throws.
inline bool rank_map_target(const std::string& path, rank_target& t) {
  if (file_exists(path))
    return false;
  std::string p = path;
  auto cut = [&p](const char* suffix) {
    size_t n = std::char_traits<char>::length(suffix);
    if (p.size() < n || p.compare(p.size() - n, n, suffix) != 0)
      return false;
    p.resize(p.size() - n);
    return true;
  };
  cut(".gz");
  if (!cut(".et"))
    return false;
  size_t dot = p.rfind('.');
  if (dot == std::string::npos || dot + 1 == p.size() || p.size() - dot - 1 > 9 ||
      p.find_first_not_of("0123456789", dot + 1) != std::string::npos)
    return false;
  uint32_t rank = static_cast<uint32_t>(std::stoul(p.substr(dot + 1)));
  std::string map = p.substr(0, dot) + ".ranks";
  if (!file_exists(map))
    return false;
  char err[1024];
  int rc = chakra_rank_map_load(&t.map, map.c_str(), err, sizeof err);
  if (rc < 0)
    fail(rc, err);
  if (rank >= chakra_rank_map_ranks(t.map))
    fail(CHAKRA_ENOTFOUND, path + ": no such file, and " + map + " has " +
                               std::to_string(chakra_rank_map_ranks(t.map)) + " ranks");
  t.file = chakra_rank_map_file(t.map, chakra_rank_map_class(t.map, rank));
  chakra_rank_map_subst(t.map, rank, &t.subst);
  return true;
}
}  // namespace detail

// ---- Enums (the same values as the C enums) ----
enum class node_type : int {
  invalid = CHAKRA_INVALID_NODE,
  metadata = CHAKRA_METADATA_NODE,
  mem_load = CHAKRA_MEM_LOAD_NODE,
  mem_store = CHAKRA_MEM_STORE_NODE,
  comp = CHAKRA_COMP_NODE,
  comm_send = CHAKRA_COMM_SEND_NODE,
  comm_recv = CHAKRA_COMM_RECV_NODE,
  comm_coll = CHAKRA_COMM_COLL_NODE
};

enum class comm_type : int {
  all_reduce = CHAKRA_ALL_REDUCE,
  reduce = CHAKRA_REDUCE,
  all_gather = CHAKRA_ALL_GATHER,
  gather = CHAKRA_GATHER,
  scatter = CHAKRA_SCATTER,
  broadcast = CHAKRA_BROADCAST,
  all_to_all = CHAKRA_ALL_TO_ALL,
  reduce_scatter = CHAKRA_REDUCE_SCATTER,
  reduce_scatter_block = CHAKRA_REDUCE_SCATTER_BLOCK,
  barrier = CHAKRA_BARRIER
};

// Attribute kinds are the AttributeProto oneof field numbers.
using attr_kind = chakra_attr_kind;

enum class deps : int { data = CHAKRA_DEPS_DATA, ctrl = CHAKRA_DEPS_CTRL, both = CHAKRA_DEPS_BOTH };
enum class order : int { id = CHAKRA_ORDER_ID, file = CHAKRA_ORDER_FILE };

// "COMP_NODE", "ALL_REDUCE", "int64", ...; empty for values outside the enums.
inline std::string_view type_name(node_type t) {
  const char* s = chakra_node_type_name(static_cast<int>(t));
  return s ? s : "";
}
inline std::string_view type_name(comm_type t) {
  const char* s = chakra_comm_type_name(static_cast<int>(t));
  return s ? s : "";
}
inline std::string_view kind_name(attr_kind k) {
  const char* s = chakra_attr_kind_name(static_cast<int>(k));
  return s ? s : "";
}
inline std::string_view version() { return chakra_version_string(); }

// A contiguous read-only sequence (dependency lists).
template <class T>
class span {
 public:
  span() = default;
  span(const T* p, size_t n) : p_(p), n_(n) {}
  const T* begin() const { return p_; }
  const T* end() const { return p_ + n_; }
  const T* data() const { return p_; }
  size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  const T& operator[](size_t i) const { return p_[i]; }

 private:
  const T* p_ = nullptr;
  size_t n_ = 0;
};

// ---- Attributes ----
//
// Conversions are libchakra's (node.h): integer targets accept every
// integer kind and bool, with a range check against T; floating targets
// accept double, float and integer kinds; bool accepts bool and integer
// kinds; std::string / std::string_view accept string and bytes. Anything
// else throws chakra::error with CHAKRA_ETYPE or CHAKRA_ERANGE.
class attr {
 public:
  explicit attr(const chakra_attr* a) : a_(a) {}

  std::string_view name() const {
    size_t n = 0;
    const char* s = chakra_attr_name(a_, &n);
    return detail::sv(s, n);
  }
  std::string_view doc() const {
    size_t n = 0;
    const char* s = chakra_attr_doc(a_, &n);
    return detail::sv(s, n);
  }
  attr_kind kind() const { return chakra_attr_kind_of(a_); }
  bool has_value() const { return kind() != CHAKRA_ATTR_NONE; }
  bool is_list() const { return chakra_attr_is_list(a_) != 0; }
  // Elements of a list (0 for scalars).
  size_t size() const { return chakra_attr_list_len(a_); }

  template <class T>
  T as() const {
    T out{};
    int rc = convert(&out);
    if (rc < 0)
      detail::fail(rc, message(rc));
    return out;
  }
  template <class T>
  std::optional<T> as_if() const noexcept {
    T out{};
    if (convert(&out) < 0)
      return std::nullopt;
    return out;
  }
  // Element i of a list, with the same conversions.
  template <class T>
  T at(size_t i) const {
    T out{};
    int rc = convert_at(i, &out);
    if (rc < 0)
      detail::fail(rc, message(rc) + " (element " + std::to_string(i) + ")");
    return out;
  }
  template <class T>
  std::vector<T> values() const {
    std::vector<T> v;
    size_t n = size();
    v.reserve(n);
    for (size_t i = 0; i < n; i++)
      v.push_back(at<T>(i));
    return v;
  }

  const chakra_attr* c_ptr() const { return a_; }

 private:
  const chakra_attr* a_;

  std::string message(int rc) const {
    std::string s = "attribute '";
    s += name();
    s += "' (";
    s += kind_name(kind());
    s += "): ";
    s += chakra_strerror(rc);
    return s;
  }

  template <class T>
  static int narrow_int(int64_t v, T* out) {
    if (v < static_cast<int64_t>(std::numeric_limits<T>::min()) ||
        v > static_cast<int64_t>(std::numeric_limits<T>::max()))
      return CHAKRA_ERANGE;
    *out = static_cast<T>(v);
    return 0;
  }
  template <class T>
  static int narrow_uint(uint64_t v, T* out) {
    if (v > static_cast<uint64_t>(std::numeric_limits<T>::max()))
      return CHAKRA_ERANGE;
    *out = static_cast<T>(v);
    return 0;
  }

  template <class T>
  int convert(T* out) const {
    if constexpr (std::is_same_v<T, bool>) {
      int b = 0;
      int rc = chakra_attr_bool(a_, &b);
      *out = b != 0;
      return rc;
    } else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
      int64_t v = 0;
      int rc = chakra_attr_int(a_, &v);
      return rc < 0 ? rc : narrow_int(v, out);
    } else if constexpr (std::is_integral_v<T>) {
      uint64_t v = 0;
      int rc = chakra_attr_uint(a_, &v);
      return rc < 0 ? rc : narrow_uint(v, out);
    } else if constexpr (std::is_floating_point_v<T>) {
      double v = 0;
      int rc = chakra_attr_double(a_, &v);
      *out = static_cast<T>(v);
      return rc;
    } else if constexpr (std::is_same_v<T, std::string_view> || std::is_same_v<T, std::string>) {
      const char* s = nullptr;
      size_t n = 0;
      int rc = chakra_attr_string(a_, &s, &n);
      if (rc == 0)
        *out = T(detail::sv(s, n));
      return rc;
    } else {
      static_assert(detail::always_false<T>, "unsupported attribute type");
      return CHAKRA_ETYPE;
    }
  }

  template <class T>
  int convert_at(size_t i, T* out) const {
    if constexpr (std::is_same_v<T, bool>) {
      int64_t v = 0;
      int rc = chakra_attr_list_int(a_, i, &v);
      *out = v != 0;
      return rc;
    } else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
      int64_t v = 0;
      int rc = chakra_attr_list_int(a_, i, &v);
      return rc < 0 ? rc : narrow_int(v, out);
    } else if constexpr (std::is_integral_v<T>) {
      uint64_t v = 0;
      int rc = chakra_attr_list_uint(a_, i, &v);
      return rc < 0 ? rc : narrow_uint(v, out);
    } else if constexpr (std::is_floating_point_v<T>) {
      double v = 0;
      int rc = chakra_attr_list_double(a_, i, &v);
      *out = static_cast<T>(v);
      return rc;
    } else if constexpr (std::is_same_v<T, std::string_view> || std::is_same_v<T, std::string>) {
      const char* s = nullptr;
      size_t n = 0;
      int rc = chakra_attr_list_string(a_, i, &s, &n);
      if (rc == 0)
        *out = T(detail::sv(s, n));
      return rc;
    } else {
      static_assert(detail::always_false<T>, "unsupported attribute type");
      return CHAKRA_ETYPE;
    }
  }
};

// The attributes of a node or of the metadata, in file order.
template <class Owner, size_t (*Count)(const Owner*), const chakra_attr* (*At)(const Owner*, size_t)>
class attr_list {
 public:
  class iterator {
   public:
    using iterator_category = std::random_access_iterator_tag;
    using value_type = attr;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = attr;
    iterator() = default;
    iterator(const Owner* o, size_t i) : o_(o), i_(i) {}
    attr operator*() const { return attr(At(o_, i_)); }
    attr operator[](difference_type k) const { return attr(At(o_, i_ + k)); }
    iterator& operator++() { ++i_; return *this; }
    iterator operator++(int) { iterator t = *this; ++i_; return t; }
    iterator& operator--() { --i_; return *this; }
    iterator& operator+=(difference_type k) { i_ += k; return *this; }
    iterator operator+(difference_type k) const { return iterator(o_, i_ + k); }
    difference_type operator-(const iterator& o) const {
      return static_cast<difference_type>(i_) - static_cast<difference_type>(o.i_);
    }
    bool operator==(const iterator& o) const { return i_ == o.i_; }
    bool operator!=(const iterator& o) const { return i_ != o.i_; }
    bool operator<(const iterator& o) const { return i_ < o.i_; }

   private:
    const Owner* o_ = nullptr;
    size_t i_ = 0;
  };

  explicit attr_list(const Owner* o) : o_(o) {}
  iterator begin() const { return iterator(o_, 0); }
  iterator end() const { return iterator(o_, size()); }
  size_t size() const { return Count(o_); }
  bool empty() const { return size() == 0; }
  // Attribute i; past the end throws chakra::error (CHAKRA_ERANGE).
  attr operator[](size_t i) const {
    if (i >= size())
      detail::fail(CHAKRA_ERANGE, "attribute " + std::to_string(i) + " of " +
                                      std::to_string(size()) + ": past the end");
    return attr(At(o_, i));
  }
  // First attribute with this name.
  std::optional<attr> find(std::string_view name) const {
    size_t n = size();
    for (size_t i = 0; i < n; i++) {
      attr a(At(o_, i));
      if (a.name() == name)
        return a;
    }
    return std::nullopt;
  }

 private:
  const Owner* o_;
};

using node_attrs = attr_list<chakra_node, chakra_node_attr_count, chakra_node_attr_at>;
using metadata_attrs =
    attr_list<chakra_metadata, chakra_metadata_attr_count, chakra_metadata_attr_at>;

// ---- Nodes ----
class node_view {
 public:
  explicit node_view(const chakra_node* n) : n_(n) {}

  uint64_t id() const { return chakra_node_id(n_); }
  std::string_view name() const {
    size_t len = 0;
    const char* s = chakra_node_name(n_, &len);
    return detail::sv(s, len);
  }
  node_type type() const { return static_cast<node_type>(chakra_node_type_of(n_)); }
  // The raw enum value, which may lie outside node_type in odd files.
  int type_value() const { return chakra_node_type_of(n_); }
  uint64_t start_time_micros() const { return chakra_node_start_time_micros(n_); }
  uint64_t duration_micros() const { return chakra_node_duration_micros(n_); }
  span<uint64_t> data_deps() const {
    return span<uint64_t>(chakra_node_data_deps(n_), chakra_node_data_dep_count(n_));
  }
  span<uint64_t> ctrl_deps() const {
    return span<uint64_t>(chakra_node_ctrl_deps(n_), chakra_node_ctrl_dep_count(n_));
  }

  // IOInfo: present or not, and its strings ("" when absent).
  bool has_io(chakra_io which) const { return chakra_node_has_io(n_, which) != 0; }
  std::string_view io(chakra_io which, chakra_io_field field) const {
    size_t len = 0;
    const char* s = chakra_node_io(n_, which, field, &len);
    return detail::sv(s, len);
  }
  bool has_inputs() const { return has_io(CHAKRA_IO_INPUTS); }
  bool has_outputs() const { return has_io(CHAKRA_IO_OUTPUTS); }

  node_attrs attrs() const { return node_attrs(n_); }
  std::optional<attr> find(std::string_view name) const { return attrs().find(name); }
  bool has(std::string_view name) const { return find(name).has_value(); }
  // The attribute, or chakra::error CHAKRA_ENOTFOUND naming the node.
  attr at(std::string_view name) const {
    if (auto a = find(name))
      return *a;
    detail::fail(CHAKRA_ENOTFOUND, "node " + std::to_string(id()) + ": no attribute '" +
                                       std::string(name) + "'");
  }
  // Converted value (see attr); get throws when absent, get_or returns the
  // default when absent (and still throws on a kind that cannot convert),
  // get_if returns nullopt for both.
  template <class T>
  T get(std::string_view name) const {
    attr a = at(name);
    try {
      return a.as<T>();
    } catch (const error& e) {
      detail::fail(e.code(), "node " + std::to_string(id()) + ": " + e.what());
    }
  }
  template <class T>
  T get_or(std::string_view name, T dflt) const {
    if (auto a = find(name)) {
      try {
        return a->as<T>();
      } catch (const error& e) {
        detail::fail(e.code(), "node " + std::to_string(id()) + ": " + e.what());
      }
    }
    return dflt;
  }
  template <class T>
  std::optional<T> get_if(std::string_view name) const {
    if (auto a = find(name))
      return a->as_if<T>();
    return std::nullopt;
  }

  // Position in the file: the byte offset of the length prefix (in the
  // uncompressed stream) and the 0-based node index.
  uint64_t offset() const { return chakra_node_offset(n_); }
  uint64_t index() const { return chakra_node_index(n_); }
  const chakra_node* c_ptr() const { return n_; }

 private:
  const chakra_node* n_;
};

class metadata_view {
 public:
  explicit metadata_view(const chakra_metadata* m) : m_(m) {}
  std::string_view version() const {
    size_t n = 0;
    const char* s = chakra_metadata_version(m_, &n);
    return detail::sv(s, n);
  }
  metadata_attrs attrs() const { return metadata_attrs(m_); }
  std::optional<attr> find(std::string_view name) const { return attrs().find(name); }
  const chakra_metadata* c_ptr() const { return m_; }

 private:
  const chakra_metadata* m_;
};

// ---- Reader ----
struct reader_options {
  uint64_t max_message_size = 0;  // 0: the library default (256 MiB)
  std::string display_name;       // empty: the path
  bool verify_with_nanopb = false;

  chakra_reader_options c() const {
    chakra_reader_options o = CHAKRA_READER_OPTIONS_INIT;
    o.max_message_size = max_message_size;
    o.display_name = display_name.empty() ? nullptr : display_name.c_str();
    o.verify_with_nanopb = verify_with_nanopb ? 1 : 0;
    return o;
  }
};

class reader {
 public:
  explicit reader(const std::string& path, const reader_options& opts = {}) {
    chakra_reader_options o = opts.c();
    chakra_reader* r = nullptr;
    int rc = chakra_reader_open(&r, path.c_str(), &o);
    adopt(r, rc, path);
  }
  // Reads from memory the caller keeps alive for the reader's lifetime.
  static reader from_buffer(const void* buf, size_t len, const reader_options& opts = {}) {
    chakra_reader_options o = opts.c();
    chakra_reader* r = nullptr;
    int rc = chakra_reader_open_buffer(&r, buf, len, &o);
    return reader(r, rc);
  }

  metadata_view metadata() const { return metadata_view(chakra_reader_metadata(r_.get())); }
  // The next node (valid until the next call), nullopt at a clean end of
  // file; a damaged file throws.
  std::optional<node_view> next() {
    const chakra_node* n = nullptr;
    int rc = chakra_reader_next(r_.get(), &n);
    if (rc < 0)
      detail::fail(rc, chakra_reader_errmsg(r_.get()));
    if (rc == 0)
      return std::nullopt;
    return node_view(n);
  }
  // The next message's bytes without decoding them.
  std::optional<std::string_view> next_raw() {
    const void* m = nullptr;
    size_t len = 0;
    int rc = chakra_reader_next_raw(r_.get(), &m, &len);
    if (rc < 0)
      detail::fail(rc, chakra_reader_errmsg(r_.get()));
    if (rc == 0)
      return std::nullopt;
    return std::string_view(static_cast<const char*>(m), len);
  }
  uint64_t offset() const { return chakra_reader_offset(r_.get()); }
  uint64_t node_count() const { return chakra_reader_node_count(r_.get()); }
  chakra_reader* c_ptr() const { return r_.get(); }

  // Single-pass iteration: for (node_view n : r) ...
  class iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = node_view;
    using difference_type = std::ptrdiff_t;
    using pointer = const node_view*;
    using reference = const node_view&;
    iterator() = default;
    explicit iterator(reader* r) : r_(r) { ++*this; }
    const node_view& operator*() const { return *cur_; }
    const node_view* operator->() const { return &*cur_; }
    iterator& operator++() {
      cur_ = r_->next();
      if (!cur_)
        r_ = nullptr;
      return *this;
    }
    bool operator==(const iterator& o) const { return r_ == o.r_; }
    bool operator!=(const iterator& o) const { return r_ != o.r_; }

   private:
    reader* r_ = nullptr;
    std::optional<node_view> cur_;
  };
  iterator begin() { return iterator(this); }
  iterator end() { return iterator(); }

 private:
  struct closer {
    void operator()(chakra_reader* r) const { chakra_reader_close(r); }
  };
  std::unique_ptr<chakra_reader, closer> r_;

  reader(chakra_reader* r, int rc) { adopt(r, rc, "<memory>"); }
  void adopt(chakra_reader* r, int rc, const std::string& what) {
    r_.reset(r);
    if (rc < 0)
      detail::fail(rc, r ? chakra_reader_errmsg(r) : detail::describe(rc, what));
  }
};

// ---- Feeder ----
struct feeder_options {
  chakra::deps deps = chakra::deps::data;
  chakra::order order = chakra::order::id;
  uint64_t window = 0;        // nodes read ahead; 0: the library default (docs/feeder.md)
  bool strict = false;
  uint64_t window_bytes = 0;  // bytes read ahead; 0: the library default
  uint64_t max_memory = 0;    // hard budget for them; 0: the default, UINT64_MAX: none
  reader_options reader;

  chakra_feeder_options c() const {
    chakra_feeder_options o = CHAKRA_FEEDER_OPTIONS_INIT;
    o.deps = static_cast<chakra_deps>(deps);
    o.order = static_cast<chakra_order>(order);
    o.window = window;
    o.strict = strict ? 1 : 0;
    o.window_bytes = window_bytes;
    o.max_memory = max_memory;
    return o;
  }
};

// Operations on a feeder the caller does not own (a workload's rank). One
// that holds none (a default-constructed or moved-from feeder) throws
// chakra::error (CHAKRA_ESTATE) from every operation; its counters are 0.
class feeder_ref {
 public:
  explicit feeder_ref(chakra_feeder* f) : f_(f) {}

  // Whether it holds a feeder.
  explicit operator bool() const { return f_ != nullptr; }

  // Issue the next ready node (now in flight); nullopt when none is ready.
  // A stall (nothing ready, nothing in flight, nodes left) or a bad file
  // throws, naming the blocked nodes or the offending bytes.
  std::optional<node_view> next() {
    require();
    const chakra_node* n = nullptr;
    int rc = chakra_feeder_next(f_, &n);
    rethrow_pending();
    if (rc < 0)
      detail::fail(rc, chakra_feeder_errmsg(f_));
    if (rc == 0)
      return std::nullopt;
    return node_view(n);
  }
  // Complete an in-flight node, releasing its children.
  void complete(uint64_t id) {
    require();
    check(chakra_feeder_complete(f_, id));
  }
  // Return an in-flight node to the ready set.
  void push_back(uint64_t id) {
    require();
    check(chakra_feeder_push_back(f_, id));
  }
  // A node read and not yet completed.
  std::optional<node_view> lookup(uint64_t id) const {
    require();
    const chakra_node* n = chakra_feeder_lookup(f_, id);
    if (!n)
      return std::nullopt;
    return node_view(n);
  }
  bool has_more() const { return chakra_feeder_has_more(f_) != 0; }
  uint64_t held_count() const { return chakra_feeder_held_count(f_); }
  uint64_t ready_count() const { return chakra_feeder_ready_count(f_); }
  uint64_t inflight_count() const { return chakra_feeder_inflight_count(f_); }
  uint64_t issued_count() const { return chakra_feeder_issued_count(f_); }
  uint64_t completed_count() const { return chakra_feeder_completed_count(f_); }
  uint64_t warning_count() const { return chakra_feeder_warning_count(f_); }
  uint64_t cycle_break_count() const { return chakra_feeder_cycle_break_count(f_); }
  uint64_t duplicate_dep_count() const { return chakra_feeder_duplicate_dep_count(f_); }
  metadata_view metadata() const {
    require();
    return metadata_view(chakra_feeder_metadata(f_));
  }
  std::string_view errmsg() const { return chakra_feeder_errmsg(f_); }
  chakra_feeder* c_ptr() const { return f_; }

 protected:
  chakra_feeder* f_;
  // Set by an owning feeder in callback style.
  std::exception_ptr* pending_ = nullptr;

  void require() const {
    if (!f_)
      detail::fail(CHAKRA_ESTATE, "feeder: holds no feeder (default-constructed or moved "
                                  "from)");
  }

  void rethrow_pending() {
    if (pending_ && *pending_) {
      std::exception_ptr e = std::exchange(*pending_, nullptr);
      std::rethrow_exception(e);
    }
  }
  void check(int rc) {
    rethrow_pending();
    if (rc < 0)
      detail::fail(rc, chakra_feeder_errmsg(f_));
  }
};

class feeder : public feeder_ref {
 public:
  // Called for each node as it becomes issuable (it is then in flight), from
  // drive() and complete(). An exception it throws is rethrown from that
  // drive() / complete() once the library call has returned.
  using ready_callback = std::function<void(feeder_ref&, node_view)>;

  // PATH, or when PATH is PREFIX.R.et that does not exist beside a rank map
  // PREFIX.ranks, rank R's class file with R's peers and groups.
  explicit feeder(const std::string& path, const feeder_options& opts = {})
      : feeder_ref(nullptr) {
    open_path(path, opts, nullptr);
  }
  feeder(const std::string& path, const feeder_options& opts, ready_callback cb)
      : feeder_ref(nullptr) {
    open_path(path, opts, std::move(cb));
  }
  // Feeds from memory the caller keeps alive for the feeder's lifetime.
  static feeder from_buffer(const void* buf, size_t len, const feeder_options& opts = {},
                            ready_callback cb = nullptr) {
    feeder f;
    f.open(opts, std::move(cb), [&](chakra_feeder** out, const chakra_feeder_options* o) {
      return std::make_pair(chakra_feeder_open_buffer(out, buf, len, o), std::string("<memory>"));
    });
    return f;
  }

  // An empty feeder, to assign an opened one to.
  feeder() noexcept : feeder_ref(nullptr) {}
  feeder(feeder&& o) noexcept : feeder_ref(std::exchange(o.f_, nullptr)), st_(std::move(o.st_)) {
    relink();
    o.pending_ = nullptr;
  }
  feeder& operator=(feeder&& o) noexcept {
    if (this != &o) {
      if (f_)
        chakra_feeder_close(f_);
      f_ = std::exchange(o.f_, nullptr);
      st_ = std::move(o.st_);
      relink();
      o.pending_ = nullptr;
    }
    return *this;
  }
  feeder(const feeder&) = delete;
  feeder& operator=(const feeder&) = delete;
  ~feeder() {
    if (f_)
      chakra_feeder_close(f_);
  }

  // Callback style: pass every ready node to the callback.
  void drive() {
    require();
    check(chakra_feeder_drive(f_));
  }

 private:
  // What the C feeder keeps pointers to (its reader options, the callback
  // data) lives here, at an address that survives moves.
  struct state {
    ready_callback cb;
    feeder* self = nullptr;
    std::exception_ptr pending;
    std::string display_name;
    chakra_reader_options ro = CHAKRA_READER_OPTIONS_INIT;
  };
  std::unique_ptr<state> st_;

  void relink() {
    pending_ = st_ && st_->cb ? &st_->pending : nullptr;
    if (st_)
      st_->self = this;
  }

  static void trampoline(void* data, chakra_feeder*, const chakra_node* n) {
    auto* st = static_cast<state*>(data);
    try {
      st->cb(*st->self, node_view(n));
    } catch (...) {
      if (!st->pending)
        st->pending = std::current_exception();
    }
  }

  void open_path(const std::string& path, const feeder_options& opts, ready_callback cb) {
    detail::rank_target t;
    if (detail::rank_map_target(path, t)) {
      open(opts, std::move(cb), [&](chakra_feeder** out, const chakra_feeder_options* o) {
        chakra_feeder_options with = *o;
        with.subst = &t.subst;  // (copied at open)
        return std::make_pair(chakra_feeder_open(out, t.file.c_str(), &with), t.file);
      });
      return;
    }
    open(opts, std::move(cb), [&](chakra_feeder** out, const chakra_feeder_options* o) {
      return std::make_pair(chakra_feeder_open(out, path.c_str(), o), path);
    });
  }

  template <class Open>
  void open(const feeder_options& opts, ready_callback cb, Open&& do_open) {
    st_ = std::make_unique<state>();
    st_->display_name = opts.reader.display_name;
    st_->ro = opts.reader.c();
    st_->ro.display_name = st_->display_name.empty() ? nullptr : st_->display_name.c_str();
    chakra_feeder_options o = opts.c();
    o.reader = &st_->ro;
    if (cb) {
      st_->cb = std::move(cb);
      o.ready_cb = trampoline;
      o.data = st_.get();
    }
    relink();
    chakra_feeder* f = nullptr;
    auto [rc, what] = do_open(&f, &o);
    f_ = f;
    if (rc < 0) {
      std::string msg = f ? std::string(chakra_feeder_errmsg(f)) : detail::describe(rc, what);
      if (f)
        chakra_feeder_close(f);
      f_ = nullptr;
      detail::fail(rc, msg);
    }
  }
};

// PREFIX.0.et ... PREFIX.{N-1}.et, one feeder per rank; or the rank map
// PREFIX.ranks (a rank's feeder opened when it is first asked for).
class workload {
 public:
  explicit workload(const std::string& prefix, const feeder_options& opts = {})
      : ro_(std::make_unique<reader_state>()) {
    ro_->display_name = opts.reader.display_name;
    ro_->ro = opts.reader.c();
    ro_->ro.display_name = ro_->display_name.empty() ? nullptr : ro_->display_name.c_str();
    chakra_feeder_options o = opts.c();
    o.reader = &ro_->ro;
    chakra_workload* w = nullptr;
    int rc = chakra_workload_open(&w, prefix.c_str(), &o);
    w_.reset(w);
    if (rc < 0)
      detail::fail(rc, w ? chakra_workload_errmsg(w) : detail::describe(rc, prefix));
  }
  size_t size() const { return chakra_workload_size(w_.get()); }
  // Rank `rank`'s feeder; past the last rank throws chakra::error
  // (CHAKRA_ERANGE).
  feeder_ref operator[](size_t rank) const {
    if (rank >= size())
      detail::fail(CHAKRA_ERANGE, "workload: rank " + std::to_string(rank) + " of " +
                                      std::to_string(size()));
    return feeder_ref(chakra_workload_feeder(w_.get(), rank));
  }
  chakra_workload* c_ptr() const { return w_.get(); }

 private:
  struct closer {
    void operator()(chakra_workload* w) const { chakra_workload_close(w); }
  };
  // The feeders keep pointing to their reader options.
  struct reader_state {
    std::string display_name;
    chakra_reader_options ro = CHAKRA_READER_OPTIONS_INIT;
  };
  std::unique_ptr<reader_state> ro_;
  std::unique_ptr<chakra_workload, closer> w_;
};

// ---- Writing ----
// One node (or the metadata's attributes), reusable; each setter returns
// *this. Names are copied, so any string_view will do.
class builder {
 public:
  builder() : b_(chakra_builder_new()) {
    if (!b_)
      detail::fail(CHAKRA_ENOMEM, "chakra_builder_new: out of memory");
  }
  builder& reset() { chakra_builder_reset(b_.get()); return *this; }
  builder& copy(node_view n) { check(chakra_builder_copy_node(b_.get(), n.c_ptr()), "copy"); return *this; }
  builder& id(uint64_t v) { chakra_builder_set_id(b_.get(), v); return *this; }
  builder& name(std::string_view s) {
    check(chakra_builder_set_name(b_.get(), s.data(), s.size()), "name");
    return *this;
  }
  builder& type(node_type t) { chakra_builder_set_type(b_.get(), static_cast<int>(t)); return *this; }
  builder& type_value(int t) { chakra_builder_set_type(b_.get(), t); return *this; }
  builder& start_time_micros(uint64_t v) { chakra_builder_set_start_time_micros(b_.get(), v); return *this; }
  builder& duration_micros(uint64_t v) { chakra_builder_set_duration_micros(b_.get(), v); return *this; }
  builder& data_dep(uint64_t p) { check(chakra_builder_add_data_dep(b_.get(), p), "data_dep"); return *this; }
  builder& ctrl_dep(uint64_t p) { check(chakra_builder_add_ctrl_dep(b_.get(), p), "ctrl_dep"); return *this; }
  builder& io(chakra_io which, chakra_io_field field, std::string_view s) {
    check(chakra_builder_set_io(b_.get(), which, field, s.data(), s.size()), "io");
    return *this;
  }
  // Scalars; kind must fit (an integer kind or bool for attr_int, ...).
  builder& attr_int(std::string_view name, attr_kind kind, int64_t v) {
    check(chakra_builder_attr_int(b_.get(), cname(name).c_str(), kind, v), name);
    return *this;
  }
  builder& attr_uint(std::string_view name, attr_kind kind, uint64_t v) {
    check(chakra_builder_attr_uint(b_.get(), cname(name).c_str(), kind, v), name);
    return *this;
  }
  builder& attr_double(std::string_view name, attr_kind kind, double v) {
    check(chakra_builder_attr_double(b_.get(), cname(name).c_str(), kind, v), name);
    return *this;
  }
  builder& attr_string(std::string_view name, attr_kind kind, std::string_view v) {
    check(chakra_builder_attr_string(b_.get(), cname(name).c_str(), kind, v.data(), v.size()),
          name);
    return *this;
  }
  builder& attr_bool(std::string_view name, bool v) { return attr_int(name, CHAKRA_ATTR_BOOL, v); }
  // Lists: integers as uint64_t bit patterns (an int64 -1 is UINT64_MAX).
  builder& attr_list_uint(std::string_view name, attr_kind kind, const std::vector<uint64_t>& v) {
    check(chakra_builder_attr_list_uint(b_.get(), cname(name).c_str(), kind, v.data(), v.size()),
          name);
    return *this;
  }
  builder& attr_list_double(std::string_view name, attr_kind kind, const std::vector<double>& v) {
    check(chakra_builder_attr_list_double(b_.get(), cname(name).c_str(), kind, v.data(),
                                          v.size()),
          name);
    return *this;
  }
  builder& attr_list_string(std::string_view name, attr_kind kind,
                            const std::vector<std::string_view>& v) {
    std::vector<const char*> p;
    std::vector<size_t> l;
    for (std::string_view s : v) {
      p.push_back(s.data());
      l.push_back(s.size());
    }
    check(chakra_builder_attr_list_string(b_.get(), cname(name).c_str(), kind, p.data(),
                                          l.data(), v.size()),
          name);
    return *this;
  }
  builder& attr_empty(std::string_view name) {
    check(chakra_builder_attr_empty(b_.get(), cname(name).c_str()), name);
    return *this;
  }
  builder& attr_doc(std::string_view s) {
    check(chakra_builder_attr_set_doc(b_.get(), s.data(), s.size()), "doc");
    return *this;
  }
  builder& attr_copy(attr a) { check(chakra_builder_attr_copy(b_.get(), a.c_ptr()), a.name()); return *this; }
  const chakra_builder* c_ptr() const { return b_.get(); }

 private:
  struct freer {
    void operator()(chakra_builder* b) const { chakra_builder_free(b); }
  };
  std::unique_ptr<chakra_builder, freer> b_;

  static void check(int rc, std::string_view what) {
    if (rc < 0)
      detail::fail(rc, "builder: " + detail::describe(rc, what));
  }
  // Attribute names go to C as NUL-terminated strings: a name holding a
  // NUL byte would be cut there, silently; refused instead.
  static std::string cname(std::string_view name) {
    if (name.find('\0') != std::string_view::npos)
      detail::fail(CHAKRA_EINVAL, "builder: attribute name holds a NUL byte: '" +
                                      std::string(name.substr(0, name.find('\0'))) + "\\0...'");
    return std::string(name);
  }
};

struct writer_options {
  bool gzip = false;
  int gzip_level = 0;      // 1..9, 0: zlib's default
  bool overwrite = false;  // replace an existing file
};

// Writes to PATH.tmp-XXXXXX and renames on finish(); destroyed without a
// successful finish(), it leaves nothing under PATH.
class writer {
 public:
  explicit writer(const std::string& path, const writer_options& opts = {}) {
    chakra_writer_options o = CHAKRA_WRITER_OPTIONS_INIT;
    o.gzip = opts.gzip ? 1 : 0;
    o.gzip_level = opts.gzip_level;
    o.overwrite = opts.overwrite ? 1 : 0;
    chakra_writer* w = nullptr;
    int rc = chakra_writer_open(&w, path.c_str(), &o);
    w_.reset(w);
    if (rc < 0)
      detail::fail(rc, w ? chakra_writer_errmsg(w) : detail::describe(rc, path));
  }
  void write_metadata(std::string_view version, const builder* attrs = nullptr) {
    if (version.find('\0') != std::string_view::npos)
      detail::fail(CHAKRA_EINVAL, "writer: metadata version holds a NUL byte");
    check(chakra_writer_write_metadata(w_.get(), std::string(version).c_str(),
                                       attrs ? attrs->c_ptr() : nullptr));
  }
  void copy_metadata(metadata_view m) { check(chakra_writer_copy_metadata(w_.get(), m.c_ptr())); }
  void write(const builder& b) { check(chakra_writer_write_node(w_.get(), b.c_ptr())); }
  void write_raw(std::string_view msg) {
    check(chakra_writer_write_raw(w_.get(), msg.data(), msg.size()));
  }
  void finish() { check(chakra_writer_finish(w_.get())); }
  uint64_t node_count() const { return chakra_writer_node_count(w_.get()); }
  chakra_writer* c_ptr() const { return w_.get(); }

 private:
  struct closer {
    void operator()(chakra_writer* w) const { chakra_writer_close(w); }
  };
  std::unique_ptr<chakra_writer, closer> w_;

  void check(int rc) {
    if (rc < 0)
      detail::fail(rc, chakra_writer_errmsg(w_.get()));
  }
};

}  // namespace chakra

#endif

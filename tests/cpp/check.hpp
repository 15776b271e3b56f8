// SPDX-License-Identifier: Apache-2.0
// Minimal checks for the C++ tests: CHECK records a failure and goes on;
// main returns check_done() (0 = pass).
#ifndef CHAKRA_TEST_CHECK_HPP
#define CHAKRA_TEST_CHECK_HPP

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

inline int& check_failures() {
  static int n = 0;
  return n;
}

#define CHECK(cond)                                                                \
  do {                                                                             \
    if (!(cond)) {                                                                 \
      std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      check_failures()++;                                                          \
    }                                                                              \
  } while (0)

#define CHECK_EQ(a, b)                                                                      \
  do {                                                                                      \
    auto _a = (a);                                                                          \
    auto _b = (b);                                                                          \
    if (!(_a == _b)) {                                                                      \
      std::fprintf(stderr, "%s:%d: CHECK failed: %s == %s (%s != %s)\n", __FILE__, __LINE__, \
                   #a, #b, check_str(_a).c_str(), check_str(_b).c_str());                   \
      check_failures()++;                                                                   \
    }                                                                                       \
  } while (0)

// The expression must throw E; `msg` (if not empty) must occur in its message.
#define CHECK_THROWS(E, expr, msg)                                                       \
  do {                                                                                    \
    bool _thrown = false;                                                                 \
    try {                                                                                 \
      (void)(expr);                                                                       \
    } catch (const E& _e) {                                                               \
      _thrown = true;                                                                     \
      if (std::string(_e.what()).find(msg) == std::string::npos) {                       \
        std::fprintf(stderr, "%s:%d: %s threw \"%s\", expected it to mention \"%s\"\n",   \
                     __FILE__, __LINE__, #expr, _e.what(), std::string(msg).c_str());    \
        check_failures()++;                                                               \
      }                                                                                   \
    }                                                                                     \
    if (!_thrown) {                                                                       \
      std::fprintf(stderr, "%s:%d: %s did not throw %s\n", __FILE__, __LINE__, #expr, #E); \
      check_failures()++;                                                                 \
    }                                                                                     \
  } while (0)

template <class T>
std::string check_str(const T& v) {
  if constexpr (std::is_arithmetic_v<T>)
    return std::to_string(v);
  else if constexpr (std::is_enum_v<T>)
    return std::to_string(static_cast<long long>(v));
  else
    return "\"" + std::string(v) + "\"";
}

inline int check_done() {
  if (check_failures())
    std::fprintf(stderr, "%d check(s) failed\n", check_failures());
  return check_failures() ? 1 : 0;
}

// A file under tests/data: CHAKRA_SHARED names the folder holding data/.
inline std::string shared_path(const std::string& rel) {
  const char* s = std::getenv("CHAKRA_SHARED");
  return std::string(s ? s : CHAKRA_SHARED) + "/" + rel;
}

inline bool file_exists(const std::string& p) {
  std::ifstream f(p);
  return f.good();
}

inline std::string slurp(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

#endif

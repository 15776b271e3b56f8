/* SPDX-License-Identifier: Apache-2.0 */
/* libchakra: symbol visibility. Every public function carries CHAKRA_API;
 * the library is built with -fvisibility=hidden so nothing else leaks. */
#ifndef CHAKRA_EXPORT_H
#define CHAKRA_EXPORT_H

#if defined(_WIN32)
#  if defined(CHAKRA_BUILDING_DLL)
#    define CHAKRA_API __declspec(dllexport)
#  elif defined(CHAKRA_STATIC)
#    define CHAKRA_API
#  else
#    define CHAKRA_API __declspec(dllimport)
#  endif
#elif defined(__GNUC__) && __GNUC__ >= 4
#  define CHAKRA_API __attribute__((visibility("default")))
#else
#  define CHAKRA_API
#endif

#endif

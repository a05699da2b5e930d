// Command-line helpers in the style of the CUDA samples' helper_string.h (written for this
// corpus): flags are -name or --name, values -name=value.
#ifndef HELPER_STRING_LITE_H
#define HELPER_STRING_LITE_H

#include <stdlib.h>
#include <string.h>

static inline const char *argValue(int argc, const char **argv, const char *name) {
  size_t n = strlen(name);
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    while (*a == '-') a++;
    if (strncmp(a, name, n) == 0 && (a[n] == 0 || a[n] == '=')) return a[n] == '=' ? a + n + 1 : a + n;
  }
  return NULL;
}

static inline bool checkCmdLineFlag(int argc, const char **argv, const char *name) {
  return argValue(argc, argv, name) != NULL;
}

static inline int getCmdLineArgumentInt(int argc, const char **argv, const char *name) {
  const char *v = argValue(argc, argv, name);
  return v && *v ? atoi(v) : 0;
}

#endif  // HELPER_STRING_LITE_H

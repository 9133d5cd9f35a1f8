// libFuzzer's entry point for a program that has its own `main` (LLVM's "Using libFuzzer as a
// library"): runs the fuzzing loop on `callback` with libFuzzer's command-line flags. Defined
// only when the program is linked with `-sanitize=fuzzer`; `realm-fuzz` calls it only in that
// build (`REALM_LIBFUZZER`).
#ifndef C_LIB_FUZZER_H
#define C_LIB_FUZZER_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif

// libFuzzer's driver, from the runtime that `-sanitize=fuzzer` links (libclang_rt.fuzzer in the Swift toolchain).
#pragma once
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

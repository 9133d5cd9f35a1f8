// CRealmCrypto: the AES rounds and the SHA-256 compression of RealmStorage's page encryption on
// the CPU's instructions for them (AES-NI and SHA-NI on x86-64, the ARMv8 Cryptography
// Extension on aarch64). See HardwareAES.swift for why this is C and not Swift.
//
// Every function is compiled for every architecture, but the instructions exist only where
// `realm_aes_hardware_compiled()` (or `realm_sha256_hardware_compiled()`) is 1; elsewhere the
// functions trap. Even where they are compiled, the caller must first have checked at run time
// that the CPU has the instructions (RealmStorage's `CPUFeatures`): the functions carry a
// per-function target attribute, so the rest of the binary still runs on a CPU without them.
//
// `keys` is always the 480-byte round-key layout of RealmStorage's `AES256.roundKeys`: the 15
// encryption round keys of AES-256 (16 bytes each, in order), then the 15 round keys of the
// equivalent inverse cipher (FIPS-197 §5.3.5), in the order decryption uses them. Nothing here
// expands keys, allocates, or keeps a pointer after returning.
#ifndef CREALMCRYPTO_H
#define CREALMCRYPTO_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// One 16-byte AES block as two words: `low` holds bytes 0–7 and `high` bytes 8–15, each
/// loaded little-endian (the layout of RealmStorage's `AESBlock`).
typedef struct realm_aes_block {
    uint64_t low;
    uint64_t high;
} realm_aes_block;

/// Four independent AES blocks.
typedef struct realm_aes_block4 {
    realm_aes_block b0, b1, b2, b3;
} realm_aes_block4;

/// 1 if this build contains the hardware AES functions (x86-64 or little-endian aarch64), else 0.
int realm_aes_hardware_compiled(void);

/// Encrypts one block with the encryption round keys in `keys`.
realm_aes_block realm_aes256_encrypt1(const void *keys, realm_aes_block block);
/// Decrypts one block with the decryption round keys in `keys`.
realm_aes_block realm_aes256_decrypt1(const void *keys, realm_aes_block block);
/// Encrypts four independent blocks, interleaved.
realm_aes_block4 realm_aes256_encrypt4(const void *keys, realm_aes_block4 blocks);
/// Decrypts four independent blocks, interleaved.
realm_aes_block4 realm_aes256_decrypt4(const void *keys, realm_aes_block4 blocks);

/// AES-256-CTR (NIST SP 800-38A §6.5): XORs the `count` bytes at `input` with the key stream
/// AES(counter), AES(counter + 1), … into `output`, where the counter block is the 128-bit
/// big-endian integer `counter_high` · 2^64 + `counter_low` and wraps modulo 2^128. The last
/// block may be partial. `input` and `output` need no alignment; they may be the same memory
/// but must not overlap otherwise. Both must be valid for `count` bytes.
void realm_aes256_ctr(const void *keys, const void *input, void *output, size_t count,
                      uint64_t counter_high, uint64_t counter_low);

/// AES-256-CBC encryption (NIST SP 800-38A §6.2) of `count` bytes, a multiple of 16, with `iv`.
/// `input` and `output` need no alignment; they may be the same memory but must not overlap
/// otherwise. Both must be valid for `count` bytes.
void realm_aes256_cbc_encrypt(const void *keys, const void *input, void *output, size_t count,
                              realm_aes_block iv);
/// AES-256-CBC decryption of `count` bytes, a multiple of 16, with `iv`; eight blocks
/// interleaved. The same rules for the buffers.
void realm_aes256_cbc_decrypt(const void *keys, const void *input, void *output, size_t count,
                              realm_aes_block iv);

/// 1 if this build contains the hardware SHA-256 compression (x86-64 or little-endian aarch64).
int realm_sha256_hardware_compiled(void);

/// The 64 round constants K of SHA-256 (FIPS 180-4 §4.2.2), for every implementation.
extern const uint32_t realm_sha256_round_constants[64];

/// The SHA-256 compression function (FIPS 180-4 §6.2.2) over `count` 64-byte blocks at
/// `blocks` (any alignment): `state` is the eight 32-bit working hash words H0…H7 as native
/// integers, updated in place. It must be valid for 32 bytes and 4-byte aligned.
void realm_sha256_compress(uint32_t *state, const void *blocks, size_t count);

/// Two independent `realm_sha256_compress` calls at once: `count` blocks at `blocks0` into
/// `state0` and `count` blocks at `blocks1` into `state1`, their rounds interleaved. Exactly the
/// result of the two calls; faster because one stream's rounds wait on their own previous round
/// (a dependency chain), and the other stream's fill the wait. The two states must not be the
/// same memory; each follows the rules of `realm_sha256_compress`.
void realm_sha256_compress2(uint32_t *state0, const void *blocks0, uint32_t *state1, const void *blocks1,
                            size_t count);

#ifdef __cplusplus
}
#endif

#endif

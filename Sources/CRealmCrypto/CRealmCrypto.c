// CRealmCrypto: AES-256 rounds on the CPU's AES instructions, for RealmStorage's `HardwareAES`
// (the contract of every function is in include/CRealmCrypto.h; why C, in HardwareAES.swift).
//
// The package passes no compiler flags: each function that executes an AES instruction carries
// the target attribute `REALM_AES_TARGET`, which lets the compiler emit the instructions in that
// function only. They execute only after RealmStorage has checked the CPU at run time.
//
// Constant time: each round is one instruction whose timing does not depend on its operands;
// the only memory read besides the data is the round keys, at fixed offsets; the only branches
// depend on lengths.
#include "CRealmCrypto.h"

#if defined(__x86_64__)
#define REALM_AES_HARDWARE 1
#include <emmintrin.h>
#include <wmmintrin.h>
#define REALM_AES_TARGET __attribute__((target("aes")))
typedef __m128i realm_vector;
#elif defined(__aarch64__) && defined(__ARM_NEON) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
// Little-endian only: the lane conversions below assume byte i of a block is lane byte i.
#define REALM_AES_HARDWARE 1
#include <arm_neon.h>
#define REALM_AES_TARGET __attribute__((target("aes")))
typedef uint8x16_t realm_vector;
#else
#define REALM_AES_HARDWARE 0
#endif

int realm_aes_hardware_compiled(void) { return REALM_AES_HARDWARE; }

#if REALM_AES_HARDWARE

/// AES-256 has 14 rounds: round keys 0…14, then the decryption keys from byte 240.
enum { ROUNDS = 14, DECRYPTION_KEYS = 16 * (ROUNDS + 1) };

#define REALM_INLINE static inline __attribute__((always_inline))

#if defined(__x86_64__)

REALM_INLINE realm_vector load(const unsigned char *bytes) { return _mm_loadu_si128((const __m128i *)bytes); }
REALM_INLINE void store(unsigned char *bytes, realm_vector value) { _mm_storeu_si128((__m128i *)bytes, value); }
REALM_INLINE realm_vector exclusive_or(realm_vector a, realm_vector b) { return _mm_xor_si128(a, b); }
REALM_INLINE realm_vector from_block(realm_aes_block block) {
    return _mm_set_epi64x((long long)block.high, (long long)block.low);
}
REALM_INLINE realm_aes_block to_block(realm_vector value) {
    realm_aes_block block = {(uint64_t)_mm_cvtsi128_si64(value),
                             (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(value, value))};
    return block;
}

/// Encrypts `count` independent blocks in `state`; `count` is a constant after inlining, so
/// the loops unroll and the blocks' rounds interleave (an AES unit accepts a new round every
/// cycle but takes several to finish one).
REALM_INLINE REALM_AES_TARGET void encrypt_blocks(const unsigned char *keys, realm_vector *state, int count) {
    realm_vector key = load(keys);
    for (int j = 0; j < count; j++) state[j] = _mm_xor_si128(state[j], key);
    for (int round = 1; round < ROUNDS; round++) {
        key = load(keys + 16 * round);
        for (int j = 0; j < count; j++) state[j] = _mm_aesenc_si128(state[j], key);
    }
    key = load(keys + 16 * ROUNDS);
    for (int j = 0; j < count; j++) state[j] = _mm_aesenclast_si128(state[j], key);
}

/// Decrypts `count` independent blocks in `state` with the equivalent inverse cipher's keys,
/// which `aesdec` expects.
REALM_INLINE REALM_AES_TARGET void decrypt_blocks(const unsigned char *keys, realm_vector *state, int count) {
    keys += DECRYPTION_KEYS;
    realm_vector key = load(keys);
    for (int j = 0; j < count; j++) state[j] = _mm_xor_si128(state[j], key);
    for (int round = 1; round < ROUNDS; round++) {
        key = load(keys + 16 * round);
        for (int j = 0; j < count; j++) state[j] = _mm_aesdec_si128(state[j], key);
    }
    key = load(keys + 16 * ROUNDS);
    for (int j = 0; j < count; j++) state[j] = _mm_aesdeclast_si128(state[j], key);
}

#else  // aarch64

REALM_INLINE realm_vector load(const unsigned char *bytes) { return vld1q_u8(bytes); }
REALM_INLINE void store(unsigned char *bytes, realm_vector value) { vst1q_u8(bytes, value); }
REALM_INLINE realm_vector exclusive_or(realm_vector a, realm_vector b) { return veorq_u8(a, b); }
REALM_INLINE realm_vector from_block(realm_aes_block block) {
    return vreinterpretq_u8_u64(vcombine_u64(vcreate_u64(block.low), vcreate_u64(block.high)));
}
REALM_INLINE realm_aes_block to_block(realm_vector value) {
    uint64x2_t words = vreinterpretq_u64_u8(value);
    realm_aes_block block = {vgetq_lane_u64(words, 0), vgetq_lane_u64(words, 1)};
    return block;
}

// AESE is AddRoundKey, SubBytes, ShiftRows and AESMC is MixColumns, so the last round key is
// added by hand; AESD and AESIMC are their inverses, over the equivalent inverse cipher's keys.

REALM_INLINE REALM_AES_TARGET void encrypt_blocks(const unsigned char *keys, realm_vector *state, int count) {
    realm_vector key;
    for (int round = 0; round < ROUNDS - 1; round++) {
        key = load(keys + 16 * round);
        for (int j = 0; j < count; j++) state[j] = vaesmcq_u8(vaeseq_u8(state[j], key));
    }
    key = load(keys + 16 * (ROUNDS - 1));
    for (int j = 0; j < count; j++) state[j] = vaeseq_u8(state[j], key);
    key = load(keys + 16 * ROUNDS);
    for (int j = 0; j < count; j++) state[j] = veorq_u8(state[j], key);
}

REALM_INLINE REALM_AES_TARGET void decrypt_blocks(const unsigned char *keys, realm_vector *state, int count) {
    keys += DECRYPTION_KEYS;
    realm_vector key;
    for (int round = 0; round < ROUNDS - 1; round++) {
        key = load(keys + 16 * round);
        for (int j = 0; j < count; j++) state[j] = vaesimcq_u8(vaesdq_u8(state[j], key));
    }
    key = load(keys + 16 * (ROUNDS - 1));
    for (int j = 0; j < count; j++) state[j] = vaesdq_u8(state[j], key);
    key = load(keys + 16 * ROUNDS);
    for (int j = 0; j < count; j++) state[j] = veorq_u8(state[j], key);
}

#endif

REALM_AES_TARGET realm_aes_block realm_aes256_encrypt1(const void *keys, realm_aes_block block) {
    realm_vector state = from_block(block);
    encrypt_blocks(keys, &state, 1);
    return to_block(state);
}

REALM_AES_TARGET realm_aes_block realm_aes256_decrypt1(const void *keys, realm_aes_block block) {
    realm_vector state = from_block(block);
    decrypt_blocks(keys, &state, 1);
    return to_block(state);
}

REALM_AES_TARGET realm_aes_block4 realm_aes256_encrypt4(const void *keys, realm_aes_block4 blocks) {
    realm_vector state[4] = {from_block(blocks.b0), from_block(blocks.b1), from_block(blocks.b2), from_block(blocks.b3)};
    encrypt_blocks(keys, state, 4);
    realm_aes_block4 result = {to_block(state[0]), to_block(state[1]), to_block(state[2]), to_block(state[3])};
    return result;
}

REALM_AES_TARGET realm_aes_block4 realm_aes256_decrypt4(const void *keys, realm_aes_block4 blocks) {
    realm_vector state[4] = {from_block(blocks.b0), from_block(blocks.b1), from_block(blocks.b2), from_block(blocks.b3)};
    decrypt_blocks(keys, state, 4);
    realm_aes_block4 result = {to_block(state[0]), to_block(state[1]), to_block(state[2]), to_block(state[3])};
    return result;
}

/// The counter block of the 128-bit big-endian integer high · 2^64 + low, then the integer
/// incremented modulo 2^128 (the carry is computed, not branched on; counters are public anyway).
REALM_INLINE realm_vector next_counter(uint64_t *high, uint64_t *low) {
    realm_aes_block block = {__builtin_bswap64(*high), __builtin_bswap64(*low)};
    *low += 1;
    *high += (*low == 0);
    return from_block(block);
}

/// Eight blocks per iteration (CTR, CBC decryption): enough independent rounds in flight to keep
/// the AES unit busy, few enough that the states stay in registers (16 on x86-64, 32 on aarch64).
enum { LANES = 8 };

REALM_AES_TARGET void realm_aes256_ctr(const void *keys, const void *input, void *output, size_t count,
                                       uint64_t counter_high, uint64_t counter_low) {
    const unsigned char *source = input;
    unsigned char *destination = output;
    // In place (source == destination) is fine: each block is loaded before it is stored.
    while (count >= 16 * LANES) {
        realm_vector stream[LANES];
        for (int j = 0; j < LANES; j++) stream[j] = next_counter(&counter_high, &counter_low);
        encrypt_blocks(keys, stream, LANES);
        for (int j = 0; j < LANES; j++) {
            store(destination + 16 * j, exclusive_or(load(source + 16 * j), stream[j]));
        }
        source += 16 * LANES;
        destination += 16 * LANES;
        count -= 16 * LANES;
    }
    while (count >= 16) {
        realm_vector stream = next_counter(&counter_high, &counter_low);
        encrypt_blocks(keys, &stream, 1);
        store(destination, exclusive_or(load(source), stream));
        source += 16;
        destination += 16;
        count -= 16;
    }
    if (count > 0) {
        realm_vector stream = next_counter(&counter_high, &counter_low);
        encrypt_blocks(keys, &stream, 1);
        unsigned char bytes[16];
        store(bytes, stream);
        for (size_t index = 0; index < count; index++) destination[index] = source[index] ^ bytes[index];
    }
}

REALM_AES_TARGET void realm_aes256_cbc_encrypt(const void *keys, const void *input, void *output, size_t count,
                                               realm_aes_block iv) {
    const unsigned char *source = input;
    unsigned char *destination = output;
    // Serial: each block waits for the previous ciphertext, so there is nothing to interleave.
    realm_vector previous = from_block(iv);
    for (size_t offset = 0; offset + 16 <= count; offset += 16) {
        previous = exclusive_or(load(source + offset), previous);
        encrypt_blocks(keys, &previous, 1);
        store(destination + offset, previous);
    }
}

REALM_AES_TARGET void realm_aes256_cbc_decrypt(const void *keys, const void *input, void *output, size_t count,
                                               realm_aes_block iv) {
    const unsigned char *source = input;
    unsigned char *destination = output;
    // In place is fine: the ciphertext blocks an iteration needs are all loaded before it stores.
    realm_vector previous = from_block(iv);
    while (count >= 16 * LANES) {
        realm_vector cipher[LANES], plain[LANES];
        for (int j = 0; j < LANES; j++) plain[j] = cipher[j] = load(source + 16 * j);
        decrypt_blocks(keys, plain, LANES);
        store(destination, exclusive_or(plain[0], previous));
        for (int j = 1; j < LANES; j++) store(destination + 16 * j, exclusive_or(plain[j], cipher[j - 1]));
        previous = cipher[LANES - 1];
        source += 16 * LANES;
        destination += 16 * LANES;
        count -= 16 * LANES;
    }
    while (count >= 16) {
        realm_vector cipher = load(source), plain = cipher;
        decrypt_blocks(keys, &plain, 1);
        store(destination, exclusive_or(plain, previous));
        previous = cipher;
        source += 16;
        destination += 16;
        count -= 16;
    }
}

#else  // no hardware path on this architecture: realm_aes_hardware_compiled() is 0, so these never run

realm_aes_block realm_aes256_encrypt1(const void *keys, realm_aes_block block) {
    (void)keys, (void)block;
    __builtin_trap();
}

realm_aes_block realm_aes256_decrypt1(const void *keys, realm_aes_block block) {
    (void)keys, (void)block;
    __builtin_trap();
}

realm_aes_block4 realm_aes256_encrypt4(const void *keys, realm_aes_block4 blocks) {
    (void)keys, (void)blocks;
    __builtin_trap();
}

realm_aes_block4 realm_aes256_decrypt4(const void *keys, realm_aes_block4 blocks) {
    (void)keys, (void)blocks;
    __builtin_trap();
}

void realm_aes256_ctr(const void *keys, const void *input, void *output, size_t count,
                      uint64_t counter_high, uint64_t counter_low) {
    (void)keys, (void)input, (void)output, (void)count, (void)counter_high, (void)counter_low;
    __builtin_trap();
}

void realm_aes256_cbc_encrypt(const void *keys, const void *input, void *output, size_t count,
                              realm_aes_block iv) {
    (void)keys, (void)input, (void)output, (void)count, (void)iv;
    __builtin_trap();
}

void realm_aes256_cbc_decrypt(const void *keys, const void *input, void *output, size_t count,
                              realm_aes_block iv) {
    (void)keys, (void)input, (void)output, (void)count, (void)iv;
    __builtin_trap();
}

#endif


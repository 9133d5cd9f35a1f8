// CRealmCrypto: AES-256 rounds on the CPU's AES instructions, for RealmStorage's `HardwareAES`,
// and the SHA-256 compression on its SHA instructions, for `SHA256` (the contract of every
// function is in include/CRealmCrypto.h; why C, in HardwareAES.swift).
//
// The package passes no compiler flags: each function that executes an AES or SHA instruction
// carries a target attribute (`REALM_AES_TARGET`, `REALM_SHA_TARGET`), which lets the compiler
// emit the instructions in that function only. They execute only after RealmStorage has checked
// the CPU at run time.
//
// Tested: on x86-64 by RealmStorageTests' CryptoTests; the aarch64 paths (not yet built with
// Swift) were run under qemu-aarch64 -cpu max against the FIPS-197, SP 800-38A (CTR, CBC) and
// FIPS 180-4 vectors, at -O2 and -O0, and compile for arm64 Apple, riscv64 and i686 too.
//
// Constant time: each AES round and each pair of SHA-256 rounds is one instruction whose timing
// does not depend on its operands; the only memory read besides the data is the round keys and
// constants, at fixed offsets; the only branches depend on lengths.
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

// MARK: SHA-256

#if defined(__x86_64__)
#define REALM_SHA_HARDWARE 1
#include <immintrin.h>
// SHA-NI, plus SSE4.1 (and the SSSE3 it implies) for the byte shuffles and blends around it.
#define REALM_SHA_TARGET __attribute__((target("sha,sse4.1")))
#elif defined(__aarch64__) && defined(__ARM_NEON) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define REALM_SHA_HARDWARE 1
#define REALM_SHA_TARGET __attribute__((target("sha2")))
#else
#define REALM_SHA_HARDWARE 0
#endif

int realm_sha256_hardware_compiled(void) { return REALM_SHA_HARDWARE; }

// Both compression functions use this table (the Swift one in SHA256.swift too); the hardware
// ones read it four words at a time, hence the alignment.
const uint32_t realm_sha256_round_constants[64] __attribute__((aligned(16))) = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

#if REALM_SHA_HARDWARE

// The 16 groups of four rounds, unrolled so the message words stay in registers (clang leaves
// this loop rolled at -O2, with the words on the stack: 1.3 GB/s instead of 1.5 on a 4 KiB page).
#if defined(__clang__)
#define REALM_UNROLL _Pragma("clang loop unroll(full)")
#else
#define REALM_UNROLL
#endif

#if defined(__x86_64__)

// `sha256rnds2` does two rounds on the state split as ABEF and CDGH (A in the highest lane),
// taking W[t] + K[t] for its two rounds from the low two lanes of its third operand.
// `sha256msg1` and `sha256msg2` compute the σ0 and σ1 halves of four message schedule words.
REALM_SHA_TARGET void realm_sha256_compress(uint32_t *state, const void *blocks, size_t count) {
    const unsigned char *data = blocks;
    // Big-endian words: reverse the bytes within each 32-bit lane.
    const __m128i byte_swap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
    // state[0…3] = A B C D and state[4…7] = E F G H (lane 0 first) into ABEF and CDGH.
    __m128i abcd = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)state), 0xB1);        // B A D C
    __m128i efgh = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)(state + 4)), 0x1B);  // H G F E
    __m128i abef = _mm_alignr_epi8(abcd, efgh, 8);     // F E B A
    __m128i cdgh = _mm_blend_epi16(efgh, abcd, 0xF0);  // H G D C
    for (; count > 0; count--, data += 64) {
        const __m128i saved_abef = abef, saved_cdgh = cdgh;
        __m128i message[4];
        for (int j = 0; j < 4; j++) {
            message[j] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + 16 * j)), byte_swap);
        }
        REALM_UNROLL
        for (int group = 0; group < 16; group++) {
            // message[group % 4] holds W[4·group …] once the schedule below has run for it.
            if (group >= 4) {
                __m128i *next = &message[group % 4];
                __m128i w9_to_w12 = _mm_alignr_epi8(message[(group + 3) % 4], message[(group + 2) % 4], 4);
                *next = _mm_sha256msg1_epu32(*next, message[(group + 1) % 4]);
                *next = _mm_sha256msg2_epu32(_mm_add_epi32(*next, w9_to_w12), message[(group + 3) % 4]);
            }
            __m128i wk = _mm_add_epi32(message[group % 4],
                                       _mm_load_si128((const __m128i *)(realm_sha256_round_constants + 4 * group)));
            cdgh = _mm_sha256rnds2_epu32(cdgh, abef, wk);  // now the new ABEF
            abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(wk, 0x0E));
            // Two rounds moved ABEF to CDGH each time: after four, the roles are back in place.
        }
        abef = _mm_add_epi32(abef, saved_abef);
        cdgh = _mm_add_epi32(cdgh, saved_cdgh);
    }
    __m128i feba = _mm_shuffle_epi32(abef, 0x1B);  // A B E F
    __m128i ghcd = _mm_shuffle_epi32(cdgh, 0xB1);  // G H C D
    _mm_storeu_si128((__m128i *)state, _mm_blend_epi16(feba, ghcd, 0xF0));          // A B C D
    _mm_storeu_si128((__m128i *)(state + 4), _mm_alignr_epi8(ghcd, feba, 8));        // E F G H
}

// Two streams, interleaved. Why: in one stream every `sha256rnds2` needs the state the previous
// one produced, so the compression runs at the instruction's latency (several cycles), while
// the CPU could start about one per cycle. Two independent streams give the out-of-order core a
// second chain to run in those cycles. Each loop body below does the same step for stream 0
// and stream 1 side by side (the `s` loops are fully unrolled), so the two chains sit next to
// each other in the instruction stream. 2 × (2 state + 4 message) vectors plus temporaries fit
// the 16 XMM registers; the saved states of the block go to the stack, read once per block.
REALM_SHA_TARGET void realm_sha256_compress2(uint32_t *state0, const void *blocks0, uint32_t *state1,
                                             const void *blocks1, size_t count) {
    const unsigned char *data[2] = {blocks0, blocks1};
    uint32_t *state[2] = {state0, state1};
    const __m128i byte_swap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
    __m128i abef[2], cdgh[2];
    REALM_UNROLL
    for (int s = 0; s < 2; s++) {  // the same conversion as in realm_sha256_compress
        __m128i abcd = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)state[s]), 0xB1);
        __m128i efgh = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)(state[s] + 4)), 0x1B);
        abef[s] = _mm_alignr_epi8(abcd, efgh, 8);
        cdgh[s] = _mm_blend_epi16(efgh, abcd, 0xF0);
    }
    for (; count > 0; count--, data[0] += 64, data[1] += 64) {
        const __m128i saved_abef[2] = {abef[0], abef[1]}, saved_cdgh[2] = {cdgh[0], cdgh[1]};
        __m128i message[2][4];
        REALM_UNROLL
        for (int j = 0; j < 4; j++) {
            REALM_UNROLL
            for (int s = 0; s < 2; s++) {
                message[s][j] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data[s] + 16 * j)), byte_swap);
            }
        }
        REALM_UNROLL
        for (int group = 0; group < 16; group++) {
            const __m128i k = _mm_load_si128((const __m128i *)(realm_sha256_round_constants + 4 * group));
            __m128i wk[2];
            REALM_UNROLL
            for (int s = 0; s < 2; s++) {
                if (group >= 4) {
                    __m128i *next = &message[s][group % 4];
                    __m128i w9_to_w12 = _mm_alignr_epi8(message[s][(group + 3) % 4], message[s][(group + 2) % 4], 4);
                    *next = _mm_sha256msg1_epu32(*next, message[s][(group + 1) % 4]);
                    *next = _mm_sha256msg2_epu32(_mm_add_epi32(*next, w9_to_w12), message[s][(group + 3) % 4]);
                }
                wk[s] = _mm_add_epi32(message[s][group % 4], k);
            }
            REALM_UNROLL
            for (int s = 0; s < 2; s++) cdgh[s] = _mm_sha256rnds2_epu32(cdgh[s], abef[s], wk[s]);
            REALM_UNROLL
            for (int s = 0; s < 2; s++) abef[s] = _mm_sha256rnds2_epu32(abef[s], cdgh[s], _mm_shuffle_epi32(wk[s], 0x0E));
        }
        REALM_UNROLL
        for (int s = 0; s < 2; s++) {
            abef[s] = _mm_add_epi32(abef[s], saved_abef[s]);
            cdgh[s] = _mm_add_epi32(cdgh[s], saved_cdgh[s]);
        }
    }
    REALM_UNROLL
    for (int s = 0; s < 2; s++) {
        __m128i feba = _mm_shuffle_epi32(abef[s], 0x1B);
        __m128i ghcd = _mm_shuffle_epi32(cdgh[s], 0xB1);
        _mm_storeu_si128((__m128i *)state[s], _mm_blend_epi16(feba, ghcd, 0xF0));
        _mm_storeu_si128((__m128i *)(state[s] + 4), _mm_alignr_epi8(ghcd, feba, 8));
    }
}

#else  // aarch64

// SHA256H and SHA256H2 do four rounds on the state halves ABCD and EFGH; SHA256SU0 and
// SHA256SU1 compute four message schedule words.
REALM_SHA_TARGET void realm_sha256_compress(uint32_t *state, const void *blocks, size_t count) {
    const unsigned char *data = blocks;
    uint32x4_t abcd = vld1q_u32(state), efgh = vld1q_u32(state + 4);
    for (; count > 0; count--, data += 64) {
        const uint32x4_t saved_abcd = abcd, saved_efgh = efgh;
        uint32x4_t message[4];
        for (int j = 0; j < 4; j++) message[j] = vreinterpretq_u32_u8(vrev32q_u8(vld1q_u8(data + 16 * j)));
        REALM_UNROLL
        for (int group = 0; group < 16; group++) {
            if (group >= 4) {
                message[group % 4] = vsha256su1q_u32(vsha256su0q_u32(message[group % 4], message[(group + 1) % 4]),
                                                     message[(group + 2) % 4], message[(group + 3) % 4]);
            }
            uint32x4_t wk = vaddq_u32(message[group % 4], vld1q_u32(realm_sha256_round_constants + 4 * group));
            uint32x4_t previous_abcd = abcd;
            abcd = vsha256hq_u32(abcd, efgh, wk);
            efgh = vsha256h2q_u32(efgh, previous_abcd, wk);
        }
        abcd = vaddq_u32(abcd, saved_abcd);
        efgh = vaddq_u32(efgh, saved_efgh);
    }
    vst1q_u32(state, abcd);
    vst1q_u32(state + 4, efgh);
}

// Two streams, interleaved, for the reason given at the x86-64 version: each SHA256H waits for
// the previous one of its stream, and the other stream's fill that wait. Not measured on an
// arm64 CPU (none at hand); checked for equality with two single calls under qemu-aarch64.
REALM_SHA_TARGET void realm_sha256_compress2(uint32_t *state0, const void *blocks0, uint32_t *state1,
                                             const void *blocks1, size_t count) {
    const unsigned char *data[2] = {blocks0, blocks1};
    uint32_t *state[2] = {state0, state1};
    uint32x4_t abcd[2] = {vld1q_u32(state0), vld1q_u32(state1)};
    uint32x4_t efgh[2] = {vld1q_u32(state0 + 4), vld1q_u32(state1 + 4)};
    for (; count > 0; count--, data[0] += 64, data[1] += 64) {
        const uint32x4_t saved_abcd[2] = {abcd[0], abcd[1]}, saved_efgh[2] = {efgh[0], efgh[1]};
        uint32x4_t message[2][4];
        for (int s = 0; s < 2; s++) {
            for (int j = 0; j < 4; j++) message[s][j] = vreinterpretq_u32_u8(vrev32q_u8(vld1q_u8(data[s] + 16 * j)));
        }
        REALM_UNROLL
        for (int group = 0; group < 16; group++) {
            const uint32x4_t k = vld1q_u32(realm_sha256_round_constants + 4 * group);
            REALM_UNROLL
            for (int s = 0; s < 2; s++) {
                if (group >= 4) {
                    message[s][group % 4] = vsha256su1q_u32(vsha256su0q_u32(message[s][group % 4], message[s][(group + 1) % 4]),
                                                            message[s][(group + 2) % 4], message[s][(group + 3) % 4]);
                }
                uint32x4_t wk = vaddq_u32(message[s][group % 4], k);
                uint32x4_t previous_abcd = abcd[s];
                abcd[s] = vsha256hq_u32(abcd[s], efgh[s], wk);
                efgh[s] = vsha256h2q_u32(efgh[s], previous_abcd, wk);
            }
        }
        for (int s = 0; s < 2; s++) {
            abcd[s] = vaddq_u32(abcd[s], saved_abcd[s]);
            efgh[s] = vaddq_u32(efgh[s], saved_efgh[s]);
        }
    }
    for (int s = 0; s < 2; s++) {
        vst1q_u32(state[s], abcd[s]);
        vst1q_u32(state[s] + 4, efgh[s]);
    }
}

#endif

#else  // no hardware path on this architecture: realm_sha256_hardware_compiled() is 0

void realm_sha256_compress(uint32_t *state, const void *blocks, size_t count) {
    (void)state, (void)blocks, (void)count;
    __builtin_trap();
}

void realm_sha256_compress2(uint32_t *state0, const void *blocks0, uint32_t *state1, const void *blocks1,
                            size_t count) {
    (void)state0, (void)blocks0, (void)state1, (void)blocks1, (void)count;
    __builtin_trap();
}

#endif

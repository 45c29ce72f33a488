/// SipHash-2-4 with a 128-bit result (Aumasson and Bernstein), keyed with
/// 128 secret bits: without the key, nobody can make two inputs with the
/// same result, unlike ``ContentHash``, which anyone can collide. It tells
/// whether a file's bytes are the ones a fingerprint was taken of (see
/// ``DomainIndex`` and `Domain.Source`). About 4 instructions a byte.
/// A value type; safe from any thread.
struct SipHash: Equatable, Sendable {
    /// A secret key: two 64-bit words, little-endian halves of the 16 key bytes.
    struct Key: Equatable, Sendable {
        var k0: UInt64
        var k1: UInt64

        /// A new key from the system's random source (`getrandom`).
        static func random() -> Key {
            var g = SystemRandomNumberGenerator()
            return Key(k0: g.next(), k1: g.next())
        }

        /// This process's key, for fingerprints that never leave it.
        static let process = Key.random()
    }

    var h0: UInt64
    var h1: UInt64

    /// The hash of `bytes` under `key`.
    init(_ bytes: UnsafeRawBufferPointer, key: Key) {
        var v0: UInt64 = 0x736f_6d65_7073_6575 ^ key.k0
        var v1: UInt64 = 0x646f_7261_6e64_6f6d ^ key.k1 ^ 0xee
        var v2: UInt64 = 0x6c79_6765_6e65_7261 ^ key.k0
        var v3: UInt64 = 0x7465_6462_7974_6573 ^ key.k1
        @inline(__always) func round() {
            v0 &+= v1
            v1 = (v1 << 13) | (v1 >> 51)
            v1 ^= v0
            v0 = (v0 << 32) | (v0 >> 32)
            v2 &+= v3
            v3 = (v3 << 16) | (v3 >> 48)
            v3 ^= v2
            v0 &+= v3
            v3 = (v3 << 21) | (v3 >> 43)
            v3 ^= v0
            v2 &+= v1
            v1 = (v1 << 17) | (v1 >> 47)
            v1 ^= v2
            v2 = (v2 << 32) | (v2 >> 32)
        }
        let n = bytes.count
        var i = 0
        while i + 8 <= n {
            let m = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            v3 ^= m
            round()
            round()
            v0 ^= m
            i += 8
        }
        var last = UInt64(truncatingIfNeeded: n) << 56
        var shift: UInt64 = 0
        while i < n {
            last |= UInt64(bytes[i]) << shift
            shift += 8
            i += 1
        }
        v3 ^= last
        round()
        round()
        v0 ^= last
        v2 ^= 0xee
        round()
        round()
        round()
        round()
        h0 = v0 ^ v1 ^ v2 ^ v3
        v1 ^= 0xdd
        round()
        round()
        round()
        round()
        h1 = v0 ^ v1 ^ v2 ^ v3
    }

    init(_ bytes: [UInt8], key: Key) {
        self = bytes.withUnsafeBytes { SipHash($0, key: key) }
    }

    init(h0: UInt64, h1: UInt64) {
        self.h0 = h0
        self.h1 = h1
    }
}

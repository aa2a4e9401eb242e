/// A fixed 64-bit hash (FNV-1a then a SplitMix64 finaliser): the same on every platform and run,
/// used for jitter and seeded random choices so that no RNG state exists.
public enum StableHash {
    public static func hash(_ text: String) -> UInt64 {
        var value: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            value ^= UInt64(byte)
            value = value &* 0x0000_0100_0000_01b3
        }
        value ^= value >> 30
        value = value &* 0xbf58_476d_1ce4_e5b9
        value ^= value >> 27
        value = value &* 0x94d0_49bb_1331_11eb
        value ^= value >> 31
        return value
    }
}

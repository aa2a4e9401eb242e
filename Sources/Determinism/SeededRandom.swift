/// SplitMix64: a tiny, fast, seedable PRNG. Same seed, same sequence, on every platform.
///
/// The one seeded random source of the package: the sandbox model's ids, keys and challenge dice,
/// `plan`'s feed and fault dice, and every test that wants reproducible random input. A `plan` is
/// byte-identical for a seed only while this sequence never changes.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) {
        self.state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform integer in `range` (inclusive).
    public mutating func int(in range: ClosedRange<Int>) -> Int {
        let span = UInt64(range.upperBound - range.lowerBound) + 1
        return range.lowerBound + Int(next() % span)
    }

    /// A uniform index below `count` (0 when `count` is 0 or less).
    public mutating func index(_ count: Int) -> Int {
        Int(next() % UInt64(max(count, 1)))
    }

    /// A uniform double in [0, 1).
    public mutating func unit() -> Double {
        Double(next() >> 11) * (1.0 / 9_007_199_254_740_992.0)
    }

    /// True with probability `p`.
    public mutating func chance(_ p: Double) -> Bool {
        if p <= 0 { return false }
        if p >= 1 { return true }
        return unit() < p
    }

    /// One element of a non-empty array.
    public mutating func pick<T>(_ items: [T]) -> T {
        items[int(in: 0...(items.count - 1))]
    }

    /// A lowercase UUID string (version 4 layout) built from the stream.
    public mutating func uuid() -> String {
        var bytes = [UInt8]()
        for word in [next(), next()] {
            for shift in stride(from: 56, through: 0, by: -8) {
                bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(shift)))
            }
        }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let hex = bytes.map { byte -> String in
            let text = String(byte, radix: 16)
            return text.count == 1 ? "0" + text : text
        }
        let groups = [0..<4, 4..<6, 6..<8, 8..<10, 10..<16].map { hex[$0].joined() }
        return groups.joined(separator: "-")
    }

    /// `count` characters drawn from `alphabet`.
    public mutating func token(_ count: Int, alphabet: String) -> String {
        let letters = Array(alphabet)
        return String((0..<count).map { _ in pick(letters) })
    }
}

/// The scrypt work factors a key file is sealed with, and the bounds every file is held to.
///
/// Bounds are checked on read before anything is derived, so a crafted header cannot make an
/// unlock take minutes or gigabytes (age does the same).
public struct ScryptParameters: Sendable, Hashable, CustomStringConvertible {
    /// log2 of the CPU/memory cost N.
    public var log2N: UInt8
    /// The block size r.
    public var r: UInt8
    /// The parallelism p.
    public var p: UInt8

    public init(log2N: UInt8, r: UInt8, p: UInt8) {
        self.log2N = log2N
        self.r = r
        self.p = p
    }

    /// The default for new files: N = 2^18, r = 8, p = 1 (age's choice; 256 MiB, about one
    /// second on a 2-core machine — see docs/keychain-format.md for the measurement).
    public static let strong = ScryptParameters(log2N: 18, r: 8, p: 1)

    /// N = 2^4, r = 1, p = 1: instant, for tests and fixtures only. Never use it for real keys.
    public static let insecureTestOnly = ScryptParameters(log2N: 4, r: 1, p: 1)

    /// Largest accepted log2 N.
    public static let maxLog2N: UInt8 = 20
    /// Largest accepted r.
    public static let maxR: UInt8 = 32
    /// Largest accepted p.
    public static let maxP: UInt8 = 16
    /// Largest accepted memory, 128 · r · N bytes: 1 GiB.
    public static let maxMemory = 1 << 30
    /// Largest accepted total work, N · r · p: 2^24 (8 × the default).
    public static let maxWork = 1 << 24

    /// N itself.
    public var n: Int { 1 << Int(log2N) }

    /// Bytes of memory one derivation needs (128 · r · N).
    public var memory: Int { 128 * Int(r) * n }

    /// `nil` when the parameters are within bounds, otherwise what is wrong.
    public var boundsViolation: String? {
        if log2N < 1 || log2N > Self.maxLog2N { return "log2 N = \(log2N), accepted 1...\(Self.maxLog2N)" }
        if r < 1 || r > Self.maxR { return "r = \(r), accepted 1...\(Self.maxR)" }
        if p < 1 || p > Self.maxP { return "p = \(p), accepted 1...\(Self.maxP)" }
        if memory > Self.maxMemory { return "128·r·N = \(memory) bytes, accepted up to \(Self.maxMemory)" }
        let work = n * Int(r) * Int(p)
        if work > Self.maxWork { return "N·r·p = \(work), accepted up to \(Self.maxWork)" }
        return nil
    }

    public var description: String { "scrypt(N=2^\(log2N), r=\(r), p=\(p))" }
}

import Foundation

/// The limiter's stored form: a small binary record instead of `Codable` JSON.
///
/// The engine loads and stores the limiter on every pass and after every attempt; through
/// `JSONEncoder`/`JSONDecoder` that was a sixth of `plan`'s time (a limiter holds up to a day of
/// admission times per sliding-window rule). Layout, little-endian: the magic `00 4D 4C 01`
/// (a JSON document never starts with a NUL byte), then rules, rule states, holds, learned
/// spacings and recent admissions, each a count and its entries in sorted key order (so equal
/// limiters give equal bytes). Dates are `timeIntervalSinceReferenceDate` as IEEE doubles:
/// exact. State written by earlier versions (JSON) still loads.
extension Limiter {
    static let magic: [UInt8] = [0x00, 0x4D, 0x4C, 0x01]

    /// Why stored limiter bytes could not be read.
    public struct SerializationError: Error, CustomStringConvertible {
        public var description: String
    }

    /// The stored form.
    public func serialized() -> Data {
        var out = ByteWriter()
        out.bytes(Self.magic)
        out.count(rules.count)
        for (limitClass, list) in rules.sorted(by: { $0.key < $1.key }) {
            out.string(limitClass.rawValue)
            out.count(list.count)
            for rule in list {
                out.string(rule.id)
                out.int(rule.limit)
                out.double(rule.period)
                out.byte(rule.algorithm == .gcra ? 1 : 0)
            }
        }
        out.count(states.count)
        for (key, state) in states.sorted(by: { $0.key < $1.key }) {
            out.string(key)
            switch state {
            case .window(let times):
                out.byte(0)
                out.count(times.count)
                for time in times { out.date(time) }
            case .gcra(let tat):
                out.byte(tat == nil ? 1 : 2)
                if let tat { out.date(tat) }
            }
        }
        out.count(holds.count)
        for (limitClass, hold) in holds.sorted(by: { $0.key < $1.key }) {
            out.string(limitClass.rawValue)
            out.date(hold.until)
            out.string(hold.detail)
        }
        out.count(learned.count)
        for (limitClass, spacing) in learned.sorted(by: { $0.key < $1.key }) {
            out.string(limitClass.rawValue)
            out.double(spacing)
        }
        out.count(recentAdmissions.count)
        for (limitClass, times) in recentAdmissions.sorted(by: { $0.key < $1.key }) {
            out.string(limitClass.rawValue)
            out.count(times.count)
            for time in times { out.date(time) }
        }
        // Appended later: when each spacing was learned (absent from older state, whose learned
        // spacings then lapse at once).
        if !learnedAt.isEmpty {
            out.count(learnedAt.count)
            for (limitClass, date) in learnedAt.sorted(by: { $0.key < $1.key }) {
                out.string(limitClass.rawValue)
                out.date(date)
            }
        }
        return Data(out.buffer)
    }

    /// Reads `serialized()` output, or the JSON of `Codable` (state written before this format).
    public init(serialized data: Data) throws {
        guard data.starts(with: Self.magic) else {
            self = try JSONDecoder().decode(Limiter.self, from: data)
            return
        }
        var input = ByteReader(bytes: [UInt8](data), offset: Self.magic.count)
        self.init(rules: [:])
        for _ in 0..<(try input.count()) {
            let limitClass = try input.limitClass()
            var list: [Rule] = []
            for _ in 0..<(try input.count()) {
                let id = try input.string()
                let limit = try input.int()
                let period = try input.double()
                let algorithm: Rule.Algorithm = try input.byte() == 1 ? .gcra : .slidingWindow
                list.append(Rule(id: id, limit: limit, period: period, algorithm: algorithm))
            }
            rules[limitClass] = list
        }
        for _ in 0..<(try input.count()) {
            let key = try input.string()
            switch try input.byte() {
            case 0:
                var times: [Date] = []
                for _ in 0..<(try input.count()) { times.append(try input.date()) }
                states[key] = .window(times)
            case 1: states[key] = .gcra(nil)
            case 2: states[key] = .gcra(try input.date())
            case let tag: throw SerializationError(description: "unknown rule state tag \(tag) at byte \(input.offset)")
            }
        }
        for _ in 0..<(try input.count()) {
            let limitClass = try input.limitClass()
            holds[limitClass] = Hold(until: try input.date(), detail: try input.string())
        }
        for _ in 0..<(try input.count()) {
            let limitClass = try input.limitClass()
            learned[limitClass] = try input.double()
        }
        for _ in 0..<(try input.count()) {
            let limitClass = try input.limitClass()
            var times: [Date] = []
            for _ in 0..<(try input.count()) { times.append(try input.date()) }
            recentAdmissions[limitClass] = times
        }
        if input.offset < input.bytes.count {
            for _ in 0..<(try input.count()) {
                let limitClass = try input.limitClass()
                learnedAt[limitClass] = try input.date()
            }
        }
        guard input.offset == input.bytes.count else {
            throw SerializationError(description: "\(input.bytes.count - input.offset) bytes after the limiter state")
        }
    }
}

private struct ByteWriter {
    var buffer: [UInt8] = []

    init() { buffer.reserveCapacity(1_024) }

    mutating func bytes(_ bytes: [UInt8]) { buffer += bytes }
    mutating func byte(_ value: UInt8) { buffer.append(value) }

    mutating func uint64(_ value: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { buffer.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    mutating func count(_ value: Int) { uint64(UInt64(value)) }
    mutating func int(_ value: Int) { uint64(UInt64(bitPattern: Int64(value))) }
    mutating func double(_ value: Double) { uint64(value.bitPattern) }
    mutating func date(_ value: Date) { double(value.timeIntervalSinceReferenceDate) }

    mutating func string(_ value: String) {
        count(value.utf8.count)
        buffer += value.utf8
    }
}

private struct ByteReader {
    let bytes: [UInt8]
    var offset: Int

    func truncated() -> Limiter.SerializationError {
        Limiter.SerializationError(description: "limiter state truncated at byte \(offset) of \(bytes.count)")
    }

    mutating func byte() throws -> UInt8 {
        guard offset < bytes.count else { throw truncated() }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func uint64() throws -> UInt64 {
        guard offset + 8 <= bytes.count else { throw truncated() }
        var value: UInt64 = 0
        for index in 0..<8 { value |= UInt64(bytes[offset + index]) << UInt64(8 * index) }
        offset += 8
        return value
    }

    /// A count, bounded by the bytes left (each entry takes at least one byte), so corrupt
    /// input cannot ask for a huge allocation.
    mutating func count() throws -> Int {
        let value = try uint64()
        guard value <= UInt64(bytes.count - offset) else {
            throw Limiter.SerializationError(description: "implausible count \(value) at byte \(offset - 8)")
        }
        return Int(value)
    }

    mutating func int() throws -> Int { Int(Int64(bitPattern: try uint64())) }
    mutating func double() throws -> Double { Double(bitPattern: try uint64()) }
    mutating func date() throws -> Date { Date(timeIntervalSinceReferenceDate: try double()) }

    mutating func string() throws -> String {
        let length = try count()
        guard let text = String(validating: bytes[offset..<offset + length], as: UTF8.self) else {
            throw Limiter.SerializationError(description: "invalid UTF-8 at byte \(offset)")
        }
        offset += length
        return text
    }

    mutating func limitClass() throws -> LimitClass {
        let name = try string()
        guard let limitClass = LimitClass(rawValue: name) else {
            throw Limiter.SerializationError(description: "unknown limit class \"\(name)\"")
        }
        return limitClass
    }
}

/// Finds the first byte that breaks UTF-8 validity, and the line and column it sits at.
enum UTF8Check {
    /// The offset of the first invalid byte, or nil if `bytes` is valid UTF-8.
    static func firstInvalidByte(in bytes: [UInt8]) -> Int? {
        var iterator = bytes.makeIterator()
        var parser = Unicode.UTF8.ForwardParser()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let scalar): offset += scalar.count
            case .emptyInput: return nil
            case .error: return offset
            }
        }
    }

    /// The 1-based line and column of byte `offset`, counting the valid scalars before it on its line.
    static func mark(ofByte offset: Int, in bytes: [UInt8]) -> Mark {
        var line = 1
        var lineStart = 0
        for index in 0..<min(offset, bytes.count) where bytes[index] == UInt8(ascii: "\n") {
            line += 1
            lineStart = index + 1
        }
        let prefix = bytes[lineStart..<min(offset, bytes.count)]
        let column = String(decoding: prefix, as: UTF8.self).unicodeScalars.count + 1
        return Mark(line: line, column: column)
    }
}

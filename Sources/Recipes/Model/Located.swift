/// A decoded value with the position it was written at.
public struct Located<Value: Sendable & Equatable>: Sendable, Equatable {
    public var value: Value
    public var mark: Mark

    public init(_ value: Value, at mark: Mark) {
        self.value = value
        self.mark = mark
    }
}

import Foundation

/// The single arithmetic operation a challenge asks for: the one enum of the solver and of the sandbox's
/// challenge generator (`MoltbookSandbox` depends on this pure target for it).
public enum ArithmeticOperation: String, Sendable, Codable, CaseIterable, Equatable {
    case add, subtract, multiply, divide

    /// The operator symbol (`+`, `-`, `*`, `/`).
    public var symbol: String {
        switch self {
        case .add: "+"
        case .subtract: "-"
        case .multiply: "*"
        case .divide: "/"
        }
    }

    /// `a` and `b` combined, exactly (a division by zero gives NaN: the caller rules it out).
    public func result(_ a: Decimal, _ b: Decimal) -> Decimal {
        switch self {
        case .add: a + b
        case .subtract: a - b
        case .multiply: a * b
        case .divide: a / b
        }
    }
}

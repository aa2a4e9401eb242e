/// The single arithmetic operation a challenge asks for.
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
}

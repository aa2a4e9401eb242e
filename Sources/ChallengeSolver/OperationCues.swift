import Foundation

/// The words and phrases that name the operation, searched in the collapsed letter stream of a challenge (see
/// `ChallengeNormalizer.stream`: no spaces, doubled letters collapsed, numbers as `#`).
enum OperationCues {
    /// One cue: its text (written plainly, collapsed on use), the operation and how strongly it names it
    /// (3 unambiguous, 2 usual, 1 weak: "total", "more"). Scaling words carry their implicit operand.
    struct Cue: Sendable {
        var text: String
        var operation: ArithmeticOperation
        var weight: Int
        var implicitOperand: Int?
        /// Longer words that contain the cue without meaning it ("gains" in "against").
        var containers: [String]
        /// The cue's words, matched in order with up to five letters of filler between them ("push like together").
        var pattern: NSRegularExpression

        init(
            _ text: String, _ operation: ArithmeticOperation, _ weight: Int, implicit: Int? = nil,
            unless containers: [String] = []
        ) {
            self.text = ChallengeNormalizer.collapse(text.filter { $0 != " " })
            self.operation = operation
            self.weight = weight
            self.implicitOperand = implicit
            self.containers = containers.map { ChallengeNormalizer.collapse($0) }
            let parts = text.split(separator: " ").map {
                NSRegularExpression.escapedPattern(for: ChallengeNormalizer.collapse(String($0)))
            }
            // The cue texts are fixed and the escaped parts always form a valid expression.
            self.pattern = try! NSRegularExpression(pattern: parts.joined(separator: "[^#]{0,5}?"))
        }

        /// Whether `stream` holds the cue outside its containers.
        func occurs(in stream: String) -> Bool {
            var rest = stream
            for container in containers { rest = rest.replacingOccurrences(of: container, with: "|") }
            return pattern.firstMatch(in: rest, range: NSRange(rest.startIndex..., in: rest)) != nil
        }
    }

    static let all: [Cue] = additions + subtractions + multiplications + divisions

    static let additions: [Cue] = [
        Cue("total", .add, 1), Cue("the sum", .add, 2), Cue("sum of", .add, 2), Cue("combined", .add, 2),
        Cue("plus", .add, 3), Cue("adds", .add, 2), Cue("added", .add, 2), Cue("gains", .add, 2, unless: ["against"]),
        Cue("gained", .add, 2, unless: ["against"]), Cue("accelerates", .add, 2), Cue("increase", .add, 2),
        Cue("speeds up", .add, 2),
        Cue("more", .add, 1), Cue("grows", .add, 2), Cue("boost", .add, 2), Cue("how many now", .add, 1),
        Cue("force now", .add, 1), Cue("other claw", .add, 1), Cue("gives", .add, 1), Cue("addition", .add, 2),
        Cue("altogether", .add, 1),
    ]

    static let subtractions: [Cue] = [
        Cue("slows", .subtract, 3), Cue("slowed", .subtract, 3), Cue("loses", .subtract, 3),
        Cue("lost", .subtract, 3), Cue("reduc", .subtract, 3), Cue("remain", .subtract, 2),
        Cue("net force", .subtract, 3), Cue("the net", .subtract, 3), Cue("minus", .subtract, 3),
        Cue("decelerat", .subtract, 3), Cue("drag", .subtract, 2), Cue("takes away", .subtract, 3),
        Cue("resist", .subtract, 2), Cue("against", .subtract, 2), Cue("opposing", .subtract, 2),
        Cue("subtract", .subtract, 3), Cue("fewer", .subtract, 2), Cue("difference", .subtract, 3),
        Cue("decrease", .subtract, 3), Cue("drops by", .subtract, 2),
    ]

    static let multiplications: [Cue] = [
        Cue("multipl", .multiply, 3), Cue("product", .multiply, 3), Cue("times", .multiply, 2),
        Cue("twice", .multiply, 3, implicit: 2), Cue("double", .multiply, 3, implicit: 2),
        Cue("triple", .multiply, 3, implicit: 3), Cue("fold", .multiply, 3), Cue("there are", .multiply, 3),
        Cue("push together", .multiply, 3), Cue("momentum", .multiply, 3), Cue("power", .multiply, 3),
        Cue("watts", .multiply, 3), Cue("work", .multiply, 2), Cue("how far", .multiply, 3),
        Cue("impulse", .multiply, 3), Cue("torque", .multiply, 3), Cue("for # second", .multiply, 3),
        Cue("for # minute", .multiply, 3), Cue("strikes", .multiply, 2), Cue("has # claws", .multiply, 3),
        Cue("factor", .multiply, 2), Cue("each #", .multiply, 1),
    ]

    static let divisions: [Cue] = [
        Cue("divid", .divide, 3), Cue("split", .divide, 3), Cue("share", .divide, 3), Cue("equally", .divide, 2),
        Cue("among", .divide, 1), Cue("ratio", .divide, 2), Cue("quotient", .divide, 3), Cue("in # second", .divide, 3),
        Cue("meters in", .divide, 3),
        Cue("does each", .divide, 2), Cue("halves", .divide, 3, implicit: 2),
    ]

    /// Fillers and junk that carry no meaning; cues are searched with and without them (a fragment "um" may also
    /// be the end of a split "moment um").
    static let fillers: Set<String> = [
        "um", "uh", "uhm", "hm", "er", "like", "lxobqstwer", "lxq", "blah", "glar", "swoth", "physxics", "ha",
        "lobster", "lobsters",
    ]

    /// The cues found in `stream`.
    static func hits(in stream: String) -> [Cue] {
        all.filter { $0.occurs(in: stream) }
    }
}

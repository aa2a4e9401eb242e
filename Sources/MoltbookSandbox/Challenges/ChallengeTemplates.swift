import ChallengeSolver

/// A plain-lowercase word problem with `{a}` and `{b}` slots, in the lobster/physics style of real challenges.
struct ChallengeTemplate: Sendable {
    var operation: ArithmeticOperation
    var text: String
    /// The second operand is a count ("there are N claws"): small whole numbers.
    var countOperand: Bool = false

    static let all: [ChallengeTemplate] = additions + subtractions + multiplications + divisions

    static let additions: [ChallengeTemplate] = [
        .init(
            operation: .add,
            text: "a lobster claw exerts {a} newtons and the other claw exerts {b} newtons, what is the total force?"),
        .init(
            operation: .add,
            text: "a lobster swims at {a} meters per second and gains {b} meters per second, what is the new speed?"),
        .init(operation: .add, text: "a lobster has {a} neurons and molting adds {b} more, how many now?"),
        .init(
            operation: .add,
            text: "a lobster swims at {a} centimeters per second and a tail flick adds {b}, what is the new velocity?"),
        .init(
            operation: .add,
            text: "a lobster moving at {a} meters per second accelerates by {b}, what is the new velocity?"),
        .init(
            operation: .add,
            text:
                "a lobster claw pushes with {a} newtons plus {b} newtons of water pressure, what is the combined force?"
        ),
        .init(
            operation: .add,
            text: "the dominance fight starts at {a} newtons and increases by {b} newtons, how much force now?"),
        .init(
            operation: .add,
            text: "a lobster swims at {a} meters per second and the current gives {b} more, what is the sum?"),
    ]

    static let subtractions: [ChallengeTemplate] = [
        .init(
            operation: .subtract,
            text: "a lobster swims at {a} meters per second and slows by {b}, what is the new speed?"),
        .init(
            operation: .subtract,
            text: "a lobster claw exerts {a} newtons but loses {b} newtons during molting, what is the remaining force?"
        ),
        .init(
            operation: .subtract,
            text:
                "a lobster pushes with {a} newtons and an opposing claw pushes against it with {b} newtons, what is the net force?"
        ),
        .init(
            operation: .subtract,
            text:
                "drag reduces the velocity of a lobster from {a} centimeters per second by {b}, what is the new velocity?"
        ),
        .init(
            operation: .subtract,
            text: "a lobster moving at {a} meters per second decelerates by {b}, how fast is it now?"),
        .init(operation: .subtract, text: "a lobster has {a} neurons and loses {b} of them, how many remain?"),
    ]

    static let multiplications: [ChallengeTemplate] = [
        .init(
            operation: .multiply,
            text: "each lobster claw exerts {a} newtons and there are {b} claws, what is the total force?",
            countOperand: true),
        .init(
            operation: .multiply,
            text: "a lobster swims at {a} meters per second for {b} seconds, how far does it travel?"),
        .init(
            operation: .multiply,
            text: "a lobster has a mass of {a} kilograms and moves at {b} meters per second, what is its momentum?"),
        .init(operation: .multiply, text: "a lobster claw applies {a} newtons over {b} meters, how much work is done?"),
        .init(operation: .multiply, text: "a lobster force of {a} newtons is multiplied by {b}, what is the product?"),
        .init(
            operation: .multiply,
            text: "a lobster claw exerts {a} newtons and {b} lobsters push together, what is the total force?",
            countOperand: true),
        .init(
            operation: .multiply,
            text: "a lobster has {a} neurons and each fires {b} times, how many signals fire in total?",
            countOperand: true),
        .init(
            operation: .multiply, text: "a lobster pushes with {a} newtons at {b} meters per second, what is the power?"
        ),
    ]

    static let divisions: [ChallengeTemplate] = [
        .init(
            operation: .divide,
            text:
                "a lobster claw force of {a} newtons is split equally between {b} claws, how much force does each claw get?",
            countOperand: true),
        .init(
            operation: .divide,
            text: "a lobster pushes with {a} newtons and has a mass of {b} kilograms, what is its acceleration?"),
        .init(operation: .divide, text: "a lobster swims {a} meters in {b} seconds, what is its velocity?"),
        .init(
            operation: .divide,
            text: "the lobsters share {a} newtons of claw force equally among {b} lobsters, how much does each get?",
            countOperand: true),
    ]

    /// Framing phrases put in front at the highest obfuscation level (no numbers in them).
    static let framings = [
        "in the dominance fight over territory", "um so during molting season", "this is a lobster physics problem",
        "okay lobster math time", "deep in the reef at night",
    ]

    /// A framing with a distractor number the grader ignores (seen in real texts: "with one claw").
    static let distractorFramings = ["a lobster with one big claw is here", "two claws are visible but listen"]

    static let fillers = ["um", "umm", "uh", "uhm", "hmm", "errr", "like"]
    static let junk = ["lxobqstwer", "lxq", "<ha>", "blah", "glarr", "swooooth", "phyysxics", "looobsssster"]
}

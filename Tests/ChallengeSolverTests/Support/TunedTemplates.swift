import ChallengeSolver

/// The templates of the tuning corpus: the families of real texts (challenges.md) and of the wrong answers of
/// issue 18, in wordings the solver was developed against.
enum TunedTemplates {
    static let all: [ChallengeTemplate] =
        additions + subtractions + multiplications + divisions + distractors + broad

    static let additions: [ChallengeTemplate] = [
        .init(
            "two claws", .add,
            "a lobster claw exerts {a} newtons and the other claw exerts {b} newtons, what is the total force?"),
        .init(
            "two claws", .add,
            "a lobster claw exerts {a} nootons, um, and the other claw adds {b} nootons, how much total force?"),
        .init(
            "another claw", .add,
            "a lobster claw force is {a} newtons and another claw has {b} newtons, what is the combined force?"),
        .init(
            "gains", .add,
            "a lobster swims at {a} meters per second and gains {b} meters per second, what is the new speed?"),
        .init(
            "gains", .add,
            "the claw force is {a} newtons and it gains {b} newtons during molting, what is the total force?"),
        .init(
            "accelerates", .add,
            "a lobster moving at {a} centimeters per second accelerates by {b}, what is the new velocity?"),
        .init(
            "increases", .add,
            "the dominance fight starts at {a} newtons and increases by {b} newtons, how much force now?"),
        .init(
            "speeds up", .add, "a lobster swims at {a} meters per second and speeds up by {b}, what is its new speed?"),
        .init("adds", .add, "a lobster has {a} neurons and molting adds {b} more, how many now?"),
        .init(
            "tail flick", .add,
            "a lobster swims at {a} centimeters per second and a tail flick adds {b}, what is the new velocity?"),
        .init(
            "plus", .add,
            "a lobster claw pushes with {a} newtons plus {b} newtons of water pressure, what is the combined force?"),
        .init(
            "current gives", .add,
            "a lobster swims at {a} meters per second and the current gives {b} more, what is the sum?"),
        .init("explicit plus", .add, "a lobster claw is {a} newtons + {b} newtons, how much force now?"),
        .init("count noun with add verb", .add, "a lobster has {a} claws and gains {b} more, how many claws total?"),
        .init(
            "count noun with add verb", .add,
            "a lobster colony has {a} lobsters and {b} more lobsters join, how many lobsters total?"),
        .init(
            "grows", .add,
            "a lobster shell is {a} centimeters and grows by {b} centimeters during molting, what is the new size?"),
    ]

    static let subtractions: [ChallengeTemplate] = [
        .init("slows", .subtract, "a lobster swims at {a} meters per second and slows by {b}, what is the new speed?"),
        .init(
            "loses", .subtract,
            "a lobster claw exerts {a} newtons but loses {b} newtons during molting, what is the remaining force?"),
        .init(
            "net force", .subtract,
            "a lobster pushes with {a} newtons and an opposing claw pushes against it with {b} newtons, what is the net force?"
        ),
        .init(
            "reduces", .subtract,
            "drag reduces the velocity of a lobster from {a} centimeters per second by {b}, what is the new velocity?"),
        .init(
            "decelerates", .subtract,
            "a lobster moving at {a} meters per second decelerates by {b}, how fast is it now?"),
        .init("remain", .subtract, "a lobster has {a} neurons and loses {b} of them, how many remain?"),
        .init("bare hyphen", .subtract, "a lobster velocity is {a} - {b}, what is the new velocity?"),
        .init(
            "smaller from larger", .subtract,
            "two claws exert {a} and {b} newtons, what is the result of subtracting the smaller from the larger?",
            absolute: true),
        .init(
            "takes away", .subtract,
            "a lobster claw force is {a} newtons but the rival takes away {b} newtons, how much force remains?"),
    ]

    static let multiplications: [ChallengeTemplate] = [
        .init(
            "each there are", .multiply,
            "each lobster claw exerts {a} newtons and there are {b} claws, what is the total force?", second: 2...9),
        .init(
            "each of its claws", .multiply,
            "a lobster has each of its {b} claws exerting {a} newtons, what is the total force?", second: 2...9),
        .init(
            "each of the claws", .multiply,
            "each of the {b} claws of a lobster pushes with {a} newtons, what is the total force?", second: 2...9),
        .init(
            "each sprouts", .multiply,
            "a lobster has {a} eye facets, each sprouts {b} neurons, how many neurons total?", second: 2...9),
        .init(
            "push together", .multiply,
            "a lobster claw exerts {a} newtons and {b} lobsters push together, what is the total force?", second: 2...9),
        .init(
            "each fires", .multiply,
            "a lobster has {a} neurons and each fires {b} times, how many signals fire in total?", second: 2...9),
        .init(
            "how far", .multiply, "a lobster swims at {a} meters per second for {b} seconds, how far does it travel?"),
        .init(
            "momentum", .multiply,
            "a lobster has a mass of {a} kilograms and moves at {b} meters per second, what is its momentum?"),
        .init("work", .multiply, "a lobster claw applies {a} newtons over {b} meters, how much work is done?"),
        .init("multiplied", .multiply, "a lobster force of {a} newtons is multiplied by {b}, what is the product?"),
        .init("power", .multiply, "a lobster pushes with {a} newtons at {b} meters per second, what is the power?"),
        .init("explicit star", .multiply, "a lobster claw exerts {a} newtons * {b} newtons, how many newtons total?"),
        .init(
            "times stronger", .multiply,
            "a lobster claw exerts {a} newtons and the other claw is {b} times stronger, what is the total force?",
            second: 2...9),
        .init(
            "doubles", .multiply,
            "a lobster swims at {a} meters per second and doubles its speed, what is the new speed?", implicit: 2),
        .init(
            "strikes twice", .multiply,
            "a lobster claw force is {a} newtons and it strikes twice, what is the total force?", implicit: 2),
        .init(
            "per strike", .multiply,
            "a lobster claw exerts {a} newtons per strike and lands {b} strikes, what is the total force?",
            second: 2...9),
        .init(
            "has claws", .multiply,
            "a lobster claw force is {a} newtons and the lobster has {b} claws, what is the total force?", second: 2...9
        ),
        .init(
            "dominance multiplier", .multiply,
            "a lobster claw force is {a} newtons and the dominance multiplier is {b}, what is the total force?",
            second: 2...9),
        .init("impulse", .multiply, "a lobster claw pushes with {a} newtons for {b} seconds, what is the impulse?"),
    ]

    static let divisions: [ChallengeTemplate] = [
        .init(
            "split equally", .divide,
            "a lobster claw force of {a} newtons is split equally between {b} claws, how much force does each claw get?",
            second: 2...9),
        .init(
            "acceleration", .divide,
            "a lobster pushes with {a} newtons and has a mass of {b} kilograms, what is its acceleration?",
            second: 2...9),
    ]

    static let distractors: [ChallengeTemplate] = [
        .init(
            "with one claw", .add,
            "a lobster with one claw exerts {a} newtons and gains {b} newtons, what is the total force?"),
        .init(
            "with one claw", .subtract,
            "a lobster exerts {a} nootons with one claw but loses {b} nootons during molting, what is the remaining force?"
        ),
        .init(
            "two claws visible", .add,
            "{d} claws are visible but a lobster claw exerts {a} newtons and the other claw exerts {b} newtons, what is the total force?"
        ),
        .init(
            "velocity beside forces", .add,
            "a lobster swimming at {d} centimeters per second has a claw force of {a} newtons and the other claw exerts {b} newtons, what is the total force?",
            distractor: 40...70),
        .init(
            "force beside speeds", .subtract,
            "a lobster swims at {a} meters per second while its claw exerts {d} newtons, and it slows by {b} meters per second, what is its new velocity?",
            distractor: 3...12),
        .init(
            "restated question", .multiply,
            "a lobster claw exerts {a} newtons and the other claw exerts {b} newtons, what is the product of {a} and {b}?"
        ),
    ]

    /// More phrasings of the same families: other verbs, other orders, other nouns.
    static let broad: [ChallengeTemplate] = [
        .init(
            "rises by", .add,
            "the claw force of a lobster is {a} newtons and rises by {b} newtons after molting, what is the force now?"),
        .init(
            "extra", .add,
            "a lobster swims at {a} cm per second and the tide gives it an extra {b}, how fast is it going?"),
        .init("then more", .add, "a lobster exerts {a} newtons, then {b} newtons more, what is the total force?"),
        .init(
            "claw a and b", .add,
            "claw one exerts {a} nootons and claw two exerts {b} nootons, um what is their combined force?"),
        .init("the N newton claw", .add, "the {a} newton claw of a lobster gains {b} newtons, what is the new force?"),
        .init(
            "with N legs", .add,
            "a lobster with {d} legs swims at {a} meters per second and accelerates by {b}, what is its new velocity?"),
        .init("count shrimp", .add, "a lobster eats {a} shrimp and then {b} more shrimp, how many shrimp in total?"),
        .init("falls by", .subtract, "a lobster's speed of {a} meters per second falls by {b}, what is the new speed?"),
        .init(
            "sheds", .subtract, "a lobster claw holds {a} newtons of grip and sheds {b} newtons, how much grip remains?"
        ),
        .init(
            "weakens", .subtract, "a lobster pinch of {a} newtons weakens by {b} newtons, what is the remaining force?"),
        .init("minus", .subtract, "a lobster force is {a} newtons minus {b} newtons, what is the result?"),
        .init(
            "final speed", .subtract,
            "starting at {a} meters per second, a lobster loses {b} meters per second, what is its final speed?"),
        .init(
            "each second for", .multiply,
            "a lobster swims {a} centimeters each second for {b} seconds, how far does it go?"),
        .init(
            "restated times", .multiply,
            "a lobster claw exerts {a} newtons and flicks {b} times, what is {a} times {b}?", second: 2...9),
        .init(
            "every claw", .multiply, "every one of its {b} claws pushes with {a} newtons, what is the total force?",
            second: 2...9),
        .init(
            "times as much", .multiply,
            "a lobster claw exerts {a} newtons and the crusher exerts {b} times as much, what is the crusher force?",
            second: 2...9),
        .init(
            "molts each time", .multiply,
            "a lobster molts {b} times and grows {a} millimeters each time, how much does it grow?", second: 2...9),
        .init(
            "triples", .multiply, "a lobster's speed of {a} meters per second triples, what is its new speed?",
            implicit: 3),
        .init(
            "split into parts", .divide,
            "a lobster splits {a} newtons of force into {b} equal parts, how much is each part?", second: 2...9),
    ]
}

import ChallengeSolver

/// The templates of the held-out corpus (fixtures/challenges/heldout.json): the families of real texts in wordings
/// of their own, written after the solver's tuning and never tuned on. Do not change them to make the solver pass;
/// the frozen fixture is checked against them (`ChallengeCorpusTests.heldoutIsFrozen`).
enum HeldoutTemplates {
    static let all: [ChallengeTemplate] = [
        .init(
            "clamping claws", .add,
            "the left claw clamps with {a} newtons and the right claw clamps with {b} newtons, what is the total clamping force?"
        ),
        .init(
            "wave adds", .add,
            "a lobster walks at {a} centimeters per second, then a wave adds {b} centimeters per second, what is its new speed?"
        ),
        .init(
            "absorbs more", .add,
            "a lobster's shell holds {a} grams of calcium and it absorbs {b} more grams, how much calcium now?"),
        .init(
            "plus a pinch", .add,
            "a lobster claw force of {a} nootons plus a pinch of {b} nootons, what is the combined force?"),
        .init(
            "speeds up by another", .add,
            "the lobster starts at {a} meters per second and speeds up by another {b}, what is its velocity now?"),
        .init("lays more eggs", .add, "a lobster has {a} eggs and lays {b} more eggs, how many eggs in total?"),
        .init(
            "grip plus tail", .add, "a lobster's grip is {a} newtons + {b} newtons from the tail, what is the total?"),
        .init(
            "second lobster helps", .add,
            "the first lobster pushes {a} newtons and a second lobster helps with {b} newtons, what is their total force?"
        ),
        .init(
            "loses to the current", .subtract,
            "a lobster moving at {a} meters per second loses {b} meters per second to the current, what is its speed now?"
        ),
        .init(
            "shell resists", .subtract,
            "a claw squeezes with {a} newtons but the shell resists with {b} newtons, what is the net force?"),
        .init(
            "uses up", .subtract, "a lobster has {a} newtons of force and uses up {b} newtons, how much force is left?"),
        .init(
            "then slows", .subtract,
            "a lobster swims {a} meters per second and then slows by {b}, what is the resulting speed?"),
        .init("minus drag", .subtract, "{a} newtons minus {b} newtons of drag, what force remains?"),
        .init(
            "every claw grips", .multiply,
            "a lobster has {b} claws and every claw grips with {a} newtons, what is the total grip?", second: 2...9),
        .init(
            "taps each tap", .multiply,
            "a lobster taps its claw {b} times with {a} newtons each tap, what is the total force?", second: 2...9),
        .init(
            "push together each", .multiply,
            "{b} lobsters push together with {a} newtons each, what is the total force?", second: 2...9),
        .init(
            "crawls for minutes", .multiply,
            "a lobster crawls {a} meters per minute for {b} minutes, how far does it crawl?"),
        .init(
            "find momentum", .multiply,
            "a lobster of mass {a} kilograms moves at {b} meters per second, find its momentum"),
        .init("work through", .multiply, "a lobster pushes {a} newtons through {b} meters, how much work does it do?"),
        .init(
            "multiplied in a fight", .multiply,
            "the claw force of {a} newtons is multiplied by {b} in a dominance fight, what is the new force?",
            second: 2...9),
        .init(
            "force doubles", .multiply,
            "a lobster claw exerts {a} newtons and then the force doubles, what is the new force?", implicit: 2),
        .init("star claws", .multiply, "{a} newtons * {b} claws, what is the total force?", second: 2...9),
        .init(
            "each one fires", .multiply,
            "a lobster has {a} neurons and each one fires {b} signals, how many signals fire?", second: 2...9),
        .init(
            "impulse for seconds", .multiply, "a lobster claw exerts {a} newtons for {b} seconds, what is the impulse?"),
        .init(
            "shares shrimp", .divide,
            "a lobster shares {a} shrimp equally among {b} friends, how many shrimp does each friend get?",
            second: 2...9),
        .init(
            "meters in seconds", .divide, "a lobster swims {a} meters in {b} seconds, what is its speed?", second: 2...9
        ),
        .init(
            "with one claw adds", .add,
            "a lobster with one claw exerts {a} newtons and then adds {b} newtons, what is the total force?"),
        .init(
            "with legs slows", .subtract,
            "a lobster with {d} legs walks at {a} cm per second and slows by {b}, what is its speed now?"),
        .init(
            "swimming beside forces", .add,
            "swimming at {d} meters per second, a lobster claw exerts {a} newtons and the other claw exerts {b} newtons, what is the total force?",
            distractor: 30...70),
        .init(
            "restated plus sign", .add, "a lobster claw exerts {a} newtons and gains {b} newtons, what is {a} + {b}?"),
        .init(
            "each of the claws", .multiply,
            "each of the {b} claws of a lobster exerts {a} newtons, what is their total force?", second: 2...9),
        .init(
            "two lobsters speeds", .add,
            "one lobster swims at {a} meters per second and the other lobster at {b} meters per second, what is their combined speed?"
        ),
        .init(
            "times stronger than", .multiply,
            "a lobster claw is {b} times stronger than a {a} newton claw, what is its force?", second: 2...9),
        .init(
            "grows more claws", .add,
            "a lobster has {a} claws and grows {b} more claws, how many claws does it have now?"),
    ]
}

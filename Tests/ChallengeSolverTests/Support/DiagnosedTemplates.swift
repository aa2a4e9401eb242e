/// The templates of the first held-out corpus (fixtures/challenges/diagnosed.json). Written before the solver was
/// tuned and frozen, it served as the held-out set until its declines were inspected once (by reason) to fix general
/// causes; since then it is an ordinary regression corpus, and `HeldoutTemplates` is the held-out set.
enum DiagnosedTemplates {
    static let all: [ChallengeTemplate] = [
        .init(
            "pincer and other pincer", .add,
            "the big pincer squeezes with {a} newtons and the small pincer squeezes with {b} newtons, how much force in total?"
        ),
        .init(
            "left and right claw", .add,
            "its left claw exerts {a} neutons, its right claw exerts {b} neutons, whats the total force?"),
        .init(
            "picks up speed", .add, "a lobster cruising at {a} cm per second picks up {b} more, what is its speed now?"),
        .init(
            "boost", .add,
            "a lobster swims {a} meters per second and a current boost adds {b}, what is the new velocity?"),
        .init(
            "antenna touch", .add,
            "claw force is {a} newtons and an antenna touch adds {b} newtons, what is the sum of these forces?"),
        .init(
            "increases speed", .add,
            "a lobster at {a} meters per second increases its speed by {b}, how fast does it go now?"),
        .init(
            "gained during molting", .add,
            "a lobster had {a} neurons and gained {b} neurons during molting, how many neurons now?"),
        .init("explicit plus", .add, "the claw pushes {a} nootons + {b} nootons, what is the total?"),
        .init(
            "another lobster joins", .add,
            "one lobster pushes with {a} newtons and another lobster joins with {b} newtons, what is their combined force?"
        ),
        .init(
            "count noun with add verb", .add,
            "a reef holds {a} lobsters and {b} more lobsters arrive, how many lobsters are there in total?"),
        .init(
            "slows down by", .subtract,
            "a lobster darting at {a} meters per second slows down by {b}, what is its new speed?"),
        .init(
            "loses to friction", .subtract,
            "the claw grips with {a} newtons but loses {b} newtons to slime, how much force remains?"),
        .init(
            "water resistance net", .subtract,
            "a lobster pushes forward with {a} newtons and water resistance pushes back with {b} newtons, what is the net force?"
        ),
        .init(
            "drops by", .subtract,
            "a lobster's velocity of {a} centimeters per second drops by {b}, what is its new velocity?"),
        .init(
            "subtract remaining", .subtract,
            "a lobster has {a} neurons and {b} of them are lost, how many neurons remain?"),
        .init(
            "difference", .subtract,
            "one claw exerts {a} newtons and the other exerts {b} newtons, what is the difference between them?"),
        .init(
            "each of three claws", .multiply,
            "a lobster uses each of its {b} claws to push with {a} newtons, what is the total force?", second: 2...9),
        .init(
            "every leg", .multiply,
            "a lobster has {b} legs and each leg pushes with {a} newtons, what is the total force?", second: 2...9),
        .init(
            "lobsters pull together", .multiply,
            "{b} lobsters each pull with {a} newtons together, what is the total force?", second: 2...9),
        .init(
            "signals per neuron", .multiply,
            "a lobster brain has {a} neurons and each neuron sends {b} signals, how many signals total?", second: 2...9),
        .init(
            "distance over time", .multiply,
            "a lobster crawls at {a} centimeters per second for {b} seconds, what distance does it cover?"),
        .init(
            "times as strong", .multiply,
            "the crusher claw is {b} times as strong as the {a} newton pincer, what is the crusher force?",
            second: 2...9),
        .init(
            "multiply", .multiply,
            "a lobster force of {a} newtons multiplies by {b} during the fight, what is the new force?", second: 2...9),
        .init(
            "product of forces", .multiply,
            "one claw pushes {a} newtons and the tail pushes {b} newtons, what is the product of these forces?"),
        .init(
            "momentum", .multiply, "a lobster of {a} kilograms swims at {b} meters per second, what is its momentum?"),
        .init(
            "triples", .multiply,
            "a lobster's claw force of {a} newtons triples during molting, what is the new force?", implicit: 3),
        .init(
            "twice as fast", .multiply,
            "a lobster swims at {a} cm per second and then twice as fast, what is the new speed?", implicit: 2),
        .init("star between", .multiply, "the claw exerts {a} newtons * {b}, what is the total force?", second: 2...9),
        .init(
            "shared equally", .divide,
            "{a} newtons of force are shared equally by {b} claws, how much force does each claw carry?", second: 2...9),
        .init(
            "divided by", .divide, "a lobster swims {a} meters and the distance is divided by {b}, what is the result?",
            second: 2...9),
        .init(
            "with one big claw", .add,
            "a lobster with one big claw pushes {a} newtons and then gains {b} newtons, what is the total force?"),
        .init(
            "two antennae aside", .subtract,
            "with {d} antennae twitching, a lobster swims at {a} meters per second and slows by {b}, what is the new speed?"
        ),
        .init(
            "speed beside forces", .add,
            "while cruising at {d} meters per second, one claw exerts {a} newtons and the other exerts {b} newtons, what is the total force?",
            distractor: 30...70),
        .init(
            "restated sum", .add, "a claw exerts {a} newtons and the other adds {b} newtons, so what is {a} plus {b}?"),
    ]
}

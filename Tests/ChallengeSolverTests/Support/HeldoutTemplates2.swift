import ChallengeSolver

/// The templates of the second held-out corpus (fixtures/challenges/heldout2.json, issue 34): the families of real
/// texts in wordings of their own (operations named by verbs, rates, counts, corrections, noise, split number
/// words, lowering verbs of many kinds), written after the solver's fixes for issue 34 and frozen before the solver
/// ever ran on them. Do not change them to make the solver pass; the frozen fixture is checked against them
/// (`ChallengeCorpusTests.heldout2IsFrozen`).
enum HeldoutTemplates2 {
    static let all: [ChallengeTemplate] = additions + subtractions + multiplications + divisions + distractors

    static let additions: [ChallengeTemplate] = [
        .init(
            "crusher and pincer", .add,
            "the crusher claw bites with {a} newtons and the pincer claw adds {b} newtons, how much force do they make together?"
        ),
        .init(
            "current boosts", .add,
            "a lobster paddles at {a} meters per second, then a current boosts it by {b} meters per second, what is its speed now?"
        ),
        .init(
            "ripples arrive", .add,
            "a lobster's antenna senses {a} ripples and then {b} more ripples arrive, how many ripples in all?"),
        .init(
            "tail pushes as well", .add,
            "a lobster climbing a rock pushes {a} newtons, um, and its tail pushes {b} newtons as well, what is the sum of the forces?"
        ),
        .init(
            "speeds up how fast", .add,
            "a lobster's velocity is {a} cm per second and it speeds up by {b} cm per second, how fast is it now?"),
        .init(
            "tightened its grip", .add,
            "the lobster gripped with {a} newtons and then tightened its grip by {b} newtons, what is its grip now?"),
        .init(
            "left plus right", .add,
            "{a} newtons from the left claw plus {b} newtons from the right claw, what is the combined force?"),
    ]

    static let subtractions: [ChallengeTemplate] = [
        .init(
            "seaweed slows it down", .subtract,
            "a lobster races at {a} meters per second but the seaweed slows it down by {b}, what is its new speed?"),
        .init(
            "current drags it down", .subtract,
            "a lobster swims {a} cm per second and a cold current drags it down by {b} cm per second, what is its speed now?"
        ),
        .init(
            "fatigue cuts", .subtract,
            "a lobster claw pinches with {a} newtons but fatigue cuts the pinch by {b} newtons, what force is left?"),
        .init(
            "sand knocks back", .subtract,
            "a lobster moves at {a} meters per second and the sand knocks its speed back by {b}, how fast is it moving now?"
        ),
        .init(
            "loses grip to shell", .subtract,
            "a lobster holds {a} newtons of grip and loses {b} newtons of it to a slippery shell, what grip remains?"),
        .init(
            "decelerated", .subtract,
            "the lobster's speed was {a} meters per second and then it decelerated by {b} meters per second, what is its velocity now?"
        ),
        .init(
            "rival pushes back", .subtract,
            "a lobster's claw exerts {a} newtons and a rival's claw pushes back with {b} newtons, what is the net force?"
        ),
        .init(
            "brakes by", .subtract,
            "a lobster swims at {a} cm per second and then brakes by {b} cm per second, what is its new speed?"),
        .init(
            "drops after a fight", .subtract,
            "a lobster's force of {a} newtons drops by {b} newtons after a long fight, what is the force now?"),
        .init(
            "mud reduces", .subtract,
            "a lobster with {d} legs is crawling at {a} meters per second and the mud reduces that by {b}, what is its speed now?"
        ),
    ]

    static let multiplications: [ChallengeTemplate] = [
        .init(
            "walking legs each", .multiply,
            "a lobster has {b} walking legs and each leg pushes with {a} newtons, what is the total push?",
            second: 2...9),
        .init(
            "lobsters each pull", .multiply,
            "{b} lobsters each pull with {a} newtons on a rope, what is their total pull?", second: 2...9),
        .init(
            "walks for seconds", .multiply,
            "a lobster walks at {a} cm per second for {b} seconds, what distance does it cover?"),
        .init(
            "weighing swims", .multiply,
            "a lobster weighing {a} kilograms swims at {b} meters per second, what is its momentum?"),
        .init(
            "force triples", .multiply,
            "a lobster's claw force of {a} newtons triples during a dominance fight, what is the new force?",
            implicit: 3),
        .init("star meters work", .multiply, "a lobster claw applies {a} newtons * {b} meters, how much work is that?"),
        .init(
            "power produced", .multiply,
            "a lobster claw pushes with {a} newtons at a speed of {b} meters per second, what power does it produce?"),
        .init(
            "times as strong which", .multiply,
            "the big claw is {b} times as strong as the small claw, which exerts {a} newtons, how strong is the big claw?",
            second: 2...9),
        .init(
            "every snap", .multiply,
            "a lobster snaps its claw {b} times and every snap delivers {a} newtons, what is the total force of the snaps?",
            second: 2...9),
        .init(
            "beats per minute", .multiply,
            "a lobster's heart beats {a} times per minute for {b} minutes, how many beats in total?", second: 2...9),
    ]

    static let divisions: [ChallengeTemplate] = [
        .init(
            "divides food", .divide,
            "a lobster divides {a} grams of food equally among {b} young lobsters, how much does each get?",
            second: 2...9),
        .init(
            "speed from meters in seconds", .divide,
            "a lobster crawls {a} meters in {b} seconds, what is its speed in meters per second?", second: 2...9),
    ]

    static let distractors: [ChallengeTemplate] = [
        .init(
            "two antennae gains", .add,
            "a lobster with two antennae swims at {a} cm per second and gains {b} cm per second, what is its new speed?"
        ),
        .init(
            "legs rest", .add,
            "while its {d} legs rest, a lobster claw exerts {a} newtons and the other claw exerts {b} newtons, what is the total force?"
        ),
        .init(
            "restated minus", .subtract,
            "a lobster claw exerts {a} newtons and loses {b} newtons, what is {a} minus {b}?"),
        .init(
            "speed beside claw forces", .add,
            "a lobster swims at {d} meters per second while one claw exerts {a} newtons and the other exerts {b} newtons, what is the total claw force?",
            distractor: 30...70),
        .init(
            "impulse delivered", .multiply,
            "a lobster pushes with {a} newtons for {b} seconds, what impulse does it deliver?"),
    ]
}

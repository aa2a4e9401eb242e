@_exported import struct Determinism.SeededRandom
// The one settable clock and the one seeded random source, for every test that imports this module.
//
// They live in the tiny `Determinism` target, not here, because production code needs them too (`plan`'s
// virtual instant and dice, the sandbox server's clock and the sandbox model's seeded ids) and production code
// never links test support.
@_exported import class Determinism.SettableClock
@_exported import struct Determinism.TimeScale

import Testing

extension TestDialect {
    /// Whether this run is the full suite's (`moltbook.com`, the default) rather than a pass of the dialect matrix
    /// (`MOLTIPASS_TEST_DIALECT` naming another dialect; `scripts/test`, docs/testing.md).
    public static var isFullSuite: Bool { current == .moltbookCom }
}

extension Trait where Self == ConditionTrait {
    /// For a test that pins the dialect it runs against (or runs every dialect itself, by its arguments): its
    /// behaviour does not change with the matrix's dialect, so in a pass of the matrix it is skipped, and says
    /// why, instead of running the same again or passing without checking anything.
    public static var pinsItsDialect: Self {
        .enabled(
            if: TestDialect.isFullSuite,
            "it pins its own dialect: it runs once, in the full suite, not again in the dialect matrix")
    }
}

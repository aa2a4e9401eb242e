import Testing

@Test func placeholderSchedulingTests() {}

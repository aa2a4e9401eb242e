import Testing

@Test func placeholder_KeychainTests() {}

import Testing

@Test func placeholderStorageTests() {}

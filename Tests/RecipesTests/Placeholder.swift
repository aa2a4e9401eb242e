import Testing

@Test func placeholder_RecipesTests() {}

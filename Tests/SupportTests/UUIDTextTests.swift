import Support
import Testing

@Suite struct UUIDTextTests {
  @Test func uuidsAreCanonicalisedToLowercase() {
    #expect(
      UUIDText.canonical("0193A1B2-C3D4-7E5F-8A9B-0C1D2E3F4A5B")
        == "0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b")
    #expect(
      UUIDText.canonical("0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b")
        == "0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b")
  }

  @Test(arguments: [
    "", "0193a1b2c3d47e5f8a9b0c1d2e3f4a5b", "0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5",
    "{0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b}",
    "0193a1b2-c3d4-7e5f-8a9b_0c1d2e3f4a5b", "g193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b",
    "0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5bb", "0193a1b2--c3d4-7e5f-8a9b-0c1d2e3f4a5",
  ])
  func refusesWhatIsNotAUUID(text: String) {
    #expect(UUIDText.canonical(text) == nil)
  }

  @Test func randomUUIDsAreVersion4AndValid() {
    var random = SplitMix64(seed: 5)
    for _ in 0..<100 {
      let text = random.uuidString()
      #expect(UUIDText.canonical(text) == text)
      let characters = Array(text)
      #expect(characters[14] == "4")
      #expect("89ab".contains(characters[19]))
    }
  }
}

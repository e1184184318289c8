import Testing

@testable import Wire

@Suite struct UTF8ValidatorTests {
  @Test func agreesWithTheStandardLibraryOnRandomBytes() {
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<20_000 {
      let count = Int.random(in: 0...8, using: &generator)
      // Bias towards the interesting lead and continuation bytes.
      let pool: [UInt8] = [
        0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF,
        0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xF8, 0xFE, 0xFF,
      ]
      let bytes = (0..<count).map { _ in pool.randomElement(using: &generator)! }
      var validator = UTF8Validator()
      let ours = validator.validate(bytes) && validator.isComplete
      let standard = String(validating: bytes, as: UTF8.self) != nil
      #expect(ours == standard, "\(bytes)")
    }
  }

  @Test func splitAnywhereGivesTheSameAnswer() {
    let bytes = Array("aé€😀".utf8)
    for cut in 0...bytes.count {
      var validator = UTF8Validator()
      let first = validator.validate(bytes[..<cut])
      let second = validator.validate(bytes[cut...])
      #expect(first && second && validator.isComplete)
    }
  }

  @Test func surrogatesOverlongFormsAndBeyondU10FFFFAreRefusedAtTheirFirstBadByte() {
    for bytes: [UInt8] in [
      [0xED, 0xA0], [0xC0], [0xE0, 0x80], [0xF0, 0x80], [0xF4, 0x90], [0xF5],
    ] {
      var validator = UTF8Validator()
      let valid = validator.validate(bytes)
      #expect(!valid, "\(bytes)")
    }
  }
}

import ChatAPI
import Foundation
import Testing

@Suite struct JSONTests {
  @Test func parsesEveryKindOfValue() throws {
    let value = try JSONParser.parse(
      #" { "a" : [1, -2, 3.5, 1e3, true, false, null, "x\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00"], "b": {} } "#
    )
    #expect(
      value.text == #"{"a":[1,-2,3.5,1000.0,true,false,null,"x\"\\/\u0008\u000c\n\r\té😀"],"b":{}}"#)
  }

  @Test func refusesWhatIsNotStrictJSON() {
    let invalid = [
      "", "{", "}", "[1,]", #"{"a":1,}"#, #"{"a" 1}"#, "01", "1.", ".5", "-", "+1", "1e",
      "tru", "nul", #""unterminated"#, "\"tab\there\"", #""\x""#, #""\ud800""#, #""\udc00""#,
      #""\ud800\u0041""#, #"{"a":1,"a":2}"#, "1 2", "[1] x", "//", "NaN", "'a'",
      String(repeating: "[", count: 65) + String(repeating: "]", count: 65),
    ]
    for text in invalid {
      #expect(throws: JSONSyntaxError.self, "\(text)") { try JSONParser.parse(text) }
    }
    #expect(throws: JSONSyntaxError.self) { try JSONParser.parse([0x22, 0xC3, 0x28, 0x22]) }
    #expect(throws: Never.self) {
      try JSONParser.parse(String(repeating: "[", count: 64) + String(repeating: "]", count: 64))
    }
  }

  @Test func integersOutsideIntBecomeNumbers() throws {
    guard case .integer(let small) = try JSONParser.parse("9223372036854775807") else {
      Issue.record("Int.max is an integer")
      return
    }
    #expect(small == Int.max)
    guard case .number(let big) = try JSONParser.parse("9223372036854775808") else {
      Issue.record("Int.max + 1 is a number")
      return
    }
    #expect(big == 9_223_372_036_854_775_808)
  }

  @Test func writingEscapesOnlyWhatJSONRequiresAndFoundationReadsItBack() throws {
    let text = "q\" b\\ nl\n cr\r tab\t nul\u{0} us\u{1F} del\u{7F} é 😀 \u{2028} /"
    let written = JSON.object(["k": .string(text)]).text
    let read = try JSONSerialization.jsonObject(with: Data(written.utf8)) as? [String: String]
    #expect(read?["k"].map { Array($0.utf8) } == Array(text.utf8))
    #expect(written.contains("é 😀"))
  }
}

import Support
import Testing

@Suite struct LogRecordTests {
  @Test func aRecordIsOneLogfmtLineEventFirst() {
    let record = LogRecord(
      .info, "request", [("method", "POST"), ("route", "/v1/conversations"), ("status", "201")])
    #expect(
      record.line == "event=request level=info method=POST route=/v1/conversations status=201")
  }

  @Test func valuesThatCouldBreakTheLineAreQuotedAndEscaped() {
    let record = LogRecord(
      .warning, "x",
      [
        ("empty", ""), ("space", "a b"), ("quote", #"say "hi""#), ("equals", "a=b"),
        ("newline", "one\ntwo"), ("backslash", #"a\ b"#), ("bell", "\u{7}"),
      ])
    #expect(
      record.line
        == #"event=x level=warning empty="" space="a b" quote="say \"hi\"" equals="a=b" newline="one\ntwo" backslash="a\\ b" bell="\u{7}""#
    )
    #expect(!record.line.contains("\n"))
  }

  @Test func levelsAreOrdered() {
    #expect(LogRecord.Level.allCases.sorted() == [.debug, .info, .warning, .error])
  }
}

import ArgumentParsing
import Testing

@Suite struct ParsingTests {
  @Test func anOptionTakesTheNextArgumentOrTheTextAfterAnEqualsSign() throws {
    let spaced = try Serve.parse(["--port", "9000", "--host", "::1"], environment: [:])
    #expect(spaced.port == 9000)
    #expect(spaced.host == "::1")
    let joined = try Serve.parse(["--port=0", "--host=::1", "--tag=a=b"], environment: [:])
    #expect(joined.port == 0)
    #expect(joined.tags == ["a=b"])
  }

  @Test func withNothingGivenEveryPropertyHasItsDefault() throws {
    let serve = try Serve.parse([], environment: ["HOME": "/h"])
    #expect(serve.port == 8080)
    #expect(serve.host == "127.0.0.1")
    #expect(!serve.devMode)
    #expect(serve.tags == [])
    #expect(serve.passOn == nil)
    #expect(serve.profile == .quick)
    #expect(serve.ratio == 0.5)
    #expect(serve.seed == nil)
    #expect(serve.data == "/h/data")
  }

  @Test func builtInTypesAndStringEnumsConvert() throws {
    let serve = try Serve.parse(
      ["--profile", "full", "--ratio", "2.5", "--seed", "18446744073709551615"], environment: [:])
    #expect(serve.profile == .full)
    #expect(serve.ratio == 2.5)
    #expect(serve.seed == UInt64.max)
  }

  @Test func aRepeatedOptionKeepsTheLastValueAndAnArrayOptionKeepsEvery() throws {
    let serve = try Serve.parse(
      ["--port", "1", "--tag", "a", "--port", "2", "--tag", "b"], environment: [:])
    #expect(serve.port == 2)
    #expect(serve.tags == ["a", "b"])
  }

  @Test func aPropertysNameIsItsOptionInKebabCase() throws {
    #expect(try Serve.parse(["--access-token-ttl", "60"], environment: [:]).accessTokenTTL == 60)
    #expect(try Serve.parse(["--pass-on", "x"], environment: [:]).passOn == "x")
  }

  @Test func optionsMayComeBeforeOrAfterThePositionalArguments() throws {
    let copy = try Copy.parse(["--force", "a", "--title", "T", "b"], environment: [:])
    #expect(copy.source == "a")
    #expect(copy.destination == "b")
    #expect(copy.title == "T")
    #expect(copy.force)
  }

  @Test func anArgumentWithADefaultMayBeLeftOut() throws {
    #expect(try Copy.parse(["a", "--title", "T"], environment: [:]).destination == ".")
  }

  @Test func doubleDashEndsTheOptions() throws {
    let copy = try Copy.parse(["--title", "T", "--", "--force", "-h"], environment: [:])
    #expect(copy.source == "--force")
    #expect(copy.destination == "-h")
    #expect(!copy.force)
  }

  @Test func anUnconditionalOptionTakesTheNextArgumentEvenIfItLooksLikeAnOption() throws {
    #expect(try Serve.parse(["--pass-on", "--dev"], environment: [:]).passOn == "--dev")
    #expect(try Serve.parse(["--pass-on", "--dev"], environment: [:]).devMode == false)
  }

  @Test func aParsedValueIsAValueAssigningChangesOnlyThatCopy() throws {
    let parsed = try Serve.parse(["--port", "1"], environment: [:])
    var copy = parsed
    copy.port = 2
    #expect(parsed.port == 1)
    #expect(copy.port == 2)
  }

  @Test func anUnparsedValueReadsItsDefaults() {
    var serve = Serve()
    #expect(serve.port == 8080)
    serve.port = 0
    #expect(serve.port == 0)
  }
}

@Suite struct EnvironmentTests {
  @Test func theEnvironmentTwinIsReadWhenTheCommandLineDoesNotGiveTheOption() throws {
    let environment = ["SERVE_PORT": "9000", "SERVE_DEV": "1", "SERVE_DATA": "/env"]
    let serve = try Serve.parse([], environment: environment)
    #expect(serve.port == 9000)
    #expect(serve.devMode)
    #expect(serve.data == "/env")
  }

  @Test func theCommandLineWinsOverTheEnvironmentWhichWinsOverTheDefault() throws {
    let environment = ["SERVE_PORT": "9000", "SERVE_DATA": "/env", "HOME": "/h"]
    #expect(try Serve.parse(["--port", "1"], environment: environment).port == 1)
    #expect(try Serve.parse([], environment: environment).port == 9000)
    #expect(try Serve.parse([], environment: [:]).port == 8080)
    #expect(try Serve.parse(["--data", "/arg"], environment: environment).data == "/arg")
    #expect(try Serve.parse([], environment: ["HOME": "/h"]).data == "/h/data")
  }

  @Test(arguments: [("1", true), ("yes", true), ("ON", true), ("0", false), ("", false)])
  func aFlagsTwinReadsOneOrZero(text: String, isSet: Bool) throws {
    #expect(try Serve.parse([], environment: ["SERVE_DEV": text]).devMode == isSet)
  }

  @Test func aFlagOnTheCommandLineIsSetWhateverTheEnvironmentSays() throws {
    #expect(try Serve.parse(["--dev"], environment: ["SERVE_DEV": "0"]).devMode)
  }

  @Test func aBadEnvironmentValueIsAUsageErrorNamingTheVariable() {
    let port = usageError(Serve.self, [], environment: ["SERVE_PORT": "x"])
    #expect(port?.message == "SERVE_PORT must be a whole number in 0...65535, got 'x'")
    #expect(port?.status == .validationFailure)
    let dev = usageError(Serve.self, [], environment: ["SERVE_DEV": "maybe"])
    #expect(dev?.message == "SERVE_DEV must be 1 or 0, got 'maybe'")
  }
}

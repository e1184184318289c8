import ArgumentParsing
import Testing

@Suite struct UsageErrorTests {
  @Test(arguments: [
    (["--nope"], "unknown option --nope"),
    (["--nope=1"], "unknown option --nope"),
    (["extra"], "unexpected argument 'extra'"),
    (["--port"], "--port needs a value"),
    (["--port", "--dev"], "--port needs a value"),
    (["--port", "x"], "--port must be a whole number in 0...65535, got 'x'"),
    (["--port", "70000"], "--port must be a whole number in 0...65535, got '70000'"),
    (["--ratio", "half"], "--ratio must be a number, got 'half'"),
    (["--seed", "-1"], "--seed must be a non-negative whole number, got '-1'"),
    (["--access-token-ttl", "1.5"], "--access-token-ttl must be a whole number, got '1.5'"),
    (["--profile", "slow"], "--profile must be one of quick, full, got 'slow'"),
    (["--dev=yes"], "--dev takes no value"),
    (["--host="], "--host needs an address"),
  ])
  func aWrongCommandLineIsAUsageErrorWithExitStatus64(arguments: [String], message: String) {
    let error = usageError(Serve.self, arguments, environment: ["HOME": "/h"])
    #expect(error?.message == message)
    #expect(error?.status == .validationFailure)
    #expect(error?.status.rawValue == 64)
  }

  @Test func aMissingArgumentOrRequiredOptionIsAUsageError() {
    #expect(usageError(Copy.self, ["--title", "T"])?.message == "missing <from>")
    #expect(usageError(Copy.self, ["a"])?.message == "missing --title")
  }

  @Test func theFullMessageIsTheErrorAndTheHelpOfTheCommandItIsAbout() {
    #expect(throws: (any Error).self) {
      _ = try Tool.parseAsRoot(["send", "c1"], environment: [:])
    }
    do {
      _ = try Tool.parseAsRoot(["send", "c1"], environment: [:])
    } catch {
      let full = Tool.fullMessage(for: error)
      #expect(full.hasPrefix("tool: missing <text>\n\nOVERVIEW: Sends a text."))
      #expect(full.contains("USAGE: tool send [<options>] <conversation> <text>"))
      #expect(Tool.helpMessage(relevantTo: error) == Tool.helpMessage(for: Send.self))
    }
  }

  @Test func aToolThatPrefersAHintPrintsOneLineAfterTheMessage() {
    do {
      _ = try Dispatcher.parseAsRoot(["--nope"], environment: [:])
      Issue.record("--nope parsed")
    } catch {
      #expect(
        Dispatcher.fullMessage(for: error)
          == "dispatcher: unknown option --nope\nRun dispatcher --help for the options.")
      #expect(Dispatcher.exitCode(for: error) == .validationFailure)
    }
  }

  @Test func otherErrorsKeepTheirOwnStatus() {
    #expect(Serve.exitCode(for: ExitCode(75)) == ExitCode(75))
    #expect(Serve.exitCode(for: ValidationError("no")) == .validationFailure)
    #expect(Serve.exitCode(for: CleanExit.message("bye")) == .success)
    #expect(Serve.exitCode(for: CancellationError()) == .failure)
    #expect(Serve.fullMessage(for: ValidationError("no")).hasPrefix("serve: no\n\nOVERVIEW:"))
    #expect(ExitCode.success.rawValue == 0 && ExitCode.failure.rawValue == 1)
  }
}

import ArgumentParsing
import Testing

@Suite struct SubcommandTests {
  @Test func theFirstPositionalArgumentNamesTheSubcommand() throws {
    let command = try Tool.parseAsRoot(["send", "c1", "hi"], environment: [:])
    let send = try #require(command as? Send)
    #expect(send.conversation == "c1")
    #expect(send.text == "hi")
    #expect(try Tool.parseAsRoot([], environment: [:]) is Tool)
  }

  @Test func sharedOptionsMayComeBeforeOrAfterTheSubcommandName() throws {
    let before = try Tool.parseAsRoot(["--user", "alice", "send", "c1", "hi"], environment: [:])
    let after = try Tool.parseAsRoot(["send", "c1", "--user", "alice", "hi"], environment: [:])
    for command in [before, after] {
      let send = try #require(command as? Send)
      #expect(send.shared.user == "alice")
    }
    let mixed = try Tool.parseAsRoot(
      ["--json", "send", "--user=bob", "c1", "hi"], environment: ["TOOL_USER": "carol"])
    let send = try #require(mixed as? Send)
    #expect(send.shared.json)
    #expect(send.shared.user == "bob")
  }

  @Test func anOptionOnlyTheParentDeclaresDoesNotApplyToTheSubcommand() {
    do {
      _ = try Tool.parseAsRoot(["--quiet", "send", "c1", "hi"], environment: [:])
      Issue.record("--quiet parsed for send")
    } catch {
      #expect(Tool.message(for: error) == "--quiet does not apply to 'tool send'")
      #expect(Tool.exitCode(for: error) == .validationFailure)
    }
  }

  @Test func anUnknownSubcommandIsAUsageError() {
    do {
      _ = try Tool.parseAsRoot(["frobnicate"], environment: [:])
      Issue.record("frobnicate parsed")
    } catch {
      #expect(Tool.message(for: error) == "unknown command 'frobnicate'")
      #expect(Tool.exitCode(for: error) == .validationFailure)
    }
  }

  @Test func parseTreatsASubcommandNameAsAPlainArgument() {
    #expect(usageError(Tool.self, ["send"])?.message == "unexpected argument 'send'")
  }

  @Test func aValidationErrorOfASubcommandIsAUsageErrorAboutIt() {
    do {
      _ = try Tool.parseAsRoot(["count"], environment: [:])
      Issue.record("count parsed without words")
    } catch {
      #expect(Tool.message(for: error) == "missing <words>")
      #expect(Tool.helpMessage(relevantTo: error).contains("OVERVIEW: Counts words."))
    }
  }

  @Test func aCommandWithoutItsOwnRunNeedsASubcommand() async throws {
    var command = try Dispatcher.parseAsRoot([], environment: [:])
    await #expect(throws: ValidationError("missing <subcommand>")) { try await command.run() }
  }
}

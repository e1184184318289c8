import ArgumentParsing
import Testing

@Suite struct HelpTests {
  @Test func theHelpShowsEveryOptionWithItsHelpDefaultAndEnvironmentVariable() {
    let help = Serve.helpMessage()
    #expect(
      help.hasPrefix("OVERVIEW: Serves requests.\n\nStops on SIGTERM.\n\nUSAGE: serve [<options>]"))
    for line in [
      "  --port N                TCP port. (default: 8080, env: SERVE_PORT)",
      "  --host ADDRESS          Address to listen on. (default: 127.0.0.1)",
      "  --dev                   Let anyone sign in. (env: SERVE_DEV)",
      "  --tag TAG               A label for the logs. (repeatable)",
      "  --profile PROFILE       How long to run. (default: quick)",
      "  --access-token-ttl ACCESS_TOKEN_TTL",
      "  --data DATA             Where the data goes. (env: SERVE_DATA)",
      "  -h, --help              Show help information.",
    ] {
      #expect(help.contains(line + "\n") || help.hasSuffix(line), "missing: \(line)")
    }
  }

  @Test func theUsageLineSpellsOutRequiredOptionsAndArguments() {
    let help = Copy.helpMessage()
    #expect(help.contains("USAGE: copy --title TITLE [<options>] <from> [<destination>]\n"))
    #expect(help.contains("ARGUMENTS:\n  <from>                  What to copy.\n"))
  }

  @Test func anOptionGroupWithATitleHasItsOwnSection() {
    let help = Tool.helpMessage(for: Send.self)
    #expect(help.contains("USAGE: tool send [<options>] <conversation> <text>"))
    #expect(
      help.contains("GLOBAL OPTIONS:\n  --user USER             Who you are. (env: TOOL_USER)\n"))
  }

  @Test func theCommandsOwnOptionsComeBeforeTitledGroupsAndHelpCloses() {
    let help = Tool.helpMessage()
    let own = help.range(of: "OPTIONS:\n  --quiet")
    let global = help.range(of: "GLOBAL OPTIONS:\n  --user")
    #expect(own != nil && global != nil && own!.lowerBound < global!.lowerBound)
    #expect(help.contains("  --json                  Print JSON.\n  -h, --help"))
  }

  @Test func theParentsHelpListsItsSubcommands() {
    let help = Tool.helpMessage()
    #expect(help.contains("USAGE: tool [<options>] <subcommand>"))
    #expect(help.contains("SUBCOMMANDS:\n  send                    Sends a text.\n"))
    #expect(help.contains("  count                   Counts words."))
    #expect(help.contains("See 'tool help <subcommand>' for detailed help."))
  }

  @Test func longHelpTextsWrapInTheirColumn() {
    let help = Tool.helpMessage()
    #expect(help.split(separator: "\n").allSatisfy { $0.count <= 80 })
  }

  @Test(arguments: [
    ["--help"], ["-h"], ["--port", "x", "--help"], ["--nope", "-h"],
  ])
  func helpIsAskedForWithDashHOrDashDashHelpEvenOnAWrongCommandLine(arguments: [String]) {
    do {
      _ = try Serve.parse(arguments, environment: [:])
      Issue.record("\(arguments) parsed")
    } catch {
      #expect(Serve.exitCode(for: error) == .success)
      #expect(Serve.fullMessage(for: error) == Serve.helpMessage())
    }
  }

  @Test(arguments: [
    ["send", "--help"], ["--help", "send"], ["help", "send"], ["send", "-h", "c1"],
  ])
  func helpDescribesTheSubcommandNamed(arguments: [String]) {
    do {
      _ = try Tool.parseAsRoot(arguments, environment: [:])
      Issue.record("\(arguments) parsed")
    } catch {
      #expect(Tool.exitCode(for: error) == .success)
      #expect(Tool.message(for: error) == Tool.helpMessage(for: Send.self))
    }
  }

  @Test func helpWithoutAKnownSubcommandDescribesTheRoot() {
    do {
      _ = try Tool.parseAsRoot(["help", "nope"], environment: [:])
      Issue.record("help parsed")
    } catch {
      #expect(Tool.message(for: error) == Tool.helpMessage())
    }
  }
}

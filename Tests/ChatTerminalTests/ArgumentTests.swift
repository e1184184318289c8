import ArgumentParsing
import ChatDomain
import ChatIdentifiers
import Foundation
import Testing

@testable import ChatTerminal

@Suite struct ArgumentTests {
  @Test func globalOptionsComeFromFlagsBeforeTheEnvironment() throws {
    let parsed = try ChatTool.parseAsRoot(
      ["--user", "alice", "send", "c1", "hi", "--json"],
      environment: ["CHAT_USER": "bob", "CHAT_DEVICE": "ipad", "CHAT_SERVER": "http://h:9"])
    let send = try #require(parsed as? SendCommand)
    let options = send.options
    #expect(options.user == UserID("alice"))
    #expect(options.device == DeviceID("ipad"))
    #expect(options.server.absoluteString == "http://h:9")
    #expect(options.json)
    #expect(send.conversation == ConversationID("c1"))
    #expect(send.text == "hi")
    #expect(options.liveURL == "ws://h:9/v1/live")
  }

  @Test func theDatabaseDefaultsUnderXDGDataHomePerUserAndDevice() throws {
    let options = try GlobalOptions.parse(
      ["--user", "alice", "--device", "phone"], environment: [:])
    #expect(
      try options.databasePath(environment: ["XDG_DATA_HOME": "/x"])
        == "/x/chat/alice/phone/chat.sqlite")
    #expect(
      try options.databasePath(environment: ["HOME": "/home/a"])
        == "/home/a/.local/share/chat/alice/phone/chat.sqlite")
  }

  /// An https:// server's live socket is wss:// on the same host and port; the CA file is
  /// read when the command line is parsed.
  @Test func anHTTPSServerHasAWSSLiveSocketAndCanBeGivenACAFile() throws {
    let options = try GlobalOptions.parse(
      ["--server", "https://chat.example:8443/"], environment: [:])
    #expect(options.liveURL == "wss://chat.example:8443/v1/live")
    #expect(options.tls == nil)
    #expect(try GlobalOptions.parse([], environment: [:]).liveURL == "ws://127.0.0.1:8080/v1/live")
  }

  @Test func aCAFileThatCannotBeReadIsAUsageErrorFromTheFlagOrTheEnvironment() {
    #expect {
      _ = try GlobalOptions.parse(["--ca-file", "/nonexistent/ca.pem"], environment: [:])
    } throws: { error in
      GlobalOptions.exitCode(for: error) == .validationFailure
        && GlobalOptions.message(for: error)
          == "--ca-file must be a PEM file of CA certificates (No such file or directory), got "
          + "'/nonexistent/ca.pem'"
    }
    #expect {
      _ = try GlobalOptions.parse([], environment: ["CHAT_CA_FILE": "/nonexistent/ca.pem"])
    } throws: { error in
      GlobalOptions.message(for: error).hasPrefix("CHAT_CA_FILE must be a PEM file")
    }
  }

  @Test(arguments: [
    (["--user", "Alice"], "--user must be"),
    (["--server", "ftp://x"], "--server must be an http:// or https:// URL"),
    (["--server", "wss://chat.example"], "--server must be an http:// or https:// URL"),
    (["--device"], "--device needs a value"),
  ])
  func badGlobalOptionsAreUsageErrors(arguments: [String], message: String) {
    #expect {
      _ = try GlobalOptions.parse(arguments, environment: [:])
    } throws: { error in
      GlobalOptions.exitCode(for: error) == .validationFailure
        && GlobalOptions.message(for: error).hasPrefix(message)
    }
  }

  @Test func positionalAfterDoubleDashMayStartWithDashes() throws {
    let send = try SendCommand.parse(["c1", "--", "--not-an-option"], environment: [:])
    #expect(send.conversation == ConversationID("c1"))
    #expect(send.text == "--not-an-option")
  }

  @Test func leftoversAreReported() {
    #expect {
      _ = try ChatTool.parseAsRoot(["sync", "--nope"], environment: [:])
    } throws: { error in
      ChatTool.message(for: error) == "unknown option --nope"
        && ChatTool.helpMessage(relevantTo: error) == ChatTool.helpMessage(for: SyncCommand.self)
    }
    #expect {
      _ = try ChatTool.parseAsRoot(["sync", "extra"], environment: [:])
    } throws: { error in
      ChatTool.message(for: error) == "unexpected argument 'extra'"
    }
  }

  @Test func createParsesMembersAndRefusesBadIDs() throws {
    let command = try CreateCommand.parse(
      ["--title", "Hike", "--members", "bob, carol"], environment: [:])
    #expect(command.members == [UserID("bob"), UserID("carol")])
    #expect {
      _ = try CreateCommand.parse(["--title", "Hike", "--members", "Bob"], environment: [:])
    } throws: { error in
      CreateCommand.exitCode(for: error) == .validationFailure
        && CreateCommand.message(for: error).contains("'Bob' is not one")
    }
    #expect {
      _ = try CreateCommand.parse(["--members", "bob"], environment: [:])
    } throws: { error in
      CreateCommand.message(for: error) == "missing --title"
    }
  }

  @Test func messagesRefusesALimitThatIsNotPositive() {
    #expect {
      _ = try MessagesCommand.parse(["c1", "--limit", "0"], environment: [:])
    } throws: { error in
      MessagesCommand.exitCode(for: error) == .validationFailure
        && MessagesCommand.message(for: error)
          == "--limit must be a whole number of at least 1, got '0'"
    }
  }

  @Test func searchNeedsAtLeastOneWord() throws {
    #expect(
      try SearchCommand.parse(["hike", "at", "nine"], environment: [:]).query == "hike at nine")
    #expect {
      _ = try SearchCommand.parse([], environment: [:])
    } throws: { error in
      SearchCommand.message(for: error) == "missing <words>"
    }
  }
}

@Suite struct ToolTests {
  final class Captured: @unchecked Sendable {
    var out = ""
    var err = ""
    var output: Output {
      Output(
        json: false, isInteractive: false, standardOutput: { self.out += $0 },
        standardError: { self.err += $0 })
    }
  }

  @Test func helpListsEveryCommand() async {
    let captured = Captured()
    let code = await ChatTool.main(arguments: ["--help"], environment: [:], output: captured.output)
    #expect(code == .success)
    for command in ChatTool.configuration.subcommands {
      #expect(captured.out.contains("  \(command.configuration.commandName ?? "?") "))
    }
    #expect(captured.out.contains("--server URL"))
    #expect(captured.out.contains("env: CHAT_SERVER"))
  }

  @Test func eachCommandHasHelp() async {
    for command in ChatTool.configuration.subcommands {
      let name = command.configuration.commandName ?? "?"
      for arguments in [[name, "--help"], ["help", name]] {
        let captured = Captured()
        let code = await ChatTool.main(
          arguments: arguments, environment: [:], output: captured.output)
        #expect(code == .success)
        #expect(captured.out.contains("USAGE: "))
        #expect(captured.out.contains(command.configuration.abstract))
        #expect(captured.out.contains("GLOBAL OPTIONS:"))
      }
    }
  }

  @Test func anUnknownCommandIsAUsageErrorWithHelp() async {
    let captured = Captured()
    let code = await ChatTool.main(
      arguments: ["frobnicate"], environment: [:], output: captured.output)
    #expect(code == .validationFailure)
    #expect(captured.err.hasPrefix("chat: error: unknown command 'frobnicate'\n"))
    #expect(captured.err.contains("COMMANDS:"))
  }

  @Test func aMissingArgumentPrintsThatCommandsHelp() async {
    let captured = Captured()
    let code = await ChatTool.main(
      arguments: ["edit", "c1"], environment: [:], output: captured.output)
    #expect(code == .validationFailure)
    #expect(captured.err.hasPrefix("chat: error: missing <clientMessageId>\n"))
    #expect(
      captured.err.contains(
        "USAGE: chat edit [<options>] <conversationId> <clientMessageId> <text>"))
  }

  @Test func aCommandWithoutSigningInSaysWhatToDo() async throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
    let captured = Captured()
    let code = await ChatTool.main(
      arguments: ["--data", folder.path, "conversations"], environment: [:],
      output: captured.output)
    #expect(code == .noPermission)
    #expect(captured.err.contains("run chat login"))
  }

  @Test func anUnreachableServerIsOneLineAndExit75() async throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
    let captured = Captured()
    // Port 9 (discard) is closed on loopback: the connection is refused at once.
    let code = await ChatTool.main(
      arguments: [
        "--server", "http://127.0.0.1:9", "--data", folder.path, "--user", "alice", "login",
      ],
      environment: [:], output: captured.output)
    #expect(code == .temporaryFailure)
    #expect(captured.err.hasPrefix("chat: error: "))
    #expect(captured.err.split(separator: "\n").count == 1)
  }
}

import ChatDomain
import Foundation
import Testing

@testable import ChatTerminal

@Suite struct ArgumentTests {
  @Test func globalOptionsComeFromFlagsBeforeTheEnvironment() throws {
    var cursor = ArgumentCursor(["--user", "alice", "send", "c1", "hi", "--json"])
    let options = try GlobalOptions.parse(
      &cursor,
      environment: ["CHAT_USER": "bob", "CHAT_DEVICE": "ipad", "CHAT_SERVER": "http://h:9"])
    #expect(options.user == UserID("alice"))
    #expect(options.device == DeviceID("ipad"))
    #expect(options.server.absoluteString == "http://h:9")
    #expect(options.json)
    #expect(cursor.rest == ["send", "c1", "hi"])
    #expect(options.liveURL == "ws://h:9/v1/live")
  }

  @Test func theDatabaseDefaultsUnderXDGDataHomePerUserAndDevice() throws {
    var cursor = ArgumentCursor(["--user", "alice", "--device", "phone"])
    let options = try GlobalOptions.parse(&cursor, environment: [:])
    #expect(
      try options.databasePath(environment: ["XDG_DATA_HOME": "/x"])
        == "/x/chat/alice/phone/chat.sqlite")
    #expect(
      try options.databasePath(environment: ["HOME": "/home/a"])
        == "/home/a/.local/share/chat/alice/phone/chat.sqlite")
  }

  @Test(arguments: [
    (["--user", "Alice"], "--user must be"),
    (["--server", "ftp://x"], "--server must be an http:// URL"),
    (
      ["--server", "https://chat.example"],
      "--server must be an http:// URL (this client has no TLS"
    ),
    (["--device"], "--device needs a value"),
  ])
  func badGlobalOptionsAreUsageErrors(arguments: [String], message: String) {
    var cursor = ArgumentCursor(arguments)
    #expect {
      _ = try GlobalOptions.parse(&cursor, environment: [:])
    } throws: { error in
      (error as? UsageError)?.message.hasPrefix(message) == true
    }
  }

  @Test func positionalAfterDoubleDashMayStartWithDashes() throws {
    var cursor = ArgumentCursor(["c1", "--", "--not-an-option"], command: "send")
    #expect(try cursor.positional("conversationId") == "c1")
    #expect(try cursor.positional("text") == "--not-an-option")
    try cursor.finish()
  }

  @Test func leftoversAreReported() {
    let cursor = ArgumentCursor(["--nope"], command: "sync")
    #expect(throws: UsageError("unknown option --nope", command: "sync")) { try cursor.finish() }
  }

  @Test func createParsesMembersAndRefusesBadIDs() throws {
    var cursor = ArgumentCursor(["--title", "Hike", "--members", "bob, carol"], command: "create")
    let command = try CreateCommand(parsing: &cursor)
    #expect(command.members == [UserID("bob"), UserID("carol")])
    var bad = ArgumentCursor(["--title", "Hike", "--members", "Bob"], command: "create")
    #expect(throws: UsageError.self) { _ = try CreateCommand(parsing: &bad) }
  }

  @Test func messagesRefusesALimitThatIsNotPositive() {
    var cursor = ArgumentCursor(["c1", "--limit", "0"], command: "messages")
    #expect(throws: UsageError("--limit must be a positive number", command: "messages")) {
      _ = try MessagesCommand(parsing: &cursor)
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
    for command in ChatTool.commands { #expect(captured.out.contains("  \(command.name) ")) }
    #expect(captured.out.contains("--server URL"))
  }

  @Test func eachCommandHasHelp() async {
    for command in ChatTool.commands {
      let captured = Captured()
      let code = await ChatTool.main(
        arguments: [command.name, "--help"], environment: [:], output: captured.output)
      #expect(code == .success)
      #expect(captured.out.contains("USAGE: "))
      #expect(captured.out.contains(command.abstract))
    }
  }

  @Test func anUnknownCommandIsAUsageErrorWithHelp() async {
    let captured = Captured()
    let code = await ChatTool.main(
      arguments: ["frobnicate"], environment: [:], output: captured.output)
    #expect(code == .usage)
    #expect(captured.err.hasPrefix("chat: error: unknown command 'frobnicate'\n"))
    #expect(captured.err.contains("COMMANDS:"))
  }

  @Test func aMissingArgumentPrintsThatCommandsHelp() async {
    let captured = Captured()
    let code = await ChatTool.main(
      arguments: ["send", "c1"], environment: [:], output: captured.output)
    #expect(code == .usage)
    #expect(captured.err.hasPrefix("chat: error: missing <text>\n"))
    #expect(captured.err.contains("USAGE: chat send <conversationId> <text>"))
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

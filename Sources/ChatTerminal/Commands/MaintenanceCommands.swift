import ArgumentParsing
import ChatData
import ChatDomain
import Foundation

/// `chat retention`: how much history this device keeps; `chat sync` applies it.
struct RetentionCommand: ChatCommand {
  static let configuration = CommandConfiguration(
    commandName: "retention",
    abstract: "Show or set how much history this device keeps (works offline).",
    discussion: """
      Without options, prints the setting. Older messages stay on the server: paging back \
      fetches them again and `chat search --on-server` finds them. Unsent and unread messages, \
      and each conversation's newest, are always kept. `chat sync` prunes what the setting no \
      longer keeps.
      """)

  @OptionGroup(title: "GLOBAL OPTIONS") var options: GlobalOptions
  @Option(help: ArgumentHelp("Keep messages of the last N days.", valueName: "N"))
  var days: Int?
  @Option(help: ArgumentHelp("Keep each conversation's N newest messages.", valueName: "N"))
  var messages: Int?
  @Option(
    name: .customLong("media-days"),
    help: ArgumentHelp(
      "Keep downloaded photos and documents of the last N days (the messages stay).",
      valueName: "N"))
  var mediaDays: Int?
  @Flag(help: "Keep everything (the default).") var everything = false

  func validate() throws {
    for (name, value) in [("--days", days), ("--messages", messages), ("--media-days", mediaDays)] {
      if let value, value < 1 { throw ValidationError("\(name) must be 1 or more") }
    }
    if everything && (days != nil || messages != nil || mediaDays != nil) {
      throw ValidationError("--everything cannot be combined with a window")
    }
  }

  func run(_ context: CommandContext) async -> ExitCode {
    await context.withEngine { engine throws(CommandFailure) in
      var retention = await engine.retention()
      if everything {
        retention = .everything
      } else if days != nil || messages != nil || mediaDays != nil {
        retention = Retention(
          messageDays: days, messagesPerConversation: messages, mediaDays: mediaDays)
      }
      if retention != (await engine.retention()) {
        try await attempt { try await engine.setRetention(retention) }
      }
      if context.output.json {
        context.output.json(
          RetentionJSON(
            days: Nullable(retention.messageDays),
            messages: Nullable(retention.messagesPerConversation),
            mediaDays: Nullable(retention.mediaDays)))
      } else {
        context.output.line("Retention: \(Self.describe(retention)).")
      }
      return .success
    }
  }

  static func describe(_ retention: Retention) -> String {
    var parts: [String] = []
    if let days = retention.messageDays { parts.append("messages of the last \(days) day(s)") }
    if let count = retention.messagesPerConversation {
      parts.append("the \(count) newest message(s) of each conversation")
    }
    if let days = retention.mediaDays { parts.append("media of the last \(days) day(s)") }
    return parts.isEmpty ? "everything is kept" : "keeping " + parts.joined(separator: ", ")
  }
}

/// `chat retention --json`.
struct RetentionJSON: Encodable {
  let days: Nullable<Int>
  let messages: Nullable<Int>
  let mediaDays: Nullable<Int>
}

/// `chat doctor`: the database's health.
struct DoctorCommand: ChatCommand {
  static let configuration = CommandConfiguration(
    commandName: "doctor",
    abstract: "Check this device's database: sizes, counts, schema, integrity (works offline).",
    discussion: """
      Reads every page (SQLite's integrity_check and the search indexes' own check), so it \
      takes a while on a large database. Exits 1 when a check finds a problem.
      """)

  @OptionGroup(title: "GLOBAL OPTIONS") var options: GlobalOptions

  func run(_ context: CommandContext) async -> ExitCode {
    let path: String
    do {
      path = try context.databasePath()
    } catch {
      return context.report(.usage(error))
    }
    return await context.withEngine { engine throws(CommandFailure) in
      context.output.progress("Checking the database…")
      let health = try await attempt { try await engine.health() }
      context.output.endProgress()
      let sizes = DoctorJSON.Sizes(
        databaseBytes: Self.size(of: path), walBytes: Self.size(of: path + "-wal"),
        freeBytes: health.freePages * health.pageSize)
      let report = DoctorJSON(health, sizes: sizes, retention: await engine.retention())
      if context.output.json {
        context.output.json(report)
      } else {
        for line in report.lines { context.output.line(line) }
      }
      return health.problems.isEmpty ? .success : .failure
    }
  }

  static func size(of path: String) -> Int {
    ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
  }
}

/// `chat doctor --json`.
struct DoctorJSON: Encodable {
  struct Sizes: Encodable {
    let databaseBytes: Int
    let walBytes: Int
    let freeBytes: Int
  }

  let schemaVersion: String
  let migrations: [String]
  let sizes: Sizes
  let autoVacuum: String
  let conversations: Int
  let messages: Int
  let items: Int
  let unsent: Int
  let mediaFiles: Int
  let partialHistoryConversations: Int
  let retention: String
  let integrity: String
  let problems: [String]

  init(_ health: DatabaseHealth, sizes: Sizes, retention: Retention) {
    schemaVersion = health.schema.last ?? "none"
    migrations = health.schema
    self.sizes = sizes
    autoVacuum = health.autoVacuum
    conversations = health.conversations
    messages = health.messages
    items = health.items
    unsent = health.unsent
    mediaFiles = health.mediaFiles
    partialHistoryConversations = health.prunedConversations
    self.retention = retention.description
    integrity = health.problems.isEmpty ? "ok" : "problems"
    problems = health.problems
  }

  var lines: [String] {
    [
      "Schema: \(schemaVersion) (\(migrations.count) migrations)",
      "File: \(Self.bytes(sizes.databaseBytes)), write-ahead log \(Self.bytes(sizes.walBytes)),"
        + " free inside \(Self.bytes(sizes.freeBytes)) (auto_vacuum \(autoVacuum))",
      "Conversations: \(conversations), \(partialHistoryConversations) held from a later point",
      "Messages: \(messages) (\(items) items), \(unsent) waiting to send, \(mediaFiles) media files",
      "Retention: \(RetentionCommand.describe(Retention(retention) ?? .everything))",
      integrity == "ok" ? "Integrity: ok" : "Integrity: \(problems.count) problem(s)",
    ] + problems.map { "  \($0)" }
  }

  static func bytes(_ count: Int) -> String {
    count < 1024 * 1024
      ? "\((count + 1023) / 1024) KiB" : String(format: "%.1f MiB", Double(count) / 1_048_576)
  }
}

import ArgumentParsing
import ChatData
import ChatDomain
import ChatIdentifiers
import Foundation

/// `chat outbox`: what waits to be sent, what is held, and the user's choices.
struct OutboxCommand: ChatCommand {
  static let configuration = CommandConfiguration(
    commandName: "outbox",
    abstract: "Show the messages waiting to be sent; send held ones now, or discard them.",
    discussion: """
      chat outbox                      lists every message of yours not on the server yet
      chat outbox retry <id> | --all   sends a held or refused message now (same ID), then
                                       tries everything that waits
      chat outbox discard <id>         discards one: it will never be sent (a message whose
                                       post may have reached the server is deleted there)
      A message that waited longer than 24 hours before it could go is held ("not sent"), not
      sent days late without asking.
      """)

  @OptionGroup(title: "GLOBAL OPTIONS") var options: GlobalOptions
  @Argument(help: ArgumentHelp("list (the default), retry or discard.", valueName: "action"))
  var action = "list"
  @Argument(
    help: ArgumentHelp("The message (its clientMessageId).", valueName: "clientMessageId"))
  var messages: [String] = []
  var message: String? { messages.first }
  @Flag(help: "With retry: every held or refused message.") var all = false

  func validate() throws {
    guard messages.count <= 1 else { throw ValidationError("one clientMessageId at a time") }
    switch action {
    case "list":
      guard message == nil, !all else { throw ValidationError("list takes no message") }
    case "retry":
      guard (message == nil) == all else {
        throw ValidationError("retry takes a clientMessageId or --all, one of them")
      }
    case "discard":
      guard message != nil, !all else { throw ValidationError("discard takes a clientMessageId") }
    default:
      throw ValidationError("unknown action '\(action)': list, retry or discard")
    }
    if let message, MessageID(rawValue: message) == nil {
      throw ValidationError("'\(message)' is not a clientMessageId (a UUID)")
    }
  }

  func run(_ context: CommandContext) async -> ExitCode {
    let id = message.flatMap { MessageID(rawValue: $0) }
    return await context.withEngine { engine throws(CommandFailure) in
      let queue = engine.outboxQueue
      switch action {
      case "retry":
        if let id, !(await Self.entries(queue).contains { $0.id == id }) {
          throw CommandFailure.failed(
            .notFound("message"), "\(id) is not in the outbox (sent meanwhile, or unknown)")
        }
        await queue.retry(id)
        _ = await engine.drainOutbox()
      case "discard":
        if let id { try await attempt { try await queue.discard(id) } }
        _ = await engine.drainOutbox()
      default:
        break
      }
      let entries = await Self.entries(queue)
      if context.output.json {
        context.output.json(entries.map(OutboxEntryJSON.init))
      } else if entries.isEmpty {
        context.output.line("Nothing waits: every message is on the server.")
      } else {
        context.output.line("\(entries.count) message(s) waiting:")
        for entry in entries { context.output.line(Self.describe(entry).terminalSafe) }
      }
      return .success
    }
  }

  /// The outbox as it is now: the stream's first answer.
  static func entries(_ queue: any OutboxRepository) async -> [OutboxEntry] {
    for await entries in queue.entries() { return entries }
    return []
  }

  static func describe(_ entry: OutboxEntry) -> String {
    let what =
      switch entry.kind {
      case .message: "\"\(entry.text.prefix(40))\""
      case .edit: "edit: \"\(entry.text.prefix(40))\""
      case .delete: "delete"
      case .reaction: "reaction \(entry.text)"
      case .pin: entry.text.hasPrefix("−") ? "unpin" : "pin"
      }
    let state =
      switch entry.state {
      case .waiting: "waiting"
      case .notSent: "not sent: it waited too long (retry to send now, or discard)"
      case .failed(let reason): "refused: \(reason)"
      }
    var details = ["\(entry.attempts) attempt(s)"]
    if let error = entry.lastError { details.append("last: \(error)") }
    if let next = entry.nextAttempt { details.append("next \(MessageJSON.format(next))") }
    if let left = entry.mediaBytesLeft { details.append("\(left) bytes left to upload") }
    return "  \(entry.id)  \(entry.conversationTitle)  \(what)  \(state)  ("
      + details.joined(separator: ", ") + ")"
  }
}

/// `chat outbox --json`: one row.
struct OutboxEntryJSON: Encodable {
  let clientMessageId: String
  let conversationId: String
  let title: String
  let kind: String
  let text: String
  let state: String
  let reason: String?
  let createdAt: String
  let attempts: Int
  let nextAttempt: String?
  let lastError: String?
  let mediaBytesLeft: Int?

  init(_ entry: OutboxEntry) {
    clientMessageId = entry.id.rawValue
    conversationId = entry.conversationID.rawValue
    title = entry.conversationTitle
    kind = entry.kind.rawValue
    text = entry.text
    switch entry.state {
    case .waiting:
      state = "waiting"
      reason = nil
    case .notSent:
      state = "notSent"
      reason = nil
    case .failed(let why):
      state = "failed"
      reason = why
    }
    createdAt = MessageJSON.format(entry.createdAt)
    attempts = entry.attempts
    nextAttempt = entry.nextAttempt.map(MessageJSON.format)
    lastError = entry.lastError
    mediaBytesLeft = entry.mediaBytesLeft
  }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(clientMessageId, forKey: .clientMessageId)
    try container.encode(conversationId, forKey: .conversationId)
    try container.encode(title, forKey: .title)
    try container.encode(kind, forKey: .kind)
    try container.encode(text, forKey: .text)
    try container.encode(state, forKey: .state)
    try container.encode(reason, forKey: .reason)
    try container.encode(createdAt, forKey: .createdAt)
    try container.encode(attempts, forKey: .attempts)
    try container.encode(nextAttempt, forKey: .nextAttempt)
    try container.encode(lastError, forKey: .lastError)
    try container.encode(mediaBytesLeft, forKey: .mediaBytesLeft)
  }

  private enum CodingKeys: String, CodingKey {
    case clientMessageId, conversationId, title, kind, text, state, reason, createdAt, attempts
    case nextAttempt, lastError, mediaBytesLeft
  }
}

import ChatData
import ChatDomain
import Foundation

/// `chat conversations`: the list, caught up from the server when it can be reached.
struct ConversationsCommand: ChatCommand {
  static let name = "conversations"
  static let abstract = "List your conversations with unread counts (works offline)."
  static let usage = "chat conversations"

  init(parsing arguments: inout ArgumentCursor) throws(UsageError) {}

  func run(_ context: CommandContext) async -> ExitCode {
    await context.withEngine { engine throws(CommandFailure) in
      do throws(ChatError) {
        _ = try await engine.sync()
      } catch .offline, .unavailable {
        context.output.note("The server cannot be reached: showing what this device holds.")
      } catch {
        throw CommandFailure(error)
      }
      let list: [ConversationSummary]
      do {
        list = try await engine.localConversations()
      } catch {
        throw CommandFailure(error)
      }
      if context.output.json {
        context.output.json(list.map(ConversationJSON.init))
      } else if list.isEmpty {
        context.output.line("No conversations yet: chat create --title T --members a,b")
      } else {
        for summary in list {
          let unread = summary.unreadCount > 0 ? " (\(summary.unreadCount) unread)" : ""
          let preview = summary.lastMessage.map { "  \($0.senderID): \($0.text)" } ?? ""
          context.output.line("\(summary.id)  \(summary.title)\(unread)\(preview)".terminalSafe)
        }
      }
      return .success
    }
  }
}

/// `chat create`: creates a conversation (needs the server).
struct CreateCommand: ChatCommand {
  static let name = "create"
  static let abstract = "Create a conversation with other members (needs the server)."
  static let usage = """
    chat create --title TITLE --members ID[,ID…]
      --title TITLE     The conversation's name.
      --members IDS     Comma-separated user ids (you are added yourself); up to 255.
    """

  let title: String
  let members: [UserID]

  init(parsing arguments: inout ArgumentCursor) throws(UsageError) {
    guard let title = try arguments.option("title") else {
      throw UsageError("missing --title", command: Self.name)
    }
    guard let members = try arguments.option("members") else {
      throw UsageError("missing --members", command: Self.name)
    }
    var ids: [UserID] = []
    for text in members.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) })
    where !text.isEmpty {
      guard let id = UserID(rawValue: text) else {
        throw UsageError("'\(text)' is not a user id", command: Self.name)
      }
      ids.append(id)
    }
    self.title = title
    self.members = ids
  }

  func run(_ context: CommandContext) async -> ExitCode {
    await context.withEngine { engine throws(CommandFailure) in
      let id: ConversationID
      do {
        id = try await engine.conversationList.createConversation(title: title, memberIDs: members)
      } catch {
        throw CommandFailure(error)
      }
      if context.output.json {
        context.output.json(["id": id.rawValue, "title": title])
      } else {
        context.output.line(id.rawValue)
      }
      return .success
    }
  }
}

/// `chat send`: saves first, then tries to deliver; a message left queued is not an error.
struct SendCommand: ChatCommand {
  static let name = "send"
  static let abstract = "Send a message: saved at once, delivered now or at the next sync."
  static let usage = "chat send <conversationId> <text>"

  let conversation: ConversationID
  let text: String

  init(parsing arguments: inout ArgumentCursor) throws(UsageError) {
    conversation = try conversationArgument(&arguments, command: Self.name)
    text = try arguments.positional("text")
  }

  func run(_ context: CommandContext) async -> ExitCode {
    await context.withEngine { engine throws(CommandFailure) in
      let id: MessageID
      do {
        id = try await engine.messages.send(text, in: conversation)
      } catch {
        throw CommandFailure(error)
      }
      _ = await engine.drainOutbox()
      let message = try? await engine.localMessages(in: conversation, limit: 200).first {
        $0.id == id
      }
      let state: String
      switch message?.send {
      case .sent?: state = "sent"
      case .failed?: state = "failed"
      default: state = "queued"
      }
      if context.output.json {
        context.output.json(
          SendJSON(clientMessageId: id.rawValue, state: state, sequence: message?.sequence))
      } else {
        switch message?.send {
        case .sent?: context.output.line("Sent (\(message?.sequence ?? 0)).")
        case .failed(let reason)?: context.output.line("Refused by the server: \(reason)")
        default: context.output.line("Saved; it goes out at the next sync (server unreachable).")
        }
      }
      if case .failed? = message?.send { return .dataError }
      return .success
    }
  }

  struct SendJSON: Encodable {
    let clientMessageId: String
    let state: String
    let sequence: Int?
  }
}

/// `chat sync`: catches up everything and flushes the outbox.
struct SyncCommand: ChatCommand {
  static let name = "sync"
  static let abstract = "Catch up every conversation and send what waits (exit 75 if offline)."
  static let usage = "chat sync"

  init(parsing arguments: inout ArgumentCursor) throws(UsageError) {}

  func run(_ context: CommandContext) async -> ExitCode {
    await context.withEngine { engine throws(CommandFailure) in
      let output = context.output
      let report: ChatEngine.SyncReport
      do {
        report = try await engine.sync { progress in
          output.progress(
            "Catching up: \(progress.conversationsDone)/\(progress.conversations) conversations, "
              + "\(progress.messagesFetched) messages")
        }
      } catch {
        output.endProgress()
        throw CommandFailure(error)
      }
      output.endProgress()
      if output.json {
        output.json(
          [
            "conversationsChanged": report.conversationsChanged,
            "outboxRemaining": report.outboxRemaining,
          ])
      } else {
        output.line(
          "Synced: \(report.conversationsChanged) conversation(s) changed, "
            + "\(report.outboxRemaining) message(s) still waiting to send.")
      }
      return report.outboxRemaining > 0 ? .temporaryFailure : .success
    }
  }
}

/// `chat messages`: the local view of a conversation, in display order.
struct MessagesCommand: ChatCommand {
  static let name = "messages"
  static let abstract = "Show a conversation as this device holds it, in display order."
  static let usage = """
    chat messages <conversationId> [--limit N]
      --limit N     How many of the newest to show (default 50).
    """

  let conversation: ConversationID
  let limit: Int

  init(parsing arguments: inout ArgumentCursor) throws(UsageError) {
    let limitText = try arguments.option("limit")
    conversation = try conversationArgument(&arguments, command: Self.name)
    if let limitText {
      guard let limit = Int(limitText), limit > 0 else {
        throw UsageError("--limit must be a positive number", command: Self.name)
      }
      self.limit = limit
    } else {
      limit = 50
    }
  }

  func run(_ context: CommandContext) async -> ExitCode {
    await context.withEngine { engine throws(CommandFailure) in
      let messages: [Message]
      do {
        messages = try await engine.localMessages(in: conversation, limit: limit)
      } catch {
        throw CommandFailure(error)
      }
      if context.output.json {
        context.output.json(messages.map(MessageJSON.init))
      } else {
        for message in messages {
          let sequence = message.sequence.map { String($0) } ?? "-"
          context.output.line(
            "\(sequence)\t\(message.senderID)\t\(message.text.terminalSafe)\t[\(message.statusText)]"
          )
        }
      }
      return .success
    }
  }
}

/// `chat search`: the local full-text index, offline.
struct SearchCommand: ChatCommand {
  static let name = "search"
  static let abstract = "Search the messages on this device (works offline)."
  static let usage = "chat search <words…>"

  let query: String

  init(parsing arguments: inout ArgumentCursor) throws(UsageError) {
    var words: [String] = [try arguments.positional("words")]
    while let word = arguments.nextPositional() { words.append(word) }
    query = words.joined(separator: " ")
  }

  func run(_ context: CommandContext) async -> ExitCode {
    await context.withEngine { engine throws(CommandFailure) in
      let hits: [SearchHit]
      do {
        hits = try await engine.conversationList.search(query, limit: 50)
      } catch {
        throw CommandFailure(error)
      }
      if context.output.json {
        context.output.json(hits.map(SearchHitJSON.init))
      } else if hits.isEmpty {
        context.output.line("No messages match.")
      } else {
        for hit in hits {
          let snippet = hit.snippet.parts.map { $0.isMatch ? "[\($0.text)]" : $0.text }.joined()
          context.output.line("\(hit.conversationTitle)  \(hit.senderID): \(snippet)".terminalSafe)
        }
      }
      return .success
    }
  }
}

/// `chat read`: marks a conversation read up to its newest message.
struct ReadCommand: ChatCommand {
  static let name = "read"
  static let abstract = "Mark a conversation read up to its newest message."
  static let usage = "chat read <conversationId>"

  let conversation: ConversationID

  init(parsing arguments: inout ArgumentCursor) throws(UsageError) {
    conversation = try conversationArgument(&arguments, command: Self.name)
  }

  func run(_ context: CommandContext) async -> ExitCode {
    await context.withEngine { engine throws(CommandFailure) in
      let upTo: Int?
      do {
        upTo = try await engine.markAllRead(in: conversation)
      } catch {
        throw CommandFailure(error)
      }
      if context.output.json {
        context.output.json(["conversationId": conversation.rawValue, "readUpTo": "\(upTo ?? 0)"])
      } else {
        context.output.line(upTo.map { "Read up to \($0)." } ?? "Nothing to read.")
      }
      return .success
    }
  }
}

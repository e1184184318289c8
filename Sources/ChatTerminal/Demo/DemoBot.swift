import ChatData
import ChatDomain
import ChatIdentifiers
import Foundation

/// A participant played by the program: it reads what you send, types, and answers, so the
/// ticks on your messages move from clock to read. It puts 👍 on every other message of yours,
/// answers a question with a reply that quotes it, and in a group names you (`@you`), so the
/// list shows "@" by the unread count.
actor DemoBot {
  let engine: ChatEngine
  /// Whose messages it answers (only yours: two bots never talk to each other).
  let answers: UserID
  private var watching: Set<ConversationID> = []
  /// The conversations with more than two members.
  private var groups: Set<ConversationID> = []
  private var handled: [ConversationID: Int] = [:]
  private var tasks: [Task<Void, Never>] = []
  private var replyIndex = 0
  /// Messages of yours answered so far (every other one gets 👍).
  private var answered = 0

  init(engine: ChatEngine, answers: UserID) {
    self.engine = engine
    self.answers = answers
  }

  func start() async {
    await engine.start()
    let conversations = engine.conversationList.conversations()
    tasks.append(
      Task {
        for await list in conversations {
          for summary in list { self.watch(summary.id, isGroup: summary.memberIDs.count > 2) }
        }
      })
  }

  /// Edits one of its own messages after a while, as people do: the screen then says "edited".
  func edit(_ id: MessageID, in conversation: ConversationID, to text: String, after: Duration) {
    let engine = engine
    tasks.append(
      Task {
        try? await Task.sleep(for: after)
        try? await engine.messages.edit(id, in: conversation, to: text)
      })
  }

  /// Adds `newcomer` (another bot's engine) to the conversation after a while; the newcomer
  /// says hello. The screen shows "carol added dave", then dave's greeting.
  func add(
    _ newcomer: ChatEngine, to conversation: ConversationID, after: Duration, greeting: String
  ) {
    let engine = engine
    tasks.append(
      Task {
        try? await Task.sleep(for: after)
        try? await engine.conversationList.changeMembers(
          in: conversation, add: [newcomer.currentUserID], remove: [])
        _ = try? await newcomer.sync()
        _ = try? await newcomer.messages.send(greeting, in: conversation)
      })
  }

  func stop() async {
    for task in tasks { task.cancel() }
    await engine.close()
  }

  private func watch(_ conversation: ConversationID, isGroup: Bool) {
    if isGroup { groups.insert(conversation) }
    guard watching.insert(conversation).inserted else { return }
    let messages = engine.messages.messages(in: conversation)
    tasks.append(
      Task {
        for await list in messages { await self.answer(list, in: conversation) }
      })
  }

  private func answer(_ messages: [Message], in conversation: ConversationID) async {
    let theirs = messages.filter { $0.senderID == answers && $0.sequence != nil }
    let newestSequence = theirs.last?.sequence ?? 0
    guard let last = handled[conversation] else {
      // What was there before the bot started is read, not answered.
      handled[conversation] = newestSequence
      return
    }
    guard let newest = theirs.last, let sequence = newest.sequence, sequence > last else { return }
    handled[conversation] = sequence
    let text = newest.text
    let engine = engine
    let answer = (groups.contains(conversation) ? "@\(answers) " : "") + nextReply(to: text)
    let thumbsUp = answered % 2 == 0
    answered += 1
    let quotes = text.hasSuffix("?")
    tasks.append(
      Task {
        try? await Task.sleep(for: .milliseconds(700))
        engine.messages.markRead(upTo: sequence, in: conversation)
        if thumbsUp {
          try? await engine.messages.react("👍", to: newest.id, in: conversation, remove: false)
        }
        try? await Task.sleep(for: .milliseconds(500))
        engine.typing.userIsTyping(in: conversation)
        try? await Task.sleep(for: .milliseconds(1_500))
        if quotes {
          _ = try? await engine.messages.reply(answer, to: newest.id, in: conversation)
        } else {
          _ = try? await engine.messages.send(answer, in: conversation)
        }
      })
  }

  private func nextReply(to text: String) -> String {
    let lower = text.lowercased()
    if lower.contains("hello") || lower.contains("hi") || lower.contains("hey") {
      return "Hi! 👋 Try Ctrl-N to go offline, then send something."
    }
    if lower.hasSuffix("?") { return "Good question. Let me check and come back to you." }
    let replies = [
      "Got it.", "Sounds good to me!", "On my way 🚶", "Ha, nice.",
      "Noted. See the ticks? ✓ sent, ✓✓ delivered, blue when I read it.",
    ]
    defer { replyIndex += 1 }
    return replies[replyIndex % replies.count]
  }
}

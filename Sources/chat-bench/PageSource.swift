import ChatAPI
import ChatData
import ChatDomain
import ChatIdentifiers
import Foundation
import Support

/// The pages of the storage figures' database, in the order they are written: one large
/// conversation among many small ones (2–4 members each), the pages of all conversations
/// interleaved (each conversation's in sequence order), as catch-ups write them. Deterministic
/// (seed 42); counts the messages holding each word as it goes, for B3's queries.
struct PageSource {
  let layout: StorageLayout
  let me: UserID
  let large: ConversationID
  let corpus = Corpus()
  /// When the first message was sent; the rest follow `layout.secondsPerMessage` apart.
  static let created = Date(timeIntervalSince1970: 1_780_000_000)
  /// How many messages hold each word, by the word's rank.
  private(set) var frequency: [Int]
  /// How many messages hold each unspaced word, by its rank (`Corpus.unspacedWords`).
  private(set) var unspacedFrequency: [Int]
  /// Messages made so far.
  private(set) var written = 0
  private let conversations: [(id: ConversationID, members: [UserID], pages: Int)]
  /// Which conversation each page belongs to, shuffled.
  private let slots: [Int]
  private var generator: SplitMix64
  private var nextSequence: [Int]
  private var ranks: [Int] = []
  private var unspacedRanks: [Int] = []
  private var seen = Set<Int>()
  /// Each conversation's last message, for the next reply (`--part-three`).
  private var lastMessage: [BenchmarkMessage?]

  init(layout: StorageLayout, me: UserID) {
    self.layout = layout
    self.me = me
    var generator = SplitMix64(seed: 42)
    let users = (0..<50).map { UserID("user\($0)") }
    var conversations: [(id: ConversationID, members: [UserID], pages: Int)] = []
    let large = ConversationID(generator.uuidString())
    conversations.append(
      (large, [me, users[0], users[1]], layout.largeConversation / layout.pageSize))
    for _ in 0..<layout.smallConversations {
      let count = 1 + Int(generator.next() % 3)
      let members = [me] + (0..<count).map { _ in users[Int(generator.next() % 50)] }
      conversations.append((ConversationID(generator.uuidString()), members, 1))
    }
    var slots = conversations.indices.flatMap { index in
      [Int](repeating: index, count: conversations[index].pages)
    }
    slots.shuffle(using: &generator)
    self.large = large
    self.conversations = conversations
    self.slots = slots
    self.generator = generator
    nextSequence = [Int](repeating: 1, count: conversations.count)
    lastMessage = [BenchmarkMessage?](repeating: nil, count: conversations.count)
    frequency = [Int](repeating: 0, count: corpus.words.count)
    unspacedFrequency = [Int](repeating: 0, count: corpus.unspacedWords.count)
  }

  var pageCount: Int { slots.count }

  /// Creates every conversation in `store` (titled "Conversation N"), before any page.
  func saveConversations(in store: BenchmarkStore) async throws {
    for (index, conversation) in conversations.enumerated() {
      try await store.saveConversation(
        conversation.id, title: "Conversation \(index)", members: conversation.members,
        createdAt: Self.created, me: me)
    }
  }

  /// Page `index` (all of one conversation); call with 0, 1, 2… in turn.
  mutating func page(_ index: Int) -> [BenchmarkMessage] {
    let slot = slots[index]
    let conversation = conversations[slot]
    var messages: [BenchmarkMessage] = []
    messages.reserveCapacity(layout.pageSize)
    for _ in 0..<layout.pageSize {
      let text = corpus.message(&generator, ranks: &ranks, unspacedRanks: &unspacedRanks)
      seen.removeAll(keepingCapacity: true)
      for rank in ranks where seen.insert(rank).inserted { frequency[rank] += 1 }
      seen.removeAll(keepingCapacity: true)
      for rank in unspacedRanks where seen.insert(rank).inserted {
        unspacedFrequency[rank] += 1
      }
      let sequence = nextSequence[slot]
      nextSequence[slot] += 1
      let sender = conversation.members[
        Int(generator.next() % UInt64(conversation.members.count))]
      // Client IDs are UUIDv7, from the sender's clock; server IDs random.
      let sentAt = Self.created.addingTimeInterval(Double(written) * layout.secondsPerMessage)
      let clientID = generator.uuidV7String(millis: UInt64(sentAt.timeIntervalSince1970 * 1000))
      var message = BenchmarkMessage(
        conversation: conversation.id, clientID: MessageID(rawValue: clientID)!,
        sender: sender, serverID: generator.uuidString(), text: text, sequence: sequence,
        sentAt: sentAt)
      // Part 3 on a fixed schedule, outside the random stream: the text and the IDs stay those
      // of a run without it.
      if layout.partThree && written % 10 == 3 {
        message.reactions = [
          ReactionGroup(emoji: "👍", userIds: conversation.members.map(\.rawValue)),
          ReactionGroup(emoji: "❤️", userIds: [sender.rawValue]),
        ]
      }
      if layout.partThree && written % 10 == 7, let answered = lastMessage[slot] {
        message.replyTo = answered.clientID
        message.quote = Quote(
          senderId: answered.sender.rawValue, sequence: answered.sequence,
          text: String(answered.text.prefix(100)), mediaKind: nil, deleted: false)
      }
      lastMessage[slot] = message
      messages.append(message)
      written += 1
    }
    return messages
  }

  /// The fixture the figures after B1 share, once every page is written to `storePath`.
  func fixture(folder: String, storePath: String, store: BenchmarkStore) -> StorageFixture {
    StorageFixture(
      layout: layout, folder: folder, storePath: storePath, store: store, me: me, large: large,
      corpus: corpus, documentFrequency: frequency, unspacedDocumentFrequency: unspacedFrequency)
  }
}

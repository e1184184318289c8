import ChatAPI
import ChatData
import ChatDataInspection
import ChatDomain
import ChatIdentifiers
import ChatWorld
import Foundation
import SQLite

/// A conversation as the server holds it at the end: the truth the checker compares to.
struct LoggedConversation {
  let id: ConversationID
  /// The members now.
  let members: [UserID]
  /// The whole log: every item, as the users who could see it were served it.
  let messages: [Item]
  /// What the server serves each user who was ever a member: where it stands, what it sees.
  let views: [UserID: UserView]

  /// One user's part of a conversation, as the server serves it to that user.
  struct UserView {
    let membership: Membership
    let visible: [VisibleRange]
    /// The items it may see, in order.
    let items: [Item]
    /// Its unread messages that mention it, as the server counts them (API.md Part 3).
    var unreadMentions: Int? = nil
    /// The pinned messages it can see, newest pin first (API.md Part 3).
    var pinned: [String] = []
    /// Its draft, when it holds something (API.md Part 3).
    var draft: Draft? = nil

    func sees(_ sequence: Int) -> Bool {
      visible.contains { sequence >= $0.first && $0.last.map { sequence <= $0 } ?? true }
    }
  }

  /// Whether `user` was ever a member (it lists the conversation and reads what it saw).
  func wasEverMember(_ user: UserID) -> Bool { views[user] != nil }

  /// The edit and delete items of the message with client message ID `id`, in order.
  func changes(of id: String) -> [Item] {
    messages.filter {
      [.edit, .delete].contains($0.effectiveKind) && $0.target?.lowercased() == id.lowercased()
    }
  }

  /// Whether `user` saw every change made to `message`: then its devices show the message in
  /// the state the server serves (its current one). A member who left before an edit or a
  /// delete keeps the message as it last saw it (API.md: it sees items written while it was a
  /// member; "every device that applies the delete erases").
  func sawEveryChange(of message: Item, as user: UserID) -> Bool {
    guard let view = views[user] else { return false }
    return changes(of: message.clientMessageId).allSatisfy { view.sees($0.sequence) }
  }

  /// Whether `user` saw every reaction item on `message` (API.md Part 3): a member away while
  /// someone reacted keeps the message's reactions as it last saw them, as it keeps its text
  /// (`sawEveryChange`); the reaction items written then are outside its visible ranges.
  func sawEveryReaction(on message: Item, as user: UserID) -> Bool {
    guard let view = views[user] else { return false }
    let id = message.clientMessageId.lowercased()
    return messages.allSatisfy {
      $0.effectiveKind != .reaction || $0.target?.lowercased() != id || view.sees($0.sequence)
    }
  }

  /// The message item with client message ID `id`, if the log holds one.
  func message(_ id: String) -> Item? {
    messages.first {
      $0.effectiveKind == .message && $0.clientMessageId.lowercased() == id.lowercased()
    }
  }

  /// Whether `user` saw the delete of the message with client message ID `id`.
  func sawDelete(of id: String, as user: UserID) -> Bool {
    guard let view = views[user] else { return false }
    return changes(of: id).contains { $0.effectiveKind == .delete && view.sees($0.sequence) }
  }
}

/// What a device shows at the end, every conversation scrolled back to its beginning.
struct FinalView {
  let device: SimDevice
  let incarnation: Incarnation
  let views: [ConversationID: [Message]]
  /// The outbox's size; nil when it could not be read.
  let outbox: Int?
  /// Every message row its database holds; nil when it could not be read.
  let held: [HeldMessage]?
  let listed: [ConversationID]
  /// Where its user stands in each conversation it holds; nil when it could not be read.
  let conversations: [HeldConversation]?
  /// The users its user blocked, as it holds them; nil when they could not be read.
  var blocked: [UserID]? = nil
  /// The client message IDs (lowercased) of the messages below a history floor that the
  /// device's server search found.
  var foundOnServer: Set<String> = []

  /// Where each conversation's history begins on the device: pruned below, so its screen
  /// shows from there (1 when not read).
  func floor(of conversation: ConversationID) -> Int {
    conversations?.first { $0.id == conversation }?.historyFloor ?? 1
  }
}

extension Simulation {
  /// Reads every conversation and item from the live server as each user sees them (past
  /// every fault: straight to the service); the whole log is the union of what the users see,
  /// since every item was written while someone was a member.
  func readServer() -> [LoggedConversation]? {
    var conversations: [String: ConversationItem] = [:]
    var views: [String: [UserID: LoggedConversation.UserView]] = [:]
    var log: [String: [Int: Item]] = [:]
    for user in Set(devices.map(\.user.rawValue)).sorted() {
      guard let token = observer(user),
        let response = serverRequest(APIRequest(.listConversations), token: token),
        let list = try? APICoding.decode(ConversationList.self, from: response.body)
      else {
        checker.report(.relaunch, "the server could not be read as \(user)", keys: [])
        return nil
      }
      for item in list.items {
        let key = item.id.lowercased()
        registerConversation(item, atCreation: false)
        if conversations[key] == nil || item.membership == .member { conversations[key] = item }
        guard let items = readItems(of: item.id, token: token) else { return nil }
        // A former member may be served an item as of when it left: a member's copy wins.
        for entry in items where item.membership == .member || log[key]?[entry.sequence] == nil {
          log[key, default: [:]][entry.sequence] = entry
        }
        views[key, default: [:]][UserID(user)] = LoggedConversation.UserView(
          membership: item.membership ?? .member,
          visible: item.visible ?? [VisibleRange(first: 1, last: nil)], items: items,
          unreadMentions: item.unreadMentions,
          pinned: (item.pinned ?? []).map { $0.clientMessageId.lowercased() },
          draft: item.draft.flatMap { $0.isEmpty ? nil : $0 })
      }
    }
    return conversations.keys.sorted().compactMap { key in
      guard let item = conversations[key] else { return nil }
      let current = views[key, default: [:]].filter { $0.value.membership == .member }
      return LoggedConversation(
        id: ConversationID(item.id), members: current.keys.sorted(),
        messages: (log[key] ?? [:]).sorted { $0.key < $1.key }.map(\.value),
        views: views[key] ?? [:])
    }
  }

  /// `user`'s block list as the server serves it; nil (reported) when it could not be read.
  private func servedBlockList(of user: UserID) -> Set<UserID>? {
    guard let token = observer(user.rawValue),
      let response = serverRequest(APIRequest(.blockedUsers), token: token),
      let list = try? APICoding.decode(BlockedUsers.self, from: response.body)
    else {
      checker.report(.relaunch, "the block list could not be read as \(user)", keys: [])
      return nil
    }
    return Set(list.userIds.compactMap(UserID.init(rawValue:)))
  }

  /// Every item of a conversation the holder of `token` may see, page by page.
  private func readItems(of conversation: String, token: String) -> [Item]? {
    var items: [Item] = []
    var after = 0
    while true {
      guard
        let response = serverRequest(
          APIRequest(
            .listItems(conversation: conversation),
            query: ["after": String(after), "limit": "200"]), token: token),
        let page = try? APICoding.decode(ItemPage.self, from: response.body)
      else {
        checker.report(.relaunch, "the server's messages could not be read", keys: [])
        return nil
      }
      items += page.items
      guard page.hasMore, let last = page.items.last else { return items }
      after = last.sequence
    }
  }

  /// Scrolls every device back to the beginning of every conversation its user is in, reads
  /// what each shows, and runs the end-of-run checks.
  func readDevicesAndCheck(_ log: [LoggedConversation]) {
    var finals: [FinalView] = []
    // A device can be signed out while it scrolls (its refresh token was spent by a refresh
    // whose reply was lost; see the report): the user signs in again, and it scrolls again.
    var scrolled: [ObjectIdentifier] = []
    for _ in 0..<3 {
      for device in devices {
        guard let incarnation = device.current, let engine = incarnation.engine,
          !scrolled.contains(ObjectIdentifier(incarnation))
        else { continue }
        scrolled.append(ObjectIdentifier(incarnation))
        let mine = log.filter { $0.wasEverMember(device.user) }.map(\.id)
        for conversation in mine {
          openScreen(conversation, on: device, incarnation)
        }
        _ = world.perform(on: incarnation.executor, timeout: .seconds(600)) {
          for conversation in mine {
            var pages = 0
            while pages < 100, (try? await engine.messages.loadOlder(in: conversation)) == true {
              pages += 1
            }
          }
        }
      }
      world.run(deadline: world.now + .seconds(600))
      let all = devices.compactMap(\.current).map(ObjectIdentifier.init)
      if all.allSatisfy(scrolled.contains) { break }
    }
    if options.retainMessages != nil { pruneAtTheEnd() }
    for device in devices where device.current?.engine == nil {
      checker.report(.relaunch, "\(device.name) is not running at the end", keys: [device.name])
    }
    for device in devices {
      guard let incarnation = device.current, let engine = incarnation.engine else { continue }
      let outbox = world.perform(on: incarnation.executor, timeout: .seconds(60)) {
        await engine.outboxCount()
      }
      let held = world.perform(on: incarnation.executor, timeout: .seconds(60)) {
        try? await engine.heldMessages()
      }
      let standing = world.perform(on: incarnation.executor, timeout: .seconds(60)) {
        try? await engine.heldConversations()
      }
      let blocked = world.perform(on: incarnation.executor, timeout: .seconds(60)) {
        try? await engine.blockedUsers()
      }
      var final = FinalView(
        device: device, incarnation: incarnation, views: incarnation.latest, outbox: outbox,
        held: held ?? nil, listed: incarnation.known.map(\.id), conversations: standing ?? nil,
        blocked: blocked ?? nil)
      if options.retainMessages != nil { searchPruned(&final, log: log, engine: engine) }
      finals.append(final)
    }
    checkErasure(log, finals)
    checker.checkEnd(log: log, finals: finals, simulation: self)
    if options.partThree {
      checker.checkBlockedPosts(log: log, history: history, simulation: self)
      for final in finals {
        guard let served = servedBlockList(of: final.device.user) else { continue }
        checker.checkBlocking(final, served: served, simulation: self)
      }
    }
  }

  /// Every device prunes once more, its screens scrolled back to the beginning: what its
  /// window no longer keeps goes, and each conversation's history there begins at its floor.
  private func pruneAtTheEnd() {
    for device in devices {
      guard let incarnation = device.current, let engine = incarnation.engine else { continue }
      _ = world.perform(on: incarnation.executor, timeout: .seconds(600)) { [self] in
        await maintain(engine, on: incarnation)
      }
    }
    // The screens read what is left.
    world.run(deadline: world.now + .seconds(60))
  }

  /// Asks the server search of `final`'s device for each message its user may see below a
  /// history floor there (pruned, so not on its screen), by the words that make its text
  /// unique: the checker wants each found.
  private func searchPruned(_ final: inout FinalView, log: [LoggedConversation], engine: ChatEngine)
  {
    let user = final.device.user
    for conversation in log {
      let floor = final.floor(of: conversation.id)
      guard floor > 1, let view = conversation.views[user] else { continue }
      for item in view.items
      where item.sequence < floor && item.effectiveKind == .message && item.deleted != true {
        let id = item.clientMessageId.lowercased()
        // A former member was served the text it saw; the server indexes the current one.
        let current = conversation.messages.first { $0.sequence == item.sequence }?.text
        let queries = [item.text, current].compactMap { $0 }.map(Self.uniqueWords)
        history.prunedSearched += 1
        let found = world.perform(on: final.incarnation.executor, timeout: .seconds(60)) {
          for query in Set(queries).sorted() {
            var cursor: String?
            for _ in 0..<5 {
              guard
                let page = try? await engine.conversationList.searchServer(
                  query, limit: 50, before: cursor)
              else { break }
              if page.hits.contains(where: { $0.messageID.rawValue == id }) { return true }
              guard let next = page.nextCursor else { break }
              cursor = next
            }
          }
          return false
        }
        if found == true {
          history.prunedFound += 1
          final.foundOnServer.insert(id)
        }
      }
    }
  }

  /// No device holds the text of a deleted message, nor of its edits, in its rows or its
  /// search index (API.md: a delete is real, on every device), nor any byte of it in its
  /// files, as they are on disk at the end (issue 33: index segments, freed pages, the log).
  private func checkErasure(_ log: [LoggedConversation], _ finals: [FinalView]) {
    var sentText: [String: String] = [:]
    for send in history.sends { if let id = send.savedAs { sentText[id.rawValue] = send.text } }
    // A forward not deleted carries a copy of its source's text (API.md Part 3): that text
    // lives on, rightly, on the devices of whoever may see the forward.
    var forwarded: [UserID: Set<String>] = [:]
    for conversation in log {
      for (user, view) in conversation.views {
        for item in view.items where item.forwarded == true && item.deleted != true {
          forwarded[user, default: []].insert(item.text)
        }
      }
    }
    for conversation in log {
      for item in conversation.messages where item.deleted == true {
        let id = item.clientMessageId.lowercased()
        let written =
          [sentText[id]].compactMap { $0 }
          + history.changes.filter { $0.target.rawValue == id }.compactMap(\.text)
        // Every device whose user saw the delete (a member who left before it keeps what it
        // saw: the delete was written outside its visible ranges).
        for final in finals where conversation.sawDelete(of: id, as: final.device.user) {
          let texts = written.filter { !(forwarded[final.device.user]?.contains($0) ?? false) }
          guard let engine = final.incarnation.engine else { continue }
          for text in texts {
            let words = Self.uniqueWords(of: text)
            let held = world.perform(on: final.incarnation.executor, timeout: .seconds(60)) {
              (try? await engine.holdsText(words)) ?? true
            }
            if held ?? true {
              checker.report(
                .erased,
                "\(final.incarnation.name) still holds \"\(words)\" of deleted \(id) in \(label(conversation.id))",
                keys: [id, final.incarnation.name])
            } else if let marker = Self.markerBytes(of: text),
              Database.occurrences(of: marker, inFilesAt: final.device.path) > 0
            {
              checker.report(
                .bytesLeft,
                "\(final.incarnation.name)'s files still hold bytes of \"\(words)\" of deleted \(id) in \(label(conversation.id))",
                keys: [id, final.incarnation.name])
            }
          }
        }
      }
    }
  }

  /// The words that make a workload text unique: "sim alice.phone-12 ", "edit sim bob.ipad-7 "
  /// (the space: -12 is not -123).
  static func uniqueWords(of text: String) -> String {
    let words = text.split(separator: " ", omittingEmptySubsequences: false)
    return words.prefix(text.hasPrefix("edit ") ? 3 : 2).joined(separator: " ") + " "
  }
}

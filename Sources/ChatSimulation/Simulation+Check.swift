import ChatAPI
import ChatData
import ChatDomain
import Foundation

/// A conversation as the server holds it at the end: the truth the checker compares to.
struct LoggedConversation {
  let id: ConversationID
  let members: [UserID]
  let messages: [Item]
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
}

extension Simulation {
  /// Reads every conversation and message from the live server, as each user (past every
  /// fault: straight to the service).
  func readServer() -> [LoggedConversation]? {
    var logged: [LoggedConversation] = []
    var seen: Set<String> = []
    for user in Set(devices.map(\.user.rawValue)).sorted() {
      guard let token = observer(user),
        let response = serverRequest(APIRequest(.listConversations), token: token),
        let list = try? APICoding.decode(ConversationList.self, from: response.body)
      else {
        checker.report(.relaunch, "the server could not be read as \(user)", keys: [])
        return nil
      }
      for item in list.items.sorted(by: { $0.id < $1.id }) where seen.insert(item.id).inserted {
        registerConversation(item)
        var messages: [Item] = []
        var after = 0
        while true {
          guard
            let response = serverRequest(
              APIRequest(
                .listItems(conversation: item.id),
                query: ["after": String(after), "limit": "200"]), token: token),
            let page = try? APICoding.decode(ItemPage.self, from: response.body)
          else {
            checker.report(.relaunch, "the server's messages could not be read", keys: [])
            return nil
          }
          messages += page.items
          guard page.hasMore, let last = page.items.last else { break }
          after = last.sequence
        }
        logged.append(
          LoggedConversation(
            id: ConversationID(item.id), members: item.memberIds.map { UserID($0) },
            messages: messages))
      }
    }
    return logged
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
        let mine = log.filter { $0.members.contains(device.user) }.map(\.id)
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
      finals.append(
        FinalView(
          device: device, incarnation: incarnation, views: incarnation.latest, outbox: outbox,
          held: held ?? nil, listed: incarnation.known.map(\.id)))
    }
    checkErasure(log, finals)
    checker.checkEnd(log: log, finals: finals, simulation: self)
  }

  /// No device holds the text of a deleted message, nor of its edits, in its rows or its
  /// search index (API.md: a delete is real, on every device).
  private func checkErasure(_ log: [LoggedConversation], _ finals: [FinalView]) {
    var sentText: [String: String] = [:]
    for send in history.sends { if let id = send.savedAs { sentText[id.rawValue] = send.text } }
    for conversation in log {
      for item in conversation.messages where item.deleted == true {
        let id = item.clientMessageId.lowercased()
        let texts =
          [sentText[id]].compactMap { $0 }
          + history.changes.filter { $0.target.rawValue == id }.compactMap(\.text)
        for final in finals where conversation.members.contains(final.device.user) {
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

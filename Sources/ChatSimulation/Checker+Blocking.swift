import ChatAPI
import ChatDomain
import ChatIdentifiers
import Support

/// API.md Part 3's blocking at the end of a run: no post accepted in a one-to-one conversation
/// while its other member surely blocked the sender (`History.blockWindows`, against the time
/// the server gave the item: it reads the block after that time); and every device holds its
/// user's block list as the server serves it, showing exactly the blocked users' messages in
/// groups as blocked.
extension Checker {
  func checkBlockedPosts(log: [LoggedConversation], history: History, simulation: Simulation) {
    for conversation in log {
      // One-to-one throughout: two members and never a change of them (a group that shrank
      // to two is one-to-one from then on; the check leaves those out rather than guess).
      guard conversation.members.count == 2,
        !conversation.messages.contains(where: { $0.effectiveKind == .members })
      else { continue }
      for item in conversation.messages {
        guard let sender = UserID(rawValue: item.senderId),
          let other = conversation.members.first(where: { $0 != sender }),
          let time = Timestamp(rfc3339: item.sentAt)
        else { continue }
        let window = history.blockWindows.first {
          $0.blocker == other && $0.blocked == sender && $0.from < time
            && ($0.until.map { time < $0 } ?? true)
        }
        guard let window else { continue }
        report(
          .blockedPost,
          "\(simulation.label(conversation.id))#\(item.sequence) from \(sender) accepted at \(item.sentAt), while \(other) blocked it (since \(window.from))",
          keys: [item.clientMessageId, sender.rawValue])
      }
    }
  }

  /// `served`: the server's block list of the device's user.
  func checkBlocking(_ final: FinalView, served: Set<UserID>, simulation: Simulation) {
    let name = final.incarnation.name
    guard let held = final.blocked else {
      report(.blocking, "\(name): its block list could not be read", keys: [name])
      return
    }
    if Set(held) != served {
      report(
        .blocking,
        "\(name) holds the block list \(held.map(\.rawValue).sorted()), the server \(served.map(\.rawValue).sorted())",
        keys: [name])
      return
    }
    for summary in final.incarnation.known where summary.memberIDs.count != 2 {
      for message in final.views[summary.id] ?? []
      where message.event == nil && !message.isDeleted
        && message.isFromBlockedSender != served.contains(message.senderID)
      {
        report(
          .blocking,
          "\(name) shows \(message.senderID)'s message in \(simulation.label(summary.id)) as \(message.isFromBlockedSender ? "blocked" : "not blocked")",
          keys: [message.id.rawValue, name])
      }
    }
  }
}

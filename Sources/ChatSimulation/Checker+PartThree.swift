import ChatAPI
import ChatDomain
import ChatIdentifiers

/// API.md Part 3 at the end of a run: every device ends with the server's reactions on every
/// message (none lost, none doubled, none on a deleted one), each reply's quote as the server
/// serves it to that device's user now (its target's current state, nothing of what the user
/// cannot see), the mentions the server found, the server's count of unread mentions, and the
/// server's pinned messages in its order (at most ten on either side), and the server's draft of
/// its user.
extension Checker {
  /// `shown` and `served` are one conversation's messages on a device and on the server, the
  /// same items in the same order (`checkDevice` found them so).
  func checkPartThree(
    _ final: FinalView, shown: [Message], served: [Item], in conversation: LoggedConversation,
    simulation: Simulation
  ) {
    let name = final.incarnation.name
    let user = final.device.user
    let label = simulation.label(conversation.id)
    // In a group a quote of someone the user blocked is hidden, as the message itself is.
    let members = final.incarnation.known.first { $0.id == conversation.id }?.memberIDs ?? []
    let hidden = members.count != 2 ? Set((final.blocked ?? []).map(\.rawValue)) : []
    for (message, item) in zip(shown, served) where item.effectiveKind == .message {
      // A former member shows a message as it last saw it (`sawEveryChange`): its reactions
      // and quotes too.
      guard conversation.sawEveryChange(of: item, as: user),
        conversation.views[user]?.membership == .member
      else { continue }
      let deleted = item.deleted == true
      let reactions =
        deleted
        ? []
        : (item.reactions ?? []).map {
          Reaction(
            emoji: $0.emoji, count: $0.userIds.count, includesMe: $0.userIds.contains(user.rawValue)
          )
        }
      if message.reactions != reactions, conversation.sawEveryReaction(on: item, as: user) {
        report(
          .reactions,
          "\(name) \(label)#\(item.sequence) shows \(Self.describe(message.reactions)), the server \(Self.describe(reactions))",
          keys: [message.id.rawValue, name])
      }
      // A quote is of the answered message as the user last saw it, when it was away for a
      // change of it (the same rule as for a message's own text).
      let sawTarget =
        item.replyTo.flatMap { conversation.message($0.clientMessageId) }
        .map { conversation.sawEveryChange(of: $0, as: user) } ?? true
      if !deleted, sawTarget, let reply = item.replyTo,
        !Self.sameQuote(message.replyTo, reply, hiding: hidden)
      {
        report(
          .quote,
          "\(name) \(label)#\(item.sequence) quotes \(String(describing: message.replyTo?.quote)), the server \(String(describing: reply.quote))",
          keys: [message.id.rawValue, reply.clientMessageId, name])
      }
      if !deleted, message.mentions.map(\.rawValue) != (item.mentions ?? []) {
        report(
          .mentions,
          "\(name) \(label)#\(item.sequence) names \(message.mentions), the server \(item.mentions ?? [])",
          keys: [message.id.rawValue, name])
      }
    }
    guard conversation.views[user]?.membership == .member,
      let view = conversation.views[user],
      let summary = final.incarnation.known.first(where: { $0.id == conversation.id })
    else { return }
    let pinned = summary.pinned.map(\.id.rawValue)
    if pinned != view.pinned || max(pinned.count, view.pinned.count) > APILimits.maxPins {
      report(
        .pins,
        "\(name) shows \(pinned.count) pinned in \(label) (\(pinned.joined(separator: " "))), the server \(view.pinned.count) (\(view.pinned.joined(separator: " ")))",
        keys: [name] + pinned)
    }
    let draft = summary.draft.map { "\($0.text) ↩\($0.replyTo?.rawValue ?? "-")" }
    let served = view.draft.map { "\($0.text) ↩\($0.replyTo?.lowercased() ?? "-")" }
    if draft != served {
      report(
        .drafts,
        "\(name) shows the draft \(draft ?? "none") in \(label), the server \(served ?? "none")",
        keys: [name])
    }
    guard let counted = view.unreadMentions else { return }
    if summary.unreadMentions != counted {
      report(
        .mentions,
        "\(name) counts \(summary.unreadMentions) unread mentions in \(label), the server \(counted)",
        keys: [name])
    }
  }

  private static func sameQuote(_ shown: QuotedMessage?, _ served: ReplyTo, hiding: Set<String>)
    -> Bool
  {
    guard let shown, shown.id.rawValue == served.clientMessageId.lowercased() else { return false }
    if let sender = served.quote?.senderId, hiding.contains(sender) { return shown.quote == nil }
    switch (shown.quote, served.quote) {
    case (nil, nil): return true
    case (let mine?, let theirs?):
      return mine.senderID.rawValue == theirs.senderId && mine.sequence == theirs.sequence
        && Array(mine.text.utf8) == Array(theirs.text.utf8) && mine.isDeleted == theirs.deleted
        && mine.mediaKind?.rawValue == theirs.mediaKind?.rawValue
    default: return false
    }
  }

  private static func describe(_ reactions: [Reaction]) -> String {
    reactions.isEmpty
      ? "none"
      : reactions.map { "\($0.emoji)×\($0.count)\($0.includesMe ? " (mine)" : "")" }
        .joined(separator: " ")
  }
}

import ChatAPI
import ChatDomain
import ChatIdentifiers

/// API.md Part 3's forwarding at the end of a run: every forward the server holds was saved by
/// its sender's device into that conversation, with a text its source had (sent or edited to,
/// or one of its sender's own edits); every saved forward reached the server or was refused;
/// and a media key no live message carries any more has no bytes in the
/// store once the server's media sweep has run (a live one's bytes: `checkMedia`).
extension Checker {
  func checkForwards(
    log: [LoggedConversation], finals: [FinalView], history: History, simulation: Simulation
  ) {
    var forwardOf: [String: History.Forward] = [:]
    for forward in history.forwards {
      if let id = forward.savedAs { forwardOf[id.rawValue] = forward }
    }
    // A forward whose call a kill cut short is known by its sender and conversation only: a
    // forward on the server that no saved call names is taken as such a call's, so a forward
    // of it follows the chain to its texts too (seed 1730 of a 10,000-seed run forwarded one
    // again).
    for conversation in log {
      for item in conversation.messages
      where item.forwarded == true && forwardOf[item.clientMessageId.lowercased()] == nil {
        if let cutShort = history.forwards.first(where: {
          $0.savedAs == nil && $0.user.rawValue == item.senderId
            && $0.conversation == conversation.id
        }) {
          forwardOf[item.clientMessageId.lowercased()] = cutShort
        }
      }
    }
    var onServer: Set<String> = []
    for conversation in log {
      for item in conversation.messages where item.effectiveKind == .message {
        let id = item.clientMessageId.lowercased()
        onServer.insert(id)
        guard item.forwarded == true else { continue }
        let label = "\(simulation.label(conversation.id))#\(item.sequence)"
        // One whose call a kill cut short may still have saved its row (taken above).
        guard let forward = forwardOf[id], forward.user.rawValue == item.senderId,
          forward.conversation == conversation.id
        else {
          report(.unexpected, "\(label) is a forward nobody saved", keys: [id])
          continue
        }
        guard item.deleted != true, item.editedAt == nil else { continue }
        let texts = texts(of: forward.message, history: history, forwardOf: forwardOf)
        if !texts.contains(Array(item.text.utf8)) {
          report(
            .unexpected,
            "\(label) forwards \(forward.message) with a text it never had",
            keys: [id, forward.message.rawValue])
        }
      }
    }
    // A refused forward is dropped (its source was deleted) or shows failed (a block); one
    // unsent when its source's delete came is dropped before it goes.
    var deleted: Set<String> = []
    for conversation in log {
      for item in conversation.messages where item.deleted == true {
        deleted.insert(item.clientMessageId.lowercased())
      }
    }
    for forward in history.forwards {
      guard let id = forward.savedAs, !onServer.contains(id.rawValue),
        !deleted.contains(forward.message.rawValue)
      else { continue }
      let deletedHere = history.changes.contains { $0.target == id && $0.text == nil }
      if !deletedHere, !history.refusedIDs.contains(id.rawValue) {
        report(
          .lost, "the forward \(id) was saved on \(forward.device) and never reached the server",
          keys: [id.rawValue])
      }
    }
    checkFreedMedia(log: log, history: history, simulation: simulation)
  }

  /// Every text `message` had: as sent (a send whose call a kill cut short: known by the
  /// screens' `idOfText`), as edited, and (a forward) its source's.
  private func texts(
    of message: MessageID, history: History, forwardOf: [String: History.Forward], depth: Int = 0
  ) -> Set<[UInt8]> {
    var texts = Set(
      history.sends.filter {
        $0.savedAs == message || ($0.savedAs == nil && idOfText[Array($0.text.utf8)] == message)
      }.map { Array($0.text.utf8) }
        + history.changes.filter { $0.target == message }.compactMap { $0.text }.map {
          Array($0.utf8)
        })
    if depth < 8, let source = forwardOf[message.rawValue] {
      texts.formUnion(
        self.texts(of: source.message, history: history, forwardOf: forwardOf, depth: depth + 1))
    }
    return texts
  }

  /// A key the server accepted on some message that no live message carries now: after a
  /// sweep (which takes what a delete cut short by a crash left), its bytes are gone.
  private func checkFreedMedia(log: [LoggedConversation], history: History, simulation: Simulation)
  {
    var live: Set<String> = []
    for conversation in log {
      for item in conversation.messages where item.deleted != true {
        if let key = item.media?.key { live.insert(key.lowercased()) }
      }
    }
    let freed = Set(history.mediaKeys.values.map { $0.lowercased() }).subtracting(live)
    guard !freed.isEmpty else { return }
    simulation.sweepServerMedia()
    for key in freed.sorted() where simulation.server.objects.bytes("media/\(key)") != nil {
      report(
        .media, "the bytes of media \(key) outlive every message that carried it", keys: [key])
    }
  }
}

import ChatAPI
import ChatDomain
import ChatIdentifiers
import Foundation
import Hashing
import Support

extension Checker {
  /// The end-of-run checks: the server's log against the history and against every device.
  func checkEnd(log: [LoggedConversation], finals: [FinalView], simulation: Simulation) {
    let history = simulation.history
    var byText: [[UInt8]: [(LoggedConversation, Item)]] = [:]
    // One message per sender + client message ID, across every conversation.
    var keys: Set<String> = []
    for conversation in log {
      let name = simulation.label(conversation.id)
      // Gap-free from 1, one message per sender + client message ID.
      for (index, message) in conversation.messages.enumerated()
      where message.sequence != index + 1 {
        report(
          .gap, "\(name) holds sequence \(message.sequence) at position \(index + 1)",
          keys: [message.clientMessageId])
        break
      }
      for message in conversation.messages {
        if !keys.insert("\(message.senderId) \(message.clientMessageId.lowercased())").inserted {
          report(
            .duplicated, "\(name) holds \(message.clientMessageId) of \(message.senderId) twice",
            keys: [message.clientMessageId])
        }
        // A message keeps the text it was sent with until edited or deleted; an edit's or
        // delete's item is checked against the changes asked for (`checkChanges`).
        // A forward carries another send's text: `checkForwards` follows it by its ID.
        guard message.effectiveKind == .message, message.editedAt == nil,
          message.deleted != true, message.forwarded != true
        else { continue }
        byText[Array(message.text.utf8), default: []].append((conversation, message))
      }
    }
    // Every text is one send: two messages with one text are one send stored twice.
    for copies in byText.values.sorted(by: Self.inLogOrder) where copies.count > 1 {
      let ids = copies.map(\.1.clientMessageId)
      report(
        .duplicated,
        "\(simulation.label(copies[0].0.id)) holds one send \(copies.count) times: "
          + ids.joined(separator: ", "),
        keys: ids + [Simulation.tag(of: copies[0].1.text)])
    }
    checkOperations(
      history: history, log: log, byText: byText, finals: finals, simulation: simulation)
    checkAcknowledgements(history: history, log: log, simulation: simulation)
    checkSendOrder(history: history, log: log, simulation: simulation)
    for final in finals {
      checkDevice(final, log: log, history: history, simulation: simulation)
    }
    checkShown(log: log, simulation: simulation)
    checkChanges(history: history, log: log, simulation: simulation)
    checkRanges(log: log, simulation: simulation)
    checkMedia(log: log, finals: finals, simulation: simulation)
    checkForwards(log: log, finals: finals, history: history, simulation: simulation)
    checkDiscards(log: log, simulation: simulation)
  }

  /// Every message with media the server holds names a complete object in the store, with
  /// the size and sha256 the message says, which are those of the bytes its sender picked; and
  /// every media file a device holds is those bytes.
  private func checkMedia(
    log: [LoggedConversation], finals: [FinalView], simulation: Simulation
  ) {
    let history = simulation.history
    for conversation in log {
      for item in conversation.messages {
        guard let media = item.media, item.deleted != true,
          let id = MessageID(rawValue: item.clientMessageId)
        else { continue }
        let stored = simulation.server.objects.bytes("media/\(media.key)")
        let sha = stored.map { Hex.encode(Crypto.sha256($0)) }
        if sha != media.sha256 || stored?.count != media.byteCount {
          report(
            .media,
            "\(simulation.label(conversation.id)) holds \(id) with media whose object is "
              + (stored == nil ? "not in the store" : "not the bytes it describes"),
            keys: [id.rawValue])
        } else if let picked = history.mediaSent[id], picked != media.sha256 {
          report(
            .media, "\(id)'s media is not what its sender picked", keys: [id.rawValue])
        }
      }
    }
    for final in finals {
      for message in final.views.values.joined() {
        guard let path = message.media?.localPath,
          let expected = history.mediaSent[message.id]
        else { continue }
        let found = Self.sha256(ofFileAt: path)
        if found != expected {
          report(
            .media,
            "\(final.incarnation.name) holds bytes for \(message.id) its sender did not pick",
            keys: [message.id.rawValue, final.incarnation.name])
        }
      }
    }
  }

  /// The visible ranges the server gives each user are those its own members items make:
  /// from 1 for a member it was created with, from the item that added the user to the one
  /// that removed it. (Then `membership` on the devices is checked against an oracle that
  /// does not take the server's word for it.)
  private func checkRanges(log: [LoggedConversation], simulation: Simulation) {
    for conversation in log {
      guard
        let initial = simulation.conversations.first(where: { $0.id == conversation.id })?
          .initialMembers
      else { continue }  // Created while the server crashed: its first members are not known.
      var ranges: [UserID: [(first: Int, last: Int?)]] = [:]
      for user in initial { ranges[user] = [(1, nil)] }
      for item in conversation.messages where item.effectiveKind == .members {
        for user in (item.added ?? []).map({ UserID($0) }) {
          ranges[user, default: []].append((item.sequence, nil))
        }
        for user in (item.removed ?? []).map({ UserID($0) }) {
          guard var held = ranges[user], let open = held.indices.last, held[open].last == nil
          else { continue }
          held[open].last = item.sequence
          ranges[user] = held
        }
      }
      for user in Set(ranges.keys).union(conversation.views.keys).sorted() {
        let expected = ranges[user] ?? []
        let served = conversation.views[user]?.visible.map { ($0.first, $0.last) } ?? []
        guard !expected.elementsEqual(served, by: { $0.first == $1.0 && $0.last == $1.1 }) else {
          continue
        }
        report(
          .membership,
          "the server gives \(user) \(Self.describe(served)) of \(simulation.label(conversation.id)), "
            + "its members items make \(Self.describe(expected))",
          keys: [user.rawValue])
      }
    }
  }

  /// Every edit and delete on the server was asked for, by its message's sender, on its
  /// message. (Whether every device shows the message's current text is `checkDevice`'s.)
  private func checkChanges(history: History, log: [LoggedConversation], simulation: Simulation) {
    for conversation in log {
      for item in conversation.messages
      where item.effectiveKind == .edit || item.effectiveKind == .delete {
        let asked = history.changes.contains { change in
          change.conversation == conversation.id && change.user.rawValue == item.senderId
            && change.target.rawValue == item.target?.lowercased()
            && (item.effectiveKind == .delete
              ? change.text == nil
              : change.text.map { Array($0.utf8) } == Array(item.text.utf8)
                || item.text.isEmpty)
        }
        if !asked {
          report(
            .unexpected,
            "\(simulation.label(conversation.id))#\(item.sequence) is a \(item.effectiveKind.rawValue) nobody asked for",
            keys: [item.clientMessageId])
        }
      }
    }
  }

  /// Each server message was sent by someone, under the ID the device saved; each saved send
  /// is on the server (or was refused with a 4xx and shows failed).
  private func checkOperations(
    history: History, log: [LoggedConversation], byText: [[UInt8]: [(LoggedConversation, Item)]],
    finals: [FinalView], simulation: Simulation
  ) {
    var sendsByText: [[UInt8]: History.Send] = [:]
    for send in history.sends { sendsByText[Array(send.text.utf8)] = send }
    // An edit made before the message was ever posted changed its row in place: the server
    // got the edited text as the message's own.
    var editedInPlace: [[UInt8]: History.Send] = [:]
    for change in history.changes {
      guard let text = change.text,
        let send = history.sends.first(where: { $0.savedAs == change.target })
      else { continue }
      editedInPlace[Array(text.utf8)] = send
    }
    for (text, copies) in byText.sorted(by: { Self.inLogOrder($0.value, $1.value) }) {
      for (conversation, message) in copies {
        guard let send = sendsByText[text] ?? editedInPlace[text],
          send.user.rawValue == message.senderId,
          send.conversation == conversation.id
        else {
          report(
            .unexpected,
            "\(simulation.label(conversation.id))#\(message.sequence) \(message.clientMessageId) from \(message.senderId) was never sent",
            keys: [message.clientMessageId])
          continue
        }
        if let saved = send.savedAs, saved.rawValue != message.clientMessageId.lowercased() {
          report(
            .unexpected,
            "\(Simulation.tag(of: send.text)) was saved as \(saved) but the server holds \(message.clientMessageId)",
            keys: [saved.rawValue, message.clientMessageId, Simulation.tag(of: send.text)])
        }
      }
    }
    // An edited or deleted message is on the server under its ID, not its first text.
    var onServer: Set<String> = []
    for conversation in log {
      for item in conversation.messages where item.effectiveKind == .message {
        onServer.insert(item.clientMessageId.lowercased())
      }
    }
    let deletedHere = Set(history.changes.filter { $0.text == nil }.map(\.target.rawValue))
    for send in history.sends {
      // A send whose call a kill cut short may still have saved its row: a screen showing it
      // is the proof, and that row must reach the server too.
      guard let saved = send.savedAs ?? idOfText[Array(send.text.utf8)] else { continue }
      guard byText[Array(send.text.utf8)] == nil, !onServer.contains(saved.rawValue) else {
        continue
      }
      // Deleted while still unsent, or held and discarded: it never reaches the server,
      // rightly.
      guard !deletedHere.contains(saved.rawValue), discarded[saved.rawValue] == nil else {
        continue
      }
      let deviceName = String(send.device.split(separator: "#")[0])
      let final = finals.first { $0.device.name == deviceName }
      let shownFailed =
        final?.views[send.conversation]?.contains {
          guard $0.id == saved, case .failed = $0.send else { return false }
          return true
        } ?? false
      if !(history.refusedIDs.contains(saved.rawValue) && shownFailed) {
        report(
          .lost,
          "\(Simulation.tag(of: send.text)) (\(saved)) was saved as sending on \(send.device) and never reached the server",
          keys: [saved.rawValue, Simulation.tag(of: send.text)])
      }
    }
  }

  /// One outbox per conversation, one send in flight at a time in each: a device's sends in one
  /// conversation reach the server in the order they were written. A send invoked after
  /// another one returned (was saved) must end at a later sequence; a send a retry was tapped
  /// for went to the back of its queue, so it is left out.
  private func checkSendOrder(history: History, log: [LoggedConversation], simulation: Simulation) {
    var sequences: [String: Int] = [:]
    for conversation in log {
      for message in conversation.messages {
        sequences["\(message.senderId) \(message.clientMessageId.lowercased())"] = message.sequence
      }
    }
    // A send names the incarnation that wrote it (`alice.phone#2`); the outbox is the device's,
    // across its incarnations.
    func device(_ send: History.Send) -> String {
      String(send.device.prefix { $0 != "#" })
    }
    let placed = history.sends.compactMap { send -> (History.Send, Int, Int)? in
      guard let id = send.savedAs, let savedAt = send.savedAt,
        !everRetried.contains(DeviceMessage(device: device(send), id: id)),
        let sequence = sequences["\(send.user.rawValue) \(id.rawValue)"]
      else { return nil }
      return (send, savedAt, sequence)
    }
    let groups = Dictionary(grouping: placed) { "\(device($0.0)) \($0.0.conversation.rawValue)" }
    for key in groups.keys.sorted() {
      let sends = groups[key] ?? []
      for earlier in sends {
        for later in sends
        where later.0.invokedAt > earlier.1 && later.2 < earlier.2 {
          report(
            .sendOrder,
            "\(later.0.device) wrote \(earlier.0.savedAs?.rawValue ?? "?") before "
              + "\(later.0.savedAs?.rawValue ?? "?") in \(simulation.label(later.0.conversation)), "
              + "but the server holds them at \(earlier.2) and \(later.2)",
            keys: [earlier.0.savedAs?.rawValue ?? "", later.0.savedAs?.rawValue ?? ""])
          return
        }
      }
    }
  }

  /// Every message the server acknowledged is still there, at the same sequence.
  private func checkAcknowledgements(
    history: History, log: [LoggedConversation], simulation: Simulation
  ) {
    for ack in history.acknowledgements {
      let conversation = log.first { $0.id == ack.conversation }
      let held = conversation?.messages.first { $0.sequence == ack.sequence }
      if held?.clientMessageId.lowercased() != ack.clientMessageID.lowercased()
        || held?.senderId != ack.sender
      {
        report(
          .lost,
          "the server acknowledged \(ack.clientMessageID) at \(simulation.label(ack.conversation))#\(ack.sequence) and no longer holds it",
          keys: [ack.clientMessageID])
      }
    }
  }

  static func describe(_ ranges: [(first: Int, last: Int?)]) -> String {
    "[" + ranges.map { "\($0.first)-\($0.last.map(String.init) ?? "")" }.joined(separator: ", ")
      + "]"
  }

  /// What any device ever showed at a sequence is what the server holds there; no device
  /// ever showed a conversation its user is not in.
  private func checkShown(log: [LoggedConversation], simulation: Simulation) {
    for (slot, claim) in claims.sorted(by: {
      ($0.key.conversation, $0.key.sequence) < ($1.key.conversation, $1.key.sequence)
    }) {
      let held = log.first { $0.id == slot.conversation }?.messages.first {
        $0.sequence == slot.sequence
      }
      guard let held else {
        report(
          .unexpected,
          "\(claim.device) showed \(claim.id) at \(simulation.label(slot.conversation))#\(slot.sequence), which the server does not hold",
          keys: [claim.id.rawValue])
        continue
      }
      let unchanged = held.editedAt == nil && held.deleted != true
      if held.clientMessageId.lowercased() != claim.id.rawValue
        || held.senderId != claim.sender.rawValue
        || (unchanged && claim.text != nil && Array(held.text.utf8) != claim.text)
      {
        report(
          .sequenceChanged,
          "\(claim.device) showed \(claim.id) at \(simulation.label(slot.conversation))#\(slot.sequence), the server holds \(held.clientMessageId)",
          keys: [claim.id.rawValue, held.clientMessageId])
      }
    }
    for pair in seenBy.sorted() {
      let parts = pair.split(separator: " ")
      let user = UserID(String(parts[0]))
      let conversation = log.first { $0.id.rawValue.lowercased() == parts[1] }
      if let conversation, !conversation.wasEverMember(user) {
        report(
          .foreign, "\(user) saw \(simulation.label(conversation.id)) without ever being a member",
          keys: [])
      }
    }
    for (user, conversations) in sequencesShown.sorted(by: { $0.key < $1.key }) {
      for conversation in log {
        guard let view = conversation.views[user],
          let hidden = conversations[conversation.id]?.sorted().first(where: { !view.sees($0) })
        else { continue }
        report(
          .invisible,
          "a device of \(user) showed \(simulation.label(conversation.id))#\(hidden), written while \(user) was not a member",
          keys: [user.rawValue])
      }
    }
  }

  /// Orders groups of copies by where their first copy is in the log, so reports come out in
  /// the same order in every run (a dictionary's order changes from run to run).
  private static func inLogOrder(
    _ a: [(LoggedConversation, Item)], _ b: [(LoggedConversation, Item)]
  ) -> Bool {
    (a[0].0.id.rawValue, a[0].1.sequence) < (b[0].0.id.rawValue, b[0].1.sequence)
  }

  /// Whether a device shows the item the server holds; its text too when `text` (a former
  /// member shows a message as it last saw it, not as later changes made it).
  static func same(_ shown: Message, _ held: Item, text: Bool) -> Bool {
    shown.sequence == held.sequence && shown.id.rawValue == held.clientMessageId.lowercased()
      && shown.senderID.rawValue == held.senderId
      && (!text || Array(shown.text.utf8) == Array(held.text.utf8))
  }
}

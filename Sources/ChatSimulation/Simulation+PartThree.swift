import ChatData
import ChatDomain
import ChatIdentifiers
import Foundation

// API.md Part 3 in the workload: users react to what their screens show (toggling, so a
// reaction taken back while unsent cancels in place), pin and unpin what they see (toggling
// too), and reply to a message with a text of their own that sometimes names another member.
// A reply is a send like any other: the checker follows it by its text.

extension Simulation {
  /// The emoji users react with.
  static let reactionEmoji = ["👍", "❤️", "😂", "🎉"]

  /// One reaction or one reply in `conversation` (and, three times in ten, a pin or unpin),
  /// beside the user's other action.
  func actOnPartThree(
    _ device: SimDevice, _ incarnation: Incarnation, _ engine: ChatEngine,
    in conversation: ConversationID
  ) {
    let shown = (incarnation.latest[conversation] ?? []).filter {
      $0.sequence != nil && !$0.isDeleted && $0.event == nil
    }
    guard !shown.isEmpty else { return }
    if pinRandom.chance(0.3) {
      pin(shown, incarnation, engine, in: conversation)
    }
    if draftRandom.chance(0.6) {
      typeDraft(on: incarnation, engine, in: conversation)
    }
    if blockRandom.chance(0.3) {
      toggleBlock(on: device, incarnation, engine)
    }
    if forwardRandom.chance(0.3) {
      // A photo or document half the time when one shows: its bytes are shared.
      let media = shown.filter { $0.media != nil }
      let message =
        !media.isEmpty && forwardRandom.chance(0.5)
        ? forwardRandom.pick(media) : forwardRandom.pick(shown)
      forward(message, from: conversation, on: device, incarnation, engine)
    }
    let target = partThreeRandom.pick(shown)
    if partThreeRandom.chance(0.6) {
      let emoji = partThreeRandom.pick(Self.reactionEmoji)
      let remove = target.reactions.contains { $0.emoji == emoji && $0.includesMe }
      history.partThree.reactions += 1
      history.trace(
        "op \(incarnation.name) \(remove ? "unreact" : "react") \(emoji) id=\(target.id)")
      incarnation.executor.spawn { [self] in
        do {
          try await engine.messages.react(emoji, to: target.id, in: conversation, remove: remove)
        } catch {
          history.trace("op \(incarnation.name) reaction refused id=\(target.id): \(error)")
        }
      }
      return
    }
    reply(to: target.id, on: device, incarnation, engine, in: conversation)
  }

  /// `text`, naming another member of a group (`@user`) one time in ten (API.md Part 3's
  /// mentions, from Part 3's own random stream), when it stays within the contract's length.
  func mentioningSomeone(
    in text: String, on device: SimDevice, _ incarnation: Incarnation,
    _ conversation: ConversationID
  ) -> String {
    guard options.partThree else { return text }
    let others = (incarnation.known.first { $0.id == conversation }?.memberIDs ?? [])
      .filter { $0 != device.user }.sorted()
    guard others.count > 1, partThreeRandom.chance(0.1) else { return text }
    let named = " @" + partThreeRandom.pick(others).rawValue
    guard text.unicodeScalars.count + named.unicodeScalars.count <= 4096 else { return text }
    history.partThree.mentions += 1
    return text + named
  }

  /// A reply quoting `target`; in a group, one in two names another member (`@user`).
  private func reply(
    to target: MessageID, on device: SimDevice, _ incarnation: Incarnation,
    _ engine: ChatEngine, in conversation: ConversationID
  ) {
    let others = (incarnation.known.first { $0.id == conversation }?.memberIDs ?? [])
      .filter { $0 != device.user }.sorted()
    var text = makeText(for: device, partThree: true)
    let names = others.count > 1 && partThreeRandom.chance(0.5)
    if names {
      let named = partThreeRandom.pick(others)
      // The tag and the text's marker stay first (the checker reads them); the mention after.
      let head = text.split(separator: " ").prefix(3).joined(separator: " ")
      text = head + " @\(named.rawValue) " + partThreeRandom.pick(Self.words)
    }
    let tag = Self.tag(of: text)
    let number = history.invokeSend(
      device: incarnation.name, user: device.user, conversation: conversation, text: text)
    history.trace("op \(incarnation.name) reply \(label(conversation)) \(tag) to id=\(target)")
    incarnation.executor.spawn { [self] in
      do {
        let id = try await engine.messages.reply(text, to: target, in: conversation)
        history.sendSaved(number, as: id)
        checker.sendSaved(id, on: device.name)
        history.partThree.replies += 1
        if names { history.partThree.mentions += 1 }
        history.trace("op \(incarnation.name) saved \(tag) id=\(id)")
      } catch {
        history.trace("op \(incarnation.name) refused \(tag): \(error)")
      }
    }
  }

  /// Types a draft (one time in five, clears it): the user's other devices must end with the
  /// server's draft, whichever device typed last.
  private func typeDraft(
    on incarnation: Incarnation, _ engine: ChatEngine, in conversation: ConversationID
  ) {
    history.partThree.drafts += 1
    let text =
      draftRandom.chance(0.2) ? "" : "draft \(incarnation.name) \(history.partThree.drafts)"
    history.trace("op \(incarnation.name) draft \(label(conversation)) \"\(text)\"")
    incarnation.executor.spawn { [self] in
      do {
        try await engine.messages.saveDraft(text, replyTo: nil, in: conversation)
      } catch {
        history.trace("op \(incarnation.name) draft refused: \(error)")
      }
    }
  }

  /// Blocks the other member of one of the user's one-to-one conversations, or unblocks one
  /// it blocked (an unblock twice as likely, so blocks pass). The history keeps when each
  /// block surely held on the server: from its 204 to its unblock's invocation.
  private func toggleBlock(on device: SimDevice, _ incarnation: Incarnation, _ engine: ChatEngine) {
    let user = device.user
    let partners = Set(
      incarnation.known.filter { $0.memberIDs.count == 2 && $0.memberIDs.contains(user) }
        .flatMap(\.memberIDs)
    ).subtracting([user]).sorted()
    guard !partners.isEmpty else { return }
    let other = blockRandom.pick(partners)
    let unblock = history.isBlocking(user, other)
    guard unblock ? blockRandom.chance(0.7) : blockRandom.chance(0.35) else { return }
    history.partThree.blocks += 1
    history.trace("op \(incarnation.name) \(unblock ? "unblock" : "block") \(other)")
    if unblock { history.unblockInvoked(user, other, at: world.clock.now()) }
    incarnation.executor.spawn { [self] in
      do {
        if unblock {
          try await engine.unblock(other)
        } else {
          try await engine.block(other)
          history.blockReturned(user, other, at: world.clock.now())
        }
      } catch {
        history.trace("op \(incarnation.name) block refused \(other): \(error)")
      }
    }
  }

  /// Forwards `message` (shown in `source`) into another conversation the user is in: the
  /// checker follows it by the ID it was saved as.
  private func forward(
    _ message: Message, from source: ConversationID, on device: SimDevice,
    _ incarnation: Incarnation, _ engine: ChatEngine
  ) {
    let others = incarnation.known.filter {
      $0.id != source && $0.participation == .member && $0.memberIDs.contains(device.user)
    }.map(\.id)
    guard !others.isEmpty else { return }
    let conversation = forwardRandom.pick(others)
    history.partThree.forwards += 1
    history.trace(
      "op \(incarnation.name) forward id=\(message.id) to \(label(conversation))")
    let number = history.forwardInvoked(
      History.Forward(
        device: incarnation.name, user: device.user, source: source, message: message.id,
        conversation: conversation))
    incarnation.executor.spawn { [self] in
      do {
        let id = try await engine.messages.forward(message.id, from: source, to: conversation)
        history.forwardSaved(number, as: id)
        // My own photo forwarded elsewhere, then deleted where it was (half the time): the
        // forward keeps the bytes if it reached the server first.
        if message.media != nil, message.senderID == device.user, forwardRandom.chance(0.5) {
          deleteForwarded(message.id, in: source, on: device, incarnation, engine)
        }
        checker.sendSaved(id, on: device.name)
        history.trace("op \(incarnation.name) forward saved id=\(id)")
      } catch {
        history.trace("op \(incarnation.name) forward refused id=\(message.id): \(error)")
      }
    }
  }

  private func deleteForwarded(
    _ target: MessageID, in conversation: ConversationID, on device: SimDevice,
    _ incarnation: Incarnation, _ engine: ChatEngine
  ) {
    let number = history.invokeChange(
      History.Change(
        device: incarnation.name, user: device.user, conversation: conversation, target: target,
        text: nil))
    history.trace("op \(incarnation.name) delete id=\(target) (forwarded)")
    incarnation.executor.spawn { [self] in
      do {
        try await engine.messages.delete(target, in: conversation)
        history.changeReturned(number)
      } catch {
        history.trace("op \(incarnation.name) change refused id=\(target): \(error)")
      }
    }
  }

  /// Pins or unpins one of the messages shown: half the time one of the pinned ones (so mostly
  /// an unpin), else any.
  private func pin(
    _ shown: [Message], _ incarnation: Incarnation, _ engine: ChatEngine,
    in conversation: ConversationID
  ) {
    let pins = Set(incarnation.known.first { $0.id == conversation }?.pinned.map(\.id) ?? [])
    let shownPinned = shown.filter { pins.contains($0.id) }
    let target =
      !shownPinned.isEmpty && pinRandom.chance(0.5)
      ? pinRandom.pick(shownPinned) : pinRandom.pick(shown)
    let pinned = pins.contains(target.id)
    history.partThree.pins += 1
    history.trace("op \(incarnation.name) \(pinned ? "unpin" : "pin") id=\(target.id)")
    incarnation.executor.spawn { [self] in
      do {
        try await engine.messages.pin(target.id, in: conversation, remove: pinned)
      } catch {
        history.trace("op \(incarnation.name) pin refused id=\(target.id): \(error)")
      }
    }
  }
}

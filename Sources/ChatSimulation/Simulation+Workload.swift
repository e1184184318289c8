import ChatAPI
import ChatData
import ChatDomain
import ChatIdentifiers
import ChatWorld
import Foundation
import Hashing
import Support

// What the users do, and when the faults strike, during the fault phase. Both are timers on
// the world, drawn from the seed; each action runs as a task on the device's engine executor.

extension Simulation {
  /// Starts every user's actions and every fault's timer.
  func startFaultPhase() {
    phase = .safety
    faults = plan
    for device in devices where device.clockOffset != .zero { count(.clockSkewed) }
    for device in devices { scheduleAction(device) }
    repeatEvery(plan.socketDropEvery) { [self] in
      let connected = devices.filter { !$0.sockets.isEmpty }
      guard !connected.isEmpty else { return }
      let device = faultRandom.pick(connected)
      count(.socketDropped)
      for socket in device.sockets { socket.drop(reason: "dropped by the network") }
    }
    repeatEvery(plan.offlineEvery) { [self] in
      let device = faultRandom.pick(devices)
      let length = faultRandom.duration(.seconds(5)...(.seconds(120)))
      count(.offline)
      device.offlineUntil = world.now + length
      history.trace("fault offline \(device.name) for \(length.milliseconds) ms")
      for socket in device.sockets { socket.drop(reason: "the device went offline") }
    }
    repeatEvery(plan.killEvery) { [self] in
      let alive = devices.filter { $0.current != nil && $0.killCountdown == nil }
      guard !alive.isEmpty else { return }
      armKill(faultRandom.pick(alive))
    }
    repeatEvery(plan.serverRestartEvery) { [self] in
      armServerCrash()
    }
  }

  /// Runs `body` about every `mean` (between a fifth and twice that) while the fault phase lasts.
  private func repeatEvery(_ mean: Duration?, _ body: @escaping () -> Void) {
    guard let mean else { return }
    let gap = faultRandom.duration(mean / 5...(mean * 2))
    world.schedule(after: gap) { [self] in
      guard phase == .safety else { return }
      body()
      repeatEvery(mean, body)
    }
  }

  /// Ends the faults: the network heals, dead devices relaunch, apps come to the foreground,
  /// the server comes back. A socket frame held back (reordered) is still delivered, late.
  func heal() {
    phase = .liveness
    faults = .none
    if !server.isUp { restartServer() }
    if let executor = server.executor { world.afterEachStep(of: executor, nil) }
    for device in devices {
      device.offlineUntil = .zero
      if let incarnation = device.current, device.killCountdown != nil {
        device.killCountdown = nil
        world.afterEachStep(of: incarnation.executor, nil)
      }
      if device.current == nil {
        device.isForeground = true
        launch(device, signIn: false)
      } else if !device.isForeground {
        foreground(device)
      }
    }
  }

  // MARK: - Users

  private func scheduleAction(_ device: SimDevice) {
    world.schedule(after: workloadRandom.duration(options.profile.thinkTime)) { [self] in
      guard phase == .safety else { return }
      act(device)
      scheduleAction(device)
    }
  }

  /// One thing the user does on this device now, if the app is running.
  private func act(_ device: SimDevice) {
    guard let incarnation = device.current, let engine = incarnation.engine else { return }
    guard device.isForeground else { return }
    let conversations = incarnation.known.map(\.id).sorted()
    guard !conversations.isEmpty else { return }
    let conversation = workloadRandom.pick(conversations)
    if options.partThree, partThreeRandom.chance(0.2) {
      actOnPartThree(device, incarnation, engine, in: conversation)
    }
    let roll = workloadRandom.below(100)
    switch roll {
    case 0..<40:
      send(on: device, incarnation, engine, in: conversation)
    case 40..<55:
      let newest = incarnation.latest[conversation]?.compactMap(\.sequence).max()
      guard let newest else { return }
      history.trace("op \(incarnation.name) mark-read \(label(conversation)) \(newest)")
      engine.messages.markRead(upTo: newest, in: conversation)
    case 55..<63:
      history.trace("op \(incarnation.name) load-older \(label(conversation))")
      incarnation.executor.spawn {
        _ = try? await engine.messages.loadOlder(in: conversation)
      }
    case 63..<68 where options.media:
      download(on: device, incarnation, engine)
    case 63..<73:
      engine.typing.userIsTyping(in: conversation)
    case 73..<83:
      let failed = (incarnation.latest[conversation] ?? []).filter {
        if case .failed = $0.send { return true }
        return false
      }
      guard let message = failed.first else { return }
      history.trace("op \(incarnation.name) retry id=\(message.id)")
      checker.retryTapped(message.id, on: device)
      incarnation.executor.spawn { await engine.messages.retry(message.id) }
    case 83..<91:
      if incarnation.views[conversation] != nil {
        history.trace("op \(incarnation.name) close-screen \(label(conversation))")
        closeScreen(conversation, on: incarnation)
      } else {
        history.trace("op \(incarnation.name) open-screen \(label(conversation))")
        openScreen(conversation, on: device, incarnation)
      }
    case 91..<94:
      background(device, engine)
    case 94..<95 where conversations.count < 6:
      createConversation(on: device, incarnation, engine)
    case 95..<98 where options.editsAndDeletes:
      change(on: device, incarnation, engine, in: conversation, deleting: roll == 97)
    case 98..<100 where options.memberChanges:
      changeMembers(on: device, incarnation, engine, in: conversation)
    default:
      send(on: device, incarnation, engine, in: conversation)
    }
  }

  private func send(
    on device: SimDevice, _ incarnation: Incarnation, _ engine: ChatEngine,
    in conversation: ConversationID
  ) {
    let text = mentioningSomeone(in: makeText(for: device), on: device, incarnation, conversation)
    let tag = Self.tag(of: text)
    let attachment = options.media ? pickMedia(on: device) : nil
    let number = history.invokeSend(
      device: incarnation.name, user: device.user, conversation: conversation, text: text)
    history.trace(
      "op \(incarnation.name) send \(label(conversation)) \(tag)"
        + (attachment.map { " with \($0.bytes.count) bytes" } ?? ""))
    incarnation.executor.spawn { [self] in
      do {
        let id =
          if let attachment {
            try await engine.media.send(attachment.what, caption: text, in: conversation)
          } else {
            try await engine.messages.send(text, in: conversation)
          }
        if let attachment {
          history.mediaSaved(id, sha256: Hex.encode(Crypto.sha256(attachment.bytes)))
        }
        history.sendSaved(number, as: id)
        checker.sendSaved(id, on: device.name)
        history.trace("op \(incarnation.name) saved \(tag) id=\(id)")
      } catch {
        history.trace("op \(incarnation.name) refused \(tag): \(error)")
      }
    }
  }

  /// One send in six carries a photo or a document the user just picked: a file of up to
  /// 40 KB written beside the device's database.
  private func pickMedia(on device: SimDevice) -> (what: Attachment, bytes: [UInt8])? {
    guard workloadRandom.below(6) == 0 else { return nil }
    picked += 1
    let bytes = workloadRandom.bytes(workloadRandom.int(in: 1...40_000))
    let path = (device.path as NSString).deletingLastPathComponent + "/picked-\(picked)"
    guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else { return nil }
    let what: Attachment =
      workloadRandom.chance(0.5) ? .photo(path: path) : .file(path: path, contentType: nil)
    return (what, bytes)
  }

  /// Downloads the bytes of someone else's photo or document an open screen shows; a download
  /// that returns must hold exactly what its sender picked.
  private func download(on device: SimDevice, _ incarnation: Incarnation, _ engine: ChatEngine) {
    let shown = incarnation.latest.keys.sorted().flatMap { incarnation.latest[$0] ?? [] }
    let theirs = shown.filter {
      $0.media != nil && $0.senderID != device.user && $0.sequence != nil
    }
    guard !theirs.isEmpty else { return }
    let message = workloadRandom.pick(theirs)
    let id = message.id
    let conversation = message.conversationID
    history.trace("op \(incarnation.name) download id=\(id)")
    incarnation.executor.spawn { [self] in
      do {
        let path = try await engine.media.download(id, in: conversation, progress: nil)
        history.trace("op \(incarnation.name) downloaded id=\(id)")
        history.downloads += 1
        checker.downloaded(id, at: path, on: incarnation.name)
      } catch {
        history.trace("op \(incarnation.name) download failed id=\(id): \(error)")
      }
    }
  }

  /// Edits (a new text) or deletes one of the user's own messages this screen shows, as a
  /// person does with a message sent a moment ago or long before.
  private func change(
    on device: SimDevice, _ incarnation: Incarnation, _ engine: ChatEngine,
    in conversation: ConversationID, deleting: Bool
  ) {
    let mine = (incarnation.latest[conversation] ?? []).filter {
      $0.senderID == device.user && !$0.isDeleted && $0.event == nil
    }
    guard !mine.isEmpty else { return }
    let target = workloadRandom.pick(mine).id
    let text = deleting ? nil : "edit " + makeText(for: device)
    let number = history.invokeChange(
      History.Change(
        device: incarnation.name, user: device.user, conversation: conversation, target: target,
        text: text))
    history.trace(
      "op \(incarnation.name) \(deleting ? "delete" : "edit") id=\(target)"
        + (text.map { " " + Self.tag(of: String($0.dropFirst(5))) } ?? ""))
    incarnation.executor.spawn { [self] in
      do {
        if let text {
          try await engine.messages.edit(target, in: conversation, to: text)
        } else {
          try await engine.messages.delete(target, in: conversation)
        }
        history.changeReturned(number)
      } catch {
        history.trace("op \(incarnation.name) change refused id=\(target): \(error)")
      }
    }
  }

  /// Adds someone, removes another member, or leaves, as a member of a group does (a removal
  /// the user has no right to is refused with 403, which is a rule too). Needs the network,
  /// like creating a conversation: a failure is shown and nothing is queued.
  private func changeMembers(
    on device: SimDevice, _ incarnation: Incarnation, _ engine: ChatEngine,
    in conversation: ConversationID
  ) {
    guard let summary = incarnation.known.first(where: { $0.id == conversation }),
      summary.participation == .member
    else { return }
    let everyone = Set(devices.map(\.user))
    let outside = everyone.subtracting(summary.memberIDs).sorted()
    let others = Set(summary.memberIDs).subtracting([device.user]).sorted()
    var add: [UserID] = []
    var remove: [UserID] = []
    switch workloadRandom.below(10) {
    case 0..<4 where !outside.isEmpty: add = [workloadRandom.pick(outside)]
    case 4..<7 where !others.isEmpty: remove = [workloadRandom.pick(others)]
    case 7..<10 where !others.isEmpty: remove = [device.user]
    default: return
    }
    let what =
      add.map { "+\($0)" } + remove.map { $0 == device.user ? "leave" : "-\($0)" }
    history.trace(
      "op \(incarnation.name) members \(label(conversation)) \(what.joined(separator: " "))")
    incarnation.executor.spawn { [self] in
      do {
        try await engine.conversationList.changeMembers(in: conversation, add: add, remove: remove)
        history.trace("op \(incarnation.name) members changed \(label(conversation))")
      } catch {
        history.trace("op \(incarnation.name) members refused \(label(conversation)): \(error)")
      }
    }
  }

  /// The part of a text the trace shows: "sim alice.phone-12".
  static func tag(of text: String) -> String {
    text.split(separator: " ").prefix(2).joined(separator: " ")
  }

  /// The app leaves the screen: the socket closes after a grace, the outbox gets the host's
  /// background window; pushes wake it meanwhile (`deliver`).
  private func background(_ device: SimDevice, _ engine: ChatEngine) {
    guard let incarnation = device.current else { return }
    device.isForeground = false
    count(.backgrounded)
    history.trace("op \(incarnation.name) background")
    let grace = workloadRandom.duration(.seconds(0)...(.seconds(10)))
    let window = workloadRandom.duration(.seconds(5)...(.seconds(30)))
    incarnation.executor.spawn { [self] in
      let left = await engine.enterBackground(grace: grace, window: window)
      history.trace("op \(incarnation.name) in the background, \(left) queued")
      // The app's background task: the device's upkeep prunes what the window no longer keeps.
      if options.retainMessages != nil { await maintain(engine, on: incarnation) }
    }
    world.schedule(after: workloadRandom.duration(.seconds(5)...(.seconds(300)))) { [self] in
      guard !device.isForeground, phase == .safety else { return }
      foreground(device)
    }
  }

  func foreground(_ device: SimDevice) {
    device.isForeground = true
    guard let incarnation = device.current, let engine = incarnation.engine else { return }
    history.trace("op \(incarnation.name) foreground")
    incarnation.executor.spawn { await engine.enterForeground() }
  }

  // MARK: - Pushes

  /// The gateway took a push for a device (its token is the device's name): it arrives a
  /// moment later, or late, or twice, or never, as the plan says. A device in the background
  /// wakes for it and runs the engine's bounded sync within a budget drawn here; one in the
  /// foreground (its socket or long poll already brings everything) or dead ignores it.
  func deliver(_ delivery: PushDelivery) {
    guard let device = device(named: delivery.token) else { return }
    let payload = delivery.payload
    let conversation = ConversationID(rawValue: payload.conversationId).map(label) ?? "?"
    let what = "\(device.name) \(conversation)#\(payload.sequence)"
    if faultRandom.chance(faults.dropPush) {
      count(.pushDropped)
      history.trace("fault push-dropped \(what)")
      return
    }
    let copies = faultRandom.chance(faults.duplicatePush) ? 2 : 1
    if copies == 2 { count(.pushDuplicated) }
    for _ in 0..<copies {
      var delay = faultRandom.duration(.milliseconds(50)...(.seconds(2)))
      if faultRandom.chance(faults.delayPush) {
        count(.pushDelayed)
        delay += faultRandom.duration(.seconds(1)...(.seconds(60)))
      }
      world.schedule(after: delay) { [self] in wake(device, for: payload, what) }
    }
  }

  private func wake(_ device: SimDevice, for payload: PushPayload, _ what: String) {
    guard phase != .done, !device.isForeground, let incarnation = device.current,
      let engine = incarnation.engine
    else { return }
    let budget = faultRandom.duration(.seconds(1)...(.seconds(30)))
    history.trace("push \(incarnation.name) \(what) budget \(budget.milliseconds) ms")
    count(.pushHandled)
    incarnation.executor.spawn { [self] in
      let result = await engine.handlePush(payload, budget: budget)
      history.trace("push \(incarnation.name) \(what): \(result)")
    }
  }

  private func createConversation(
    on device: SimDevice, _ incarnation: Incarnation, _ engine: ChatEngine
  ) {
    let others = Set(devices.map(\.user)).subtracting([device.user]).sorted()
    let members = others.filter { _ in workloadRandom.chance(0.6) }
    guard !members.isEmpty else { return }
    history.trace(
      "op \(incarnation.name) create \(members.map(\.rawValue).joined(separator: ","))")
    incarnation.executor.spawn { [self] in
      do {
        _ = try await engine.conversationList.createConversation(
          title: "made by \(device.name)", memberIDs: members)
      } catch {
        history.trace("op \(incarnation.name) create failed: \(error)")
      }
    }
  }
}

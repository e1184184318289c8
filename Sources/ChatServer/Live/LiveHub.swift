/// The open live subscriptions, by user, in the order they opened: the fan-out table.
///
/// Fan-out walks a conversation's members in sorted order and each member's subscriptions in
/// opening order, so every run delivers in the same order. (Dictionaries are only looked up
/// here, never iterated.)
struct LiveHub {
  struct Subscriber {
    let id: UInt64
    let userId: String
    let deviceId: String
    /// The refresh-token family of the access token the socket opened with.
    let family: String?
    let continuation: AsyncStream<String>.Continuation
    /// Where the service says why it ended the subscription (shared with `LiveSubscription`).
    let ending: LiveEnding
    /// Closes it when its access token has expired (`ChatService.closeWhenExpired`).
    let expiry: Task<Void, Never>

    var device: DeviceKey { DeviceKey(userId: userId, deviceId: deviceId) }
  }

  private var subscribersByUser: [String: [Subscriber]] = [:]
  private var userBySubscription: [UInt64: String] = [:]
  private var lastID: UInt64 = 0
  /// Open subscriptions per device, and the devices with at least one: who needs no push.
  private var socketsByDevice: [DeviceKey: Int] = [:]
  let devicesOnline = OnlineDevices()

  var openCount: Int { userBySubscription.count }

  /// The users with a subscription open, sorted.
  var users: [String] { subscribersByUser.keys.sorted() }

  /// An id for a subscription about to be added.
  mutating func nextID() -> UInt64 {
    lastID += 1
    return lastID
  }

  mutating func add(_ subscriber: Subscriber) {
    subscribersByUser[subscriber.userId, default: []].append(subscriber)
    userBySubscription[subscriber.id] = subscriber.userId
    let device = subscriber.device
    socketsByDevice[device, default: 0] += 1
    devicesOnline.insert(device)
  }

  /// Removes and returns the subscription, or nil when it was already gone.
  mutating func remove(_ id: UInt64) -> Subscriber? {
    guard let user = userBySubscription.removeValue(forKey: id),
      var subscribers = subscribersByUser[user],
      let index = subscribers.firstIndex(where: { $0.id == id })
    else { return nil }
    let removed = subscribers.remove(at: index)
    subscribersByUser[user] = subscribers.isEmpty ? nil : subscribers
    let device = removed.device
    if let count = socketsByDevice[device], count > 1 {
      socketsByDevice[device] = count - 1
    } else {
      socketsByDevice[device] = nil
      devicesOnline.remove(device)
    }
    return removed
  }

  func subscriber(_ id: UInt64) -> Subscriber? {
    guard let user = userBySubscription[id] else { return nil }
    return subscribersByUser[user]?.first { $0.id == id }
  }

  /// The subscriptions of `users`, in the order given, each user's in opening order.
  func subscribers(of users: [String]) -> [Subscriber] {
    users.flatMap { subscribersByUser[$0] ?? [] }
  }
}

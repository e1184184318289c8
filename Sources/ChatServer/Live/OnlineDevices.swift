import Support

/// The devices with at least one live socket open: who needs no push. Written by the fan-out
/// table (`LiveHub`), read by the push dispatcher when it queues and delivers; both run on the
/// service's executor, the lock only makes the sharing between the two types safe.
final class OnlineDevices: Sendable {
  private let devices = Locked<Set<DeviceKey>>([])

  var all: Set<DeviceKey> { devices.value }

  func contains(_ device: DeviceKey) -> Bool {
    devices.withLock { $0.contains(device) }
  }

  func insert(_ device: DeviceKey) {
    devices.withLock { _ = $0.insert(device) }
  }

  func remove(_ device: DeviceKey) {
    devices.withLock { _ = $0.remove(device) }
  }
}
